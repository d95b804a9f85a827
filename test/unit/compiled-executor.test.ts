import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import fc from 'fast-check';
import { execute, parse, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import { testConfig } from '../../src/config.ts';
import { createContext } from '../../src/context.ts';
import { CompiledExecution } from '../../src/execution/compiled-executor.ts';
import { createLogger } from '../../src/logger.ts';
import { PlatformHttp, type UpstreamRequest, type UpstreamResponse } from '../../src/platform/http.ts';
import { exampleTabs } from '../../src/playground/examples.ts';
import { sandboxExampleValues } from '../../src/playground/sandbox-examples.ts';
import { buildSchema } from '../../src/schema.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';

// The compiled executor must answer exactly what graphql-js answers: data,
// nulls, and every error's message, path, locations and extensions.

let sandbox: Sandbox;
let http: PlatformHttp;
let schema: GraphQLSchema;
let compiled: CompiledExecution;
const config = testConfig();
const logger = createLogger('silent');

beforeAll(async () => {
  sandbox = await startSandbox({ scanDelayMs: 50 });
  http = new PlatformHttp(sandbox.url, { ...config.upstream, retryLimit: 0 });
  schema = buildSchema();
  compiled = new CompiledExecution(schema, 50, 8_388_608);
  await compiled.load();
});
afterAll(async () => {
  http.close();
  await sandbox.close();
});

const acme = () => sandbox.tokens.find((t) => t.businessAccountName.toLowerCase().includes('acme'))!;

/** What a client would see of a result: errors as graphql-js serialises them, in path order. */
function visible(result: ExecutionResult) {
  const errors = result.errors?.map((error: GraphQLError) => ({ ...error.toJSON(), original: error.originalError?.message })).sort((a, b) => JSON.stringify(a.path ?? []).localeCompare(JSON.stringify(b.path ?? [])));
  return { data: result.data, errors };
}

/**
 * The platform's answers carry times and trace ids that differ per call, so
 * graphql-js' run goes to the sandbox and is recorded, and the compiled run is
 * answered from that record: both see the same platform. A call the compiled
 * run makes that graphql-js' did not fails the comparison.
 */
function recordingPlatform() {
  const answers = new Map<string, Promise<UpstreamResponse>>();
  const key = (request: UpstreamRequest) => `${request.method} ${request.pathAndQuery} ${JSON.stringify(request.body ?? null)}`;
  const recording = { send: (request: UpstreamRequest) => {
    const answer = http.send(request);
    answers.set(key(request), answer);
    return answer;
  } } as unknown as PlatformHttp;
  const replaying = { send: (request: UpstreamRequest) => answers.get(key(request)) ?? Promise.reject(new Error(`unexpected platform call ${key(request)}`)) } as unknown as PlatformHttp;
  return { recording, replaying };
}

async function both(query: string, variables: Record<string, unknown> | undefined, token: string | undefined = `Bearer ${acme().token}`) {
  const document = parse(query);
  const platform = recordingPlatform();
  const context = (through: PlatformHttp) => createContext({ config, http: through, logger }, { authorization: token, 'x-request-id': 'equivalence' });
  // Expiry times are computed from the clock when an answer arrives: both runs read the same instant.
  const now = Date.now();
  const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
  try {
    const reference = await execute({ schema, document, variableValues: variables, contextValue: context(platform.recording) });
    const fast = await compiled.execute({ documentKey: query, document, operationName: undefined, variables, contextValue: context(platform.replaying) });
    return { reference: visible(reference), fast: visible(fast) };
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
      ['{ a: exceptions(first: 1) { totalCount } b: document(id: "nope") { id } }', undefined, `Bearer ${acme().token}`],
      ['{ _service { sdl } }', undefined, undefined],
      ['query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Document { id name } } }', { r: [{ __typename: 'Document', id: '00000000-0000-4000-8000-000000000000' }] }, `Bearer ${acme().token}`],
      ['{ __typename __schema { queryType { name } } }', undefined, undefined],
    ];
    for (const [query, variables, token] of cases) {
      const { reference, fast } = await both(query, variables, token);
      expect(fast).toEqual(reference);
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

  it('compiles each document once and keeps the cache within its bound', async () => {
    const bounded = new CompiledExecution(schema, 2, 8_388_608);
    await bounded.load();
    const context = createContext({ config, http, logger }, {});
    for (const name of ['a', 'b', 'c', 'a']) {
      const document = parse(`{ ${name}: __typename }`);
      expect(await bounded.execute({ documentKey: name, document, operationName: undefined, variables: undefined, contextValue: context })).toEqual({ data: { [name]: 'Query' } });
    }
    expect(bounded.size).toBe(2);
  });

  it('bounds the cache by the size of the documents clients send, not only by their number', async () => {
    // Each document is 10 000 characters of operation name plus its selection; the key repeats the name.
    const bounded = new CompiledExecution(schema, 1_000, 100_000);
    await bounded.load();
    const context = createContext({ config, http, logger }, {});
    for (let i = 0; i < 20; i += 1) {
      const name = `Op${String(i).padStart(2, '0')}_${'x'.repeat(9_995)}`;
      const text = `query ${name} { __typename }`;
      const result = await bounded.execute({ documentKey: `hash${String(i).padStart(2, '0')}`, document: parse(text), operationName: name, variables: undefined, contextValue: context });
      expect(result).toEqual({ data: { __typename: 'Query' } });
    }
    // key (10 000-character name + newline + "hashNN") 10 007 bytes + document text 10 021 bytes = 20 028 bytes an entry: four fit in 100 000.
    expect(bounded.size).toBe(4);
    expect(bounded.heldBytes).toBe(4 * 20_028);
    // A document larger than the whole budget is answered by graphql-js and not kept.
    const huge = `Huge_${'y'.repeat(99_000)}`;
    expect(await bounded.execute({ documentKey: 'huge', document: parse(`query ${huge} { __typename }`), operationName: huge, variables: undefined, contextValue: context })).toEqual({ data: { __typename: 'Query' } });
    expect(bounded.size).toBe(4);
  });
});
