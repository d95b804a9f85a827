import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { execute, parse, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import { testConfig } from '../../src/settings/config.ts';
import { createContext } from '../../src/context.ts';
import { CompiledExecution } from '../../src/execution/compiled-executor.ts';
import { createLogger } from '../../src/logger.ts';
import { PolicyChain, type UpstreamRequest, type UpstreamResponse } from '../../src/platform/policy-chain.ts';
import { exampleTabs } from '../../src/playground/examples.ts';
import { sandboxExampleValues } from '../../src/playground/sandbox-examples.ts';
import { buildSchema } from '../../src/schema/schema.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { ANCHORED_VERSION } from '../../src/connections/anchored-cursor.ts';

// The compiled executor must answer exactly what graphql-js answers: data,
// nulls, and every error's message, path, locations and extensions.

let sandbox: Sandbox;
let http: PolicyChain;
let schema: GraphQLSchema;
let compiled: CompiledExecution;
const config = testConfig();
const logger = createLogger('silent');

beforeAll(async () => {
  sandbox = await startSandbox({ scanDelayMs: 50 });
  http = new PolicyChain(sandbox.url, { ...config.upstream, retryLimit: 0 });
  schema = buildSchema();
  compiled = new CompiledExecution(schema, { maxEntries: 50, maxBytes: 33_554_432, minUses: 1 });
  await compiled.load();
});
afterAll(async () => {
  http.close();
  await sandbox.close();
});

const acme = () => sandbox.tokens.find((t) => t.businessAccountName.toLowerCase().includes('acme'))!;

/** Bytes of a sealed cursor that are the same for the same page of one process: version, index, binding digest, secret id, salt. */
const CURSOR_CLEAR_HEAD = 31;

/**
 * Cursor texts as the two runs can agree on them: each seal of a page takes the next nonce, so the
 * same page sealed twice differs past its clear head. The head and the length stand for it; the
 * nodes each cursor goes with are compared whole.
 */
function withComparableCursors(value: unknown, key?: string): unknown {
  if (typeof value === 'string' && (key === 'cursor' || key === 'startCursor' || key === 'endCursor')) {
    const bytes = Buffer.from(value, 'base64url');
    return bytes[0] === ANCHORED_VERSION ? `sealed cursor ${bytes.subarray(0, CURSOR_CLEAR_HEAD).toString('hex')}, ${value.length} characters` : value;
  }
  if (Array.isArray(value)) return value.map((item) => withComparableCursors(item));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, withComparableCursors(item, name)]));
}

/** What a client would see of a result: errors as graphql-js serialises them, in the order given. */
function visible(result: ExecutionResult) {
  const errors = result.errors?.map((error: GraphQLError) => ({ ...error.toJSON(), original: error.originalError?.message }));
  return { data: withComparableCursors(result.data), errors };
}

/** Errors in one canonical order (by their serialised form), to compare them as a set. */
function asSet<T>(errors: T[] | undefined): T[] | undefined {
  return errors && [...errors].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

/**
 * The platform's answers carry times and trace ids that differ per call, so
 * graphql-js' run goes to the sandbox and is recorded, and the compiled run is
 * answered from that record: both see the same platform. A call the compiled
 * run makes that graphql-js' did not fails the comparison.
 */
function recordingPlatform() {
  const answers = new Map<string, Promise<UpstreamResponse>>();
  const calls = { reference: [] as string[], compiled: [] as string[] };
  const key = (request: UpstreamRequest) => `${request.method} ${request.pathAndQuery} ${JSON.stringify(request.body ?? null)}`;
  const recording = { send: (request: UpstreamRequest) => {
    calls.reference.push(key(request));
    const answer = http.send(request);
    answers.set(key(request), answer);
    return answer;
  } } as unknown as PolicyChain;
  const replaying = { send: (request: UpstreamRequest) => {
    calls.compiled.push(key(request));
    return answers.get(key(request)) ?? Promise.reject(new Error(`unexpected platform call ${key(request)}`));
  } } as unknown as PolicyChain;
  return { recording, replaying, calls };
}

async function both(query: string, variables: Record<string, unknown> | undefined, token: string | undefined = `Bearer ${acme().token}`) {
  const document = parse(query);
  const platform = recordingPlatform();
  const context = (through: PolicyChain) => createContext({ config, http: through, logger }, { authorization: token, 'x-request-id': 'equivalence' });
  // Expiry times are computed from the clock when an answer arrives: both runs read the same instant.
  const now = Date.now();
  const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
  try {
    const reference = await execute({ schema, document, variableValues: variables, contextValue: context(platform.recording) });
    const fast = await compiled.execute({ documentKey: query, document, operationName: undefined, variables, contextValue: context(platform.replaying) });
    return { reference: visible(reference), fast: visible(fast), calls: platform.calls };
  } finally {
    clock.mockRestore();
  }
}

const queriesOf = () => exampleTabs(sandboxExampleValues(sandbox.examples(acme().businessAccountId)), '{}').filter((tab) => !tab.query.includes('mutation'));

describe('compiled execution', () => {
  it('answers every example query exactly as graphql-js does', async () => {
    const tabs = queriesOf();
    expect(tabs.length).toBeGreaterThanOrEqual(4);
    for (const tab of tabs) {
      const { reference, fast } = await both(tab.query, JSON.parse(tab.variables) as Record<string, unknown>);
      expect(reference.errors).toBeUndefined();
      expect(fast).toEqual(reference);
    }
  });

  it('answers the example mutation exactly as graphql-js does, user errors included', async () => {
    const mutation = exampleTabs(sandboxExampleValues(sandbox.examples(acme().businessAccountId)), '{}').find((tab) => tab.query.includes('mutation'))!;
    const input = (JSON.parse(mutation.variables) as { input: Record<string, unknown> }).input;
    for (const variables of [{ input }, { input: { ...input, expiryDate: '2000-01-01' } }, { input: { ...input, documentType: 'NOT_A_TYPE' } }]) {
      const { reference, fast } = await both(mutation.query, variables);
      expect(fast).toEqual(reference);
    }
  });

  it('keeps errors, their codes and nulls identical: unauthenticated, not found, bad ids, bad variables', async () => {
    const cases: Array<[string, Record<string, unknown> | undefined, string | undefined]> = [
      ['{ document(id: "00000000-0000-4000-8000-000000000000") { id name } }', undefined, undefined],
      ['{ document(id: "00000000-0000-4000-8000-000000000000") { id name } }', undefined, `Bearer ${acme().token}`],
      ['query($id: ID!) { document(id: $id) { id } }', { id: '..' }, `Bearer ${acme().token}`],
      ['query($id: ID!) { document(id: $id) { id } }', { id: 42.5 }, `Bearer ${acme().token}`],
      ['query($id: ID!) { document(id: $id) { id } }', {}, `Bearer ${acme().token}`],
      ['query($first: Int) { exceptions(first: $first) { totalCount } }', { first: 'many' }, `Bearer ${acme().token}`],
      ['{ exceptions(first: -1) { totalCount edges { node { id } } } }', undefined, `Bearer ${acme().token}`],
      ['{ exceptions(first: 2, after: "not-a-cursor") { totalCount } }', undefined, `Bearer ${acme().token}`],
      ['{ a: exceptions(first: 1) { totalCount } b: document(id: "00000000-0000-4000-8000-000000000000") { id } }', undefined, `Bearer ${acme().token}`],
      ['{ _service { sdl } }', undefined, undefined],
      ['query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Document { id name } } }', { r: [{ __typename: 'Document', id: '00000000-0000-4000-8000-000000000000' }] }, `Bearer ${acme().token}`],
      ['{ __typename __schema { queryType { name } } }', undefined, undefined],
    ];
    for (const [query, variables, token] of cases) {
      const { reference, fast } = await both(query, variables, token);
      expect(fast).toEqual(reference);
    }
  });

  it('refuses explicit nulls and missing values where graphql-js does, before any platform call: in input objects, lists, defaults and directives', async () => {
    const id = sandbox.store.documents(acme().businessAccountId)[0]!.id;
    const payload = '{ document { id } userErrors { field message code } }';
    const cases: Array<[string, Record<string, unknown>]> = [
      // A nullable variable with a default may stand where a non-null value is expected; an explicit null must still be refused.
      [`mutation($id: ID = "${id}") { updateDocument(input: {id: $id, documentType: TAX, name: "n", description: "d"}) ${payload} }`, { id: null }],
      [`mutation($n: String = "x") { updateDocument(input: {id: "${id}", documentType: TAX, name: $n, description: "d"}) ${payload} }`, { n: null }],
      [`mutation($t: DocumentType = TAX) { updateDocument(input: {id: "${id}", documentType: $t, name: "n", description: "d"}) ${payload} }`, { t: null }],
      ['query($st: ExceptionStatus = NEW) { exceptions(filter: {status: [$st]}) { totalCount } }', { st: null }],
      // Not given and without a default: a list item of non-null type is missing.
      ['query($st: ExceptionStatus) { exceptions(filter: {status: [$st]}) { totalCount } }', {}],
      ['query($d: OrderDirection = DESC) { exceptions(first: 1, orderBy: [{field: CREATED_AT, direction: $d}]) { totalCount } }', { d: null }],
      [`query($id: ID = "${id}") { document(id: $id) { id } }`, { id: null }],
      ['query($v: Boolean = true) { exceptions(first: 1) @include(if: $v) { totalCount } }', { v: null }],
      ['query($v: Boolean = false) { exceptions(first: 1) @skip(if: $v) { totalCount } }', { v: null }],
      ['query($v: Boolean = true) { _service { sdl @include(if: $v) } }', { v: null }],
    ];
    for (const [query, variables] of cases) {
      const { reference, fast, calls } = await both(query, variables);
      expect({ query, ...fast }).toEqual({ query, ...reference });
      expect(reference.errors?.length).toBeGreaterThan(0);
      expect(calls).toEqual({ reference: [], compiled: [] });
    }
  });

  it('passes nulls on where graphql-js does: nullable positions inside input objects and lists', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['query($tz: String = "UTC") { exceptions(first: 2, filter: {timeZone: $tz, createdFrom: "2000-01-01T00:00:00Z"}) { totalCount } }', { tz: null }],
      ['query($u: Boolean = true) { exceptions(first: 2, filter: {unassigned: $u}) { totalCount } }', { u: null }],
      ['query($after: String) { exceptions(first: 2, after: $after) { totalCount } }', { after: null }],
      ['query($st: ExceptionStatus = NEW) { exceptions(first: 2, filter: {status: [$st]}) { totalCount } }', { st: 'IN_PROGRESS' }],
      ['query($st: ExceptionStatus = NEW) { exceptions(first: 2, filter: {status: [$st]}) { totalCount } }', {}],
    ];
    for (const [query, variables] of cases) {
      const { reference, fast, calls } = await both(query, variables);
      expect({ query, ...fast }).toEqual({ query, ...reference });
      expect(reference.errors).toBeUndefined();
      expect(calls.compiled).toEqual(calls.reference);
      expect(calls.reference.length).toBe(1);
    }
  });

  it('answers the errors of several failing fields as graphql-js does, non-null positions included, in any order', async () => {
    const [stored, other] = sandbox.store.documents(acme().businessAccountId);
    // The store's own writer, which the routes use (its interface keeps it to them).
    const store = sandbox.store as unknown as { saveDocument(document: unknown): void };
    // A document type the gateway does not know: `documentType` is non-null, so its error nulls the whole document.
    store.saveDocument({ ...stored!, documentType: 'carbon-copy' });
    const odd = stored!.id;
    try {
      const cases = [
        // Failing after the same platform round: document order.
        `{ a: document(id: "${odd}") { id documentType } b: document(id: "00000000-0000-4000-8000-000000000000") { id } }`,
        `{ b: document(id: "00000000-0000-4000-8000-000000000000") { id } a: document(id: "${odd}") { id documentType } }`,
        `{ a: document(id: "${odd}") { documentType } b: document(id: "00000000-0000-4000-8000-000000000000") { id } x: document(id: "${odd}") { name documentType } d: document(id: "${other!.id}") { id } }`,
        `query { ...F b: document(id: "00000000-0000-4000-8000-000000000000") { id } } fragment F on Query { a: document(id: "${odd}") { id documentType } }`,
        `{ e: _entities(representations: [{__typename: "Document", id: "${odd}"}, {__typename: "Document", id: "00000000-0000-4000-8000-000000000000"}, {__typename: "Document", id: "${odd}"}]) { ... on Document { id documentType } } }`,
        // A field refused before any platform call fails first, wherever it stands.
        `{ a: document(id: "${odd}") { id documentType } c: exceptions(first: -1) { totalCount } }`,
        `{ a: document(id: "${odd}") { documentType } b: document(id: "00000000-0000-4000-8000-000000000000") { id } x: document(id: "${odd}") { documentType } c: exceptions(first: 2, after: "bad") { totalCount } }`,
      ];
      for (const query of cases) {
        const { reference, fast } = await both(query, undefined);
        expect(reference.errors!.length).toBeGreaterThan(1);
        // The specification gives the errors list no order: the same errors, as a set.
        expect({ query, ...fast, errors: asSet(fast.errors) }).toEqual({ query, ...reference, errors: asSet(reference.errors) });
      }
    } finally {
      store.saveDocument(stored!);
    }
  });

  it('answers fuzzed variables exactly as graphql-js does', async () => {
    const tabs = queriesOf();
    const pageArgs = fc.record(
      {
        first: fc.oneof(fc.integer({ min: -3, max: 150 }), fc.constant(null), fc.string({ maxLength: 3 })),
        after: fc.oneof(fc.constant(null), fc.string({ maxLength: 12 }), fc.base64String({ maxLength: 40 })),
        id: fc.oneof(fc.uuid(), fc.string({ maxLength: 10 }), fc.constantFrom('.', '..', '', '%2F', 'a/b')),
        direction: fc.constantFrom('ASC', 'DESC', 'SIDEWAYS'),
      },
      { requiredKeys: ['first', 'direction'] },
    );
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: tabs.length - 1 }), pageArgs, async (which, args) => {
        const tab = tabs[which]!;
        const variables = JSON.parse(tab.variables) as Record<string, unknown>;
        if ('first' in variables) variables.first = args.first;
        if ('after' in variables && args.after !== undefined) variables.after = args.after;
        if ('id' in variables && args.id !== undefined) variables.id = args.id;
        if (Array.isArray(variables.orderBy)) variables.orderBy = [{ ...(variables.orderBy[0] as object), direction: args.direction }];
        const { reference, fast } = await both(tab.query, variables);
        expect(fast).toEqual(reference);
      }),
      { numRuns: 60, seed: 20261123 },
    );
  });

  it('answers variables that only coercion tells apart exactly as graphql-js does: jit refuses what graphql-js refuses', async () => {
    const query = `query Coerced($first: Int, $after: String, $orderBy: [ExceptionOrder!], $filter: ExceptionFilter, $id: ID!) {
      exceptions(first: $first, after: $after, orderBy: $orderBy, filter: $filter) { totalCount nodes { id } }
      document(id: $id) { id }
    }`;
    const id = sandboxExampleValues(sandbox.examples(acme().businessAccountId)).documentId;
    const valid = { first: 2, orderBy: [{ field: 'ID', direction: 'ASC' }], id };
    const cases: Record<string, unknown>[] = [
      valid,
      { ...valid, first: 1.5 },
      { ...valid, first: 2_147_483_648 },
      { ...valid, first: true },
      { ...valid, first: '2' },
      { ...valid, first: [2] },
      { ...valid, after: 5 },
      { ...valid, after: { cursor: 'x' } },
      { ...valid, id: 5 },
      { ...valid, id: true },
      { ...valid, id: null },
      { first: 2, orderBy: [{ field: 'ID', direction: 'ASC' }] },
      { ...valid, orderBy: { field: 'ID', direction: 'ASC' } },
      { ...valid, orderBy: [{ field: 'ID', direction: 'ASC', extra: 1 }] },
      { ...valid, orderBy: [{ field: 'ID' }] },
      { ...valid, orderBy: [null] },
      { ...valid, orderBy: [{ field: 'id', direction: 'ASC' }] },
      { ...valid, filter: { unassigned: 'yes' } },
      { ...valid, filter: { status: 'OPEN' } },
      { ...valid, filter: { assignedTo: [1, 'a'] } },
      { ...valid, filter: 'OPEN' },
      { ...valid, filter: { createdFrom: 'yesterday' } },
    ];
    const answers = [];
    for (const variables of cases) {
      const { reference, fast } = await both(query, variables);
      expect({ variables, answer: fast }).toEqual({ variables, answer: reference });
      answers.push(reference.errors === undefined ? 'data' : String(reference.errors[0]!.extensions?.code ?? reference.errors[0]!.message));
    }
    // The cases do reach both sides of coercion: the valid ones run, the others are refused.
    // (the valid variables, and a lone order coerced to a list of one; an id of 5 is coerced and not found)
    expect(answers.map((answer, index) => (answer === 'data' ? index : -1)).filter((index) => index >= 0)).toEqual([0, 12]);
    expect(answers.filter((answer) => answer.startsWith('Variable "$')).length).toBe(18);
  });

  const run = (execution: CompiledExecution, documentKey: string, text: string, operationName?: string) =>
    execution.execute({ documentKey, document: parse(text), operationName, variables: undefined, contextValue: createContext({ config, http, logger }, {}) });

  it('compiles each document once and keeps the cache within its number of entries, least recently used evicted first', async () => {
    const bounded = new CompiledExecution(schema, { maxEntries: 2, maxBytes: 33_554_432, minUses: 1 });
    await bounded.load();
    for (const name of ['a', 'b', 'a', 'c']) expect(await run(bounded, name, `{ ${name}: __typename }`)).toEqual({ data: { [name]: 'Query' } });
    expect(bounded.size).toBe(2);
    // b was the least recently used when c came.
    expect(['a', 'b', 'c'].filter((name) => bounded.holds(name))).toEqual(['a', 'c']);
  });

  it('bounds the cache by the heap compiled documents cost, priced far above the size of their text', async () => {
    const budget = 2_097_152;
    const bounded = new CompiledExecution(schema, { maxEntries: 1_000, maxBytes: budget, minUses: 1 });
    await bounded.load();
    // Distinct selections compile to distinct code: nothing is shared between these documents.
    const text = (i: number) => `{ e${i}: exceptions(first: 1) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id category type status description assignedTo { id firstName lastName email } createdBy { id type } createdAt } } } }`;
    for (let i = 0; i < 40; i += 1) {
      const result = await run(bounded, `d${i}`, text(i));
      expect(result.errors?.map((error) => error.extensions.code)).toEqual(['UNAUTHENTICATED']);
      expect(bounded.heldBytes).toBeLessThanOrEqual(budget);
    }
    const held = Array.from({ length: 40 }, (_, i) => i).filter((i) => bounded.holds(`d${i}`));
    // The most recent documents are held, the others were evicted; each is accounted far above its 200-odd characters of text.
    expect(held.length).toBe(bounded.size);
    expect(held).toEqual(Array.from({ length: held.length }, (_, i) => 40 - held.length + i));
    expect(held.length).toBeGreaterThan(2);
    expect(held.length).toBeLessThan(40);
    expect(bounded.heldBytes / held.length).toBeGreaterThan(100 * text(39).length);
  });

  it('compiles a document only once it repeats, and remembers a bounded number of waiting documents', async () => {
    const bounded = new CompiledExecution(schema, { maxEntries: 1_000, maxBytes: 33_554_432, minUses: 2 });
    await bounded.load();
    for (let i = 0; i < 5_000; i += 1) expect(await run(bounded, `once${i}`, `{ o${i}: __typename }`)).toEqual({ data: { [`o${i}`]: 'Query' } });
    expect(bounded.size).toBe(0);
    expect(bounded.waiting).toBe(4_096);
    expect(await run(bounded, 'twice', '{ t: __typename }')).toEqual({ data: { t: 'Query' } });
    expect(bounded.holds('twice')).toBe(false);
    expect(await run(bounded, 'twice', '{ t: __typename }')).toEqual({ data: { t: 'Query' } });
    expect(bounded.holds('twice')).toBe(true);
    expect(bounded.size).toBe(1);
  });

  it('compiles no more documents than its allowance per minute; a document refused one is interpreted and compiled on a later use', async () => {
    let now = 1_000;
    const bounded = new CompiledExecution(schema, { maxEntries: 1_000, maxBytes: 33_554_432, minUses: 2, compilesPerMinute: 2, now: () => now });
    await bounded.load();
    const twice = async (name: string) => {
      for (let use = 0; use < 2; use += 1) expect(await run(bounded, name, `{ ${name}: __typename }`)).toEqual({ data: { [name]: 'Query' } });
    };
    for (const name of ['a', 'b', 'c']) await twice(name);
    expect(['a', 'b', 'c'].filter((name) => bounded.holds(name))).toEqual(['a', 'b']);
    // Refilled evenly: half a minute later one compile is back, and c's next use takes it.
    now += 29_999;
    expect(await run(bounded, 'c', '{ c: __typename }')).toEqual({ data: { c: 'Query' } });
    expect(bounded.holds('c')).toBe(false);
    now += 1;
    expect(await run(bounded, 'c', '{ c: __typename }')).toEqual({ data: { c: 'Query' } });
    expect(bounded.holds('c')).toBe(true);
    // A quiet hour leaves no more than the allowance of one minute.
    now += 3_600_000;
    for (const name of ['d', 'e', 'f']) await twice(name);
    expect(['d', 'e', 'f'].filter((name) => bounded.holds(name))).toEqual(['d', 'e']);
  });

  it('never compiles an operation with a name no application sends, nor one costing more than the whole budget', async () => {
    const bounded = new CompiledExecution(schema, { maxEntries: 1_000, maxBytes: 16_384, minUses: 1 });
    await bounded.load();
    const long = `Op_${'x'.repeat(10_000)}`;
    expect(await run(bounded, 'long', `query ${long} { __typename }`, long)).toEqual({ data: { __typename: 'Query' } });
    expect(bounded.size).toBe(0);
    // Priced from its text above 16 kB: graphql-js answers, and the document is remembered as not compilable.
    expect(await run(bounded, 'big', '{ exceptions(first: 1) { totalCount nodes { id status description } } }')).toEqual({ data: { exceptions: null }, errors: [expect.objectContaining({ path: ['exceptions'] })] });
    expect(bounded.size).toBe(1);
    expect(bounded.holds('big')).toBe(false);
    expect(bounded.heldBytes).toBeLessThan(1_000);
    expect(await run(bounded, 'small', '{ __typename }')).toEqual({ data: { __typename: 'Query' } });
    expect(bounded.holds('small')).toBe(true);
  });
});
