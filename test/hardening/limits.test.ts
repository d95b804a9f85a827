import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig, testConfig } from '../../src/settings/config.ts';
import { exampleTabs } from '../../src/playground/examples.ts';
import { loneSurrogatePath } from '../../src/hardening/unicode.ts';
import { sandboxExampleValues } from '../../src/playground/sandbox-examples.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { accountOf } from '../support/expected.ts';
import { post, type RawResponse } from './support/http.ts';

let stack: Stack;
let acme: string;
let financialAccountId: string;
let documentId: string;

beforeAll(async () => {
  stack = await startStack();
  acme = accountOf(stack.sandbox, stack.acme);
  financialAccountId = stack.sandbox.store.acceptances(acme)[0]!.scopes.FINANCIAL_ACCOUNT_ID;
  documentId = stack.sandbox.store.documents(acme)[0]!.id;
});
afterAll(() => stack.close());
beforeEach(() => stack.sandbox.resetRequests());

const graphql = () => `${stack.gateway.url}/graphql`;
const auth = () => ({ authorization: `Bearer ${stack.acme}` });
const send = (body: unknown, headers: Record<string, string> = {}) => post(graphql(), body, { ...auth(), ...headers });

/** Sends the same request `runs` times; the last response and the median duration (durations are logged, never asserted). */
async function timed(runs: number, request: () => Promise<RawResponse>): Promise<{ response: RawResponse; median: number }> {
  const durations: number[] = [];
  let response: RawResponse | undefined;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    response = await request();
    durations.push(performance.now() - started);
  }
  durations.sort((a, b) => a - b);
  return { response: response!, median: durations[Math.floor(runs / 2)]! };
}

/** A refusal before execution: HTTP 400, one error with this code and limit, not a single platform call. */
function expectRefused(response: RawResponse, code: string, limit: string | undefined, message: RegExp) {
  expect(response.status).toBe(400);
  expect(response.json?.data).toBeUndefined();
  expect(response.json?.errors).toHaveLength(1);
  const [error] = response.json!.errors!;
  expect(error!.message).toMatch(message);
  expect(error!.extensions).toMatchObject({ code, ...(limit ? { limit } : {}) });
  expect(typeof error!.extensions!.requestId).toBe('string');
  expect(stack.platformCalls()).toEqual([]);
}

describe('configuration', () => {
  it('has defaults tuned to this schema', () => {
    const config = testConfig();
    expect(config.limits).toEqual({ depth: 8, aliases: 15, directives: 50, tokens: 1000, cost: 50_000, bodyBytes: 102_400, batchSize: 10 });
    expect([config.allowBatchedRequests, config.fieldSuggestions, config.persistedQueries]).toEqual([false, true, { enabled: true, ttlSeconds: 86_400, storeTimeoutMs: 250 }]);
    expect(loadConfig({ NODE_ENV: 'production' }).fieldSuggestions).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', FIELD_SUGGESTIONS: 'true' }).fieldSuggestions).toBe(true);
  });

  it('reads every limit from the environment', () => {
    const config = testConfig({
      MAX_QUERY_DEPTH: '5', MAX_QUERY_ALIASES: '0', MAX_QUERY_DIRECTIVES: '3', MAX_QUERY_TOKENS: '200', MAX_QUERY_COST: '900',
      MAX_BODY_BYTES: '2048', MAX_BATCH_SIZE: '4', ALLOW_BATCHED_REQUESTS: 'true', PERSISTED_QUERIES: 'false', PERSISTED_QUERY_TTL_SECONDS: '0',
    });
    expect(config.limits).toEqual({ depth: 5, aliases: 0, directives: 3, tokens: 200, cost: 900, bodyBytes: 2048, batchSize: 4 });
    expect([config.allowBatchedRequests, config.persistedQueries]).toEqual([true, { enabled: false, ttlSeconds: 0, storeTimeoutMs: 250 }]);
  });

  it.each([
    ['MAX_QUERY_DEPTH', '0'],
    ['MAX_QUERY_TOKENS', '5'],
    ['MAX_QUERY_COST', 'lots'],
    ['MAX_BODY_BYTES', '100'],
    ['MAX_BATCH_SIZE', '1000'],
    ['ALLOW_BATCHED_REQUESTS', 'yes'],
  ])('refuses %s=%s at start-up, naming it', (name, value) => {
    expect(() => testConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => testConfig({ [name]: value })).toThrow(new RegExp(`${name}:`));
  });
});

describe('legitimate operations pass the default limits', () => {
  it('runs every playground example without an error', async () => {
    const values = sandboxExampleValues(stack.sandbox.examples(acme));
    for (const tab of exampleTabs(values, '')) {
      const response = await send({ query: tab.query, variables: JSON.parse(tab.variables) as unknown });
      expect([response.status, response.json?.errors]).toEqual([200, undefined]);
    }
  });

  it('runs every operation of docs/queries.md without an error', async () => {
    const block = /```graphql\n([\s\S]*?)```/.exec(readFileSync(new URL('../../docs/queries.md', import.meta.url), 'utf8'))![1]!;
    const template = stack.sandbox.store.linxTemplates(acme)[0]!;
    const variables = { account: financialAccountId, templateId: template.templateId, templateVersionId: template.versions[0]!.templateVersionId, id: documentId };
    const names = [...block.matchAll(/^(?:query|mutation) (\w+)/gm)].map((m) => m[1]!);
    expect(names).toEqual(['Exceptions', 'Acceptances', 'Batches', 'Document', 'Update']);
    for (const operationName of names) {
      const response = await send({ query: block, operationName, variables });
      expect([operationName, response.status, response.json?.errors]).toEqual([operationName, 200, undefined]);
    }
  });

  it('runs the deepest selection of the schema and a full page of every field', async () => {
    const query = `query($n: Int) { exceptions(first: $n) { totalCount pageInfo { hasNextPage endCursor }
      edges { cursor node { id entityId businessAccountId category type status description createdAt updatedAt createdBy { id type } updatedBy { id type }
        assignedTo { id firstName lastName email } entity { __typename ... on FinancialAccount { id } ... on CustomerAccount { id } ... on Transaction { id } }
        notes { id entityId entityType title contentText businessAccountId createdAt updatedAt createdBy { id type } updatedBy { id type } } } } } }`;
    const response = await send({ query, variables: { n: 100 } });
    expect(response.status).toBe(200);
    expect(response.json?.errors).toBeUndefined();
    const page = response.json!.data!.exceptions as { edges: unknown[]; totalCount: number };
    expect(page.edges).toHaveLength(Math.min(100, stack.sandbox.store.exceptions(acme).length));
  });
});

describe('abusive operations are refused before execution', () => {
  it('refuses nesting deeper than MAX_QUERY_DEPTH (8)', async () => {
    const query = `query($a: ID!) { documentAcceptances(financialAccountId: $a) { edges { node { financialAccount {
      documentAcceptances { edges { node { createdBy { type } } } } } } } } }`;
    expectRefused(await send({ query, variables: { a: financialAccountId } }), 'GRAPHQL_VALIDATION_FAILED', 'MAX_QUERY_DEPTH', /^Query depth limit of 8 exceeded, found 9\.$/);
  });

  it('does not count fragments as levels', async () => {
    const query = `query($a: ID!) { ...Q } fragment Q on Query { documentAcceptances(financialAccountId: $a, first: 1) { ...C } }
      fragment C on DocumentAcceptanceConnection { edges { node { ... on DocumentAcceptance { financialAccount { id } createdBy { type } } } } }`;
    const response = await send({ query, variables: { a: financialAccountId } });
    expect([response.status, response.json?.errors]).toEqual([200, undefined]);
  });

  it('refuses more than MAX_QUERY_ALIASES (15) aliases', async () => {
    const query = `query($id: ID!) { ${Array.from({ length: 16 }, (_, i) => `d${i}: document(id: $id) { id }`).join(' ')} }`;
    expectRefused(await send({ query, variables: { id: documentId } }), 'GRAPHQL_VALIDATION_FAILED', 'MAX_QUERY_ALIASES', /^Aliases limit of 15 exceeded, found 16\.$/);
  });

  it('refuses more than MAX_QUERY_DIRECTIVES (50) directives', async () => {
    const query = `{ ${Array.from({ length: 51 }, () => '__typename @include(if: true)').join(' ')} }`;
    expectRefused(await send({ query }), 'GRAPHQL_VALIDATION_FAILED', 'MAX_QUERY_DIRECTIVES', /^Directives limit of 50 exceeded, found 51\.$/);
  });

  it('refuses a document of 3000 __typename selections while parsing, without validating it', async () => {
    const query = `{ ${Array.from({ length: 3000 }, () => '__typename').join(' ')} }`;
    const { response, median } = await timed(5, () => send({ query }));
    expectRefused(response, 'GRAPHQL_PARSE_FAILED', 'MAX_QUERY_TOKENS', /^Syntax Error: Document contains more tha[nt] 1000 tokens\. Parsing aborted\.$/);
    expect(response.json!.errors![0]!.extensions!.max).toBe(1000);
    console.info(`3000 __typename selections (${query.length} bytes): refused in ${median.toFixed(1)} ms over HTTP (median of 5)`);
  });

  it('refuses a page nested in a page when the product of page sizes is too costly, whether sizes are literals or variables', async () => {
    const nested = (size: string) => `exceptions(first: ${size}) { nodes { entity { ... on FinancialAccount { documentAcceptances(first: ${size}) { nodes { id documentId accepted } } } } } }`;
    expectRefused(await send({ query: `{ ${nested('100')} }` }), 'GRAPHQL_VALIDATION_FAILED', 'MAX_QUERY_COST', /^Query cost limit of 50000 exceeded, found \d+(\.\d+)?\.$/);
    expectRefused(await send({ query: `query($n: Int) { ${nested('$n')} }`, variables: { n: 100 } }), 'GRAPHQL_VALIDATION_FAILED', 'MAX_QUERY_COST', /^Query cost limit/);
    const small = await send({ query: `query($n: Int) { ${nested('$n')} }`, variables: { n: 2 } });
    expect([small.status, small.json?.errors]).toEqual([200, undefined]);
    // Verdicts are remembered per query and sizes, never across sizes.
    stack.sandbox.resetRequests();
    expectRefused(await send({ query: `query($n: Int) { ${nested('$n')} }`, variables: { n: 100 } }), 'GRAPHQL_VALIDATION_FAILED', 'MAX_QUERY_COST', /^Query cost limit/);
  });

  it('prices a page size given by a variable\'s default value like one sent', async () => {
    const query = `query($n: Int = 100) { exceptions(first: $n) { nodes { entity { ... on FinancialAccount { documentAcceptances(first: $n) { nodes { id documentId accepted } } } } } } }`;
    expectRefused(await send({ query }), 'GRAPHQL_VALIDATION_FAILED', 'MAX_QUERY_COST', /^Query cost limit of 50000 exceeded, found 397962\.5\.$/);
  });

  it('does not reuse a verdict for variables it was not given: keys are the declared variables', async () => {
    const query = `query($n: Int, $m: Int) { exceptions(first: $n) { nodes { entity { ... on FinancialAccount { documentAcceptances(first: $m) { nodes { id documentId accepted } } } } } } }`;
    // An undeclared variable whose name spells the sizes of the costly request: the default pages, answered.
    const cheap = await send({ query, variables: { 'n=100|m': 100 } });
    expect([cheap.status, cheap.json?.errors]).toEqual([200, undefined]);
    stack.sandbox.resetRequests();
    expectRefused(await send({ query, variables: { n: 100, m: 100 } }), 'GRAPHQL_VALIDATION_FAILED', 'MAX_QUERY_COST', /^Query cost limit of 50000 exceeded, found 397962\.5\.$/);
  });

  it('prices a connection without first or last at the default page size', async () => {
    const query = (size: string) => `{ exceptions${size} { nodes { id entity { ... on FinancialAccount { documentAcceptances${size} { nodes {
      id documentId documentVersion accepted respondedAt acceptorId acceptorType businessAccountId financialAccountId downloadUrl metadata createdBy { id type } } } } } } } }`;
    // 20 × 20 nested rows cost 55675 although no size is written anywhere; the same rows one by one are cheap.
    expectRefused(await send({ query: query('') }), 'GRAPHQL_VALIDATION_FAILED', 'MAX_QUERY_COST', /^Query cost limit of 50000 exceeded, found 55675\.$/);
    expectRefused(await send({ query: query('(first: 20)') }), 'GRAPHQL_VALIDATION_FAILED', 'MAX_QUERY_COST', /^Query cost limit of 50000 exceeded, found 55675\.$/);
    const single = await send({ query: query('(first: 1)') });
    expect([single.status, single.json?.errors]).toEqual([200, undefined]);
  });

  it('refuses fragments that multiply each other', async () => {
    const fragments = Array.from({ length: 12 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join(' ');
    const query = `{ ...F0 } ${fragments} fragment F12 on Query { exceptions(first: 100) { nodes { id } } }`;
    expectRefused(await send({ query }), 'GRAPHQL_VALIDATION_FAILED', 'MAX_QUERY_COST', /^Query cost limit/);
  });

  describe('federation _entities', () => {
    const ENTITIES = 'query($representations: [_Any!]!) { _entities(representations: $representations) { ... on FinancialAccount { id } } }';
    const accounts = (n: number) => Array.from({ length: n }, (_, i) => ({ __typename: 'FinancialAccount', id: `fa000000-0000-4000-8000-${String(i).padStart(12, "0")}` }));
    const documents = (n: number) => Array.from({ length: n }, (_, i) => ({ __typename: 'Document', id: `d0c00000-0000-4000-8000-${String(i).padStart(12, "0")}` }));
    const CAP = /^Query asks _entities for (\d+) representations; at most 25 are allowed per request$/;

    it('refuses more than MAX_ENTITY_REPRESENTATIONS (25) representations before any platform call, however they are sent', async () => {
      const acceptances = 'query($r: [_Any!]!) { _entities(representations: $r) { ... on FinancialAccount { documentAcceptances(first: 100) { nodes { id } } } } }';
      const refusals = [
        await send({ query: acceptances, variables: { r: accounts(1000) } }),
        await send({ query: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Document { id name } } }', variables: { r: documents(1400) } }),
        await send({ query: ENTITIES, variables: { representations: accounts(26) } }),
        await send({ query: `{ _entities(representations: [${accounts(26).map((a) => `{ __typename: "FinancialAccount", id: "${a.id}" }`).join(', ')}]) { __typename } }` }),
        // As the default value of a variable that is not sent.
        await send({ query: `query($r: [_Any!]! = [${accounts(26).map((a) => `{ __typename: "FinancialAccount", id: "${a.id}" }`).join(', ')}]) { _entities(representations: $r) { __typename } }` }),
        // Split over aliases and fragments, they still add up.
        await send({
          query: 'query($a: [_Any!]!, $b: [_Any!]!) { a: _entities(representations: $a) { __typename } ... on Query { b: _entities(representations: $b) { __typename } } ...More } fragment More on Query { c: _entities(representations: [{ __typename: "FinancialAccount", id: "x" }]) { __typename } }',
          variables: { a: accounts(13), b: accounts(12) },
        }),
      ];
      const counts = refusals.map((response) => {
        expectRefused(response, 'GRAPHQL_VALIDATION_FAILED', 'MAX_ENTITY_REPRESENTATIONS', CAP);
        expect(response.json!.errors![0]!.extensions!.max).toBe(25);
        return Number(CAP.exec(response.json!.errors![0]!.message)![1]);
      });
      expect(counts).toEqual([1000, 1400, 26, 26, 26, 26]);
    });

    it('answers 25 representations', async () => {
      const response = await send({ query: ENTITIES, variables: { representations: accounts(25) } });
      expect([response.status, response.json?.errors]).toEqual([200, undefined]);
      expect(response.json?.data).toEqual({ _entities: accounts(25).map(({ id }) => ({ id })) });
    });

    it('counts each representation at the cost of its selection', async () => {
      const query = `query($r: [_Any!]!) { _entities(representations: $r) { ... on FinancialAccount {
        documentAcceptances(first: 100) { totalCount nodes { id documentId documentVersion accepted respondedAt acceptorId } } } } }`;
      const one = await send({ query, variables: { r: [{ __typename: 'FinancialAccount', id: financialAccountId }] } });
      expect([one.status, one.json?.errors]).toEqual([200, undefined]);
      // 17 × 3004: the verdict for one representation is not reused for seventeen.
      stack.sandbox.resetRequests();
      expectRefused(await send({ query, variables: { r: accounts(17) } }), 'GRAPHQL_VALIDATION_FAILED', 'MAX_QUERY_COST', /^Query cost limit of 50000 exceeded, found 51068\.$/);
    });

    it('prices each _entities field by its own representations, not by the total', async () => {
      const query = `query($a: [_Any!]!, $b: [_Any!]!) {
        a: _entities(representations: $a) { ... on FinancialAccount { documentAcceptances(first: 100) { totalCount nodes { id documentId documentVersion accepted respondedAt acceptorId } } } }
        b: _entities(representations: $b) { __typename } }`;
      const cheap = await send({ query, variables: { a: [{ __typename: 'FinancialAccount', id: financialAccountId }], b: accounts(16) } });
      expect([cheap.status, cheap.json?.errors]).toEqual([200, undefined]);
      stack.sandbox.resetRequests();
      // The same total of 17, now all on the costly field.
      expectRefused(await send({ query, variables: { a: accounts(17), b: [] } }), 'GRAPHQL_VALIDATION_FAILED', 'MAX_QUERY_COST', /^Query cost limit of 50000 exceeded, found 51071\.5\.$/);
    });

    it('has a default of 25, read from MAX_ENTITY_REPRESENTATIONS', () => {
      expect(testConfig().maxEntityRepresentations).toBe(25);
      expect(testConfig({ MAX_ENTITY_REPRESENTATIONS: '100' }).maxEntityRepresentations).toBe(100);
      expect(() => testConfig({ MAX_ENTITY_REPRESENTATIONS: '0' })).toThrow(/MAX_ENTITY_REPRESENTATIONS/);
    });
  });

  it('refuses a page size over PAGE_SIZE_MAX in the connection, before any platform call', async () => {
    const response = await send({ query: '{ exceptions(first: 101) { nodes { id } } }' });
    expect(response.status).toBe(200);
    expect(response.json?.data).toEqual({ exceptions: null });
    expect(response.json?.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(stack.platformCalls()).toEqual([]);
  });
});

describe('variables that are not valid Unicode', () => {
  it('refuses a lone surrogate before execution, naming the variable', async () => {
    const body = '{"query":"mutation($input: UpdateDocumentInput!) { updateDocument(input: $input) { userErrors { code } } }",' +
      `"variables":{"input":{"id":"${documentId}","documentType":"OTHER","name":"n","description":"d","metadata":{"note":"ok \\ud800"}}}}`;
    expectRefused(await send(body), 'BAD_USER_INPUT', undefined, /^Variable "\$input\.metadata\.note" holds a lone UTF-16 surrogate/);
    expectRefused(await send('{"query":"query($id: ID!) { document(id: $id) { id } }","variables":{"id":"\\udfff"}}'), 'BAD_USER_INPUT', undefined, /^Variable "\$id" holds/);
  });

  it('accepts paired surrogates, combining marks and direction marks', async () => {
    const response = await send({ query: 'query($zone: String) { exceptions(first: 1, filter: { timeZone: $zone }) { totalCount } }', variables: { zone: '😀\u202E\u200Be\u0301' } });
    expect(response.status).toBe(200);
    expect(response.json?.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(response.json?.errors?.[0]?.message).not.toMatch(/surrogate/);
  });

  it('finds one in a value nested far deeper than the call stack allows', () => {
    let value: unknown = 'a\ud800';
    for (let i = 0; i < 200_000; i++) value = i % 2 ? [value] : { k: value };
    expect(loneSurrogatePath(value, '$')).toBe(`$${'[0].k'.repeat(8)}…`);
    expect(loneSurrogatePath({ list: ['a', { '\udc00': 1 }] }, '$')).toBe('$.list[1].\udc00');
    expect(loneSurrogatePath({ ok: ['😀', { 'é': 'x' }] }, '$')).toBeUndefined();
  });
});

describe('HTTP requests', () => {
  it('answers a body over MAX_BODY_BYTES (100 kB) with a GraphQL-style 413', async () => {
    const response = await send({ query: '{ __typename }', variables: { pad: 'x'.repeat(102_400) } });
    expect(response.status).toBe(413);
    expect(response.contentType).toMatch(/^application\/json/);
    expect(response.json).toEqual({
      errors: [{ message: 'Request body is larger than the 100 kB limit', extensions: { code: 'PAYLOAD_TOO_LARGE', limit: 'MAX_BODY_BYTES', max: 102_400, requestId: expect.any(String) } }],
    });
    expect(stack.platformCalls()).toEqual([]);
  });

  it('accepts a body just under the limit', async () => {
    const response = await send({ query: '{ __typename }', variables: { pad: 'x'.repeat(102_300) } });
    expect([response.status, response.json]).toEqual([200, { data: { __typename: 'Query' } }]);
  });

  it('answers malformed JSON with a JSON 400 that does not quote the body', async () => {
    const response = await send('{"query": "{ __typename }", secret-part', { 'x-request-id': 'req-malformed-1' });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ errors: [{ message: 'Request body is not valid JSON', extensions: { code: 'BAD_REQUEST', requestId: 'req-malformed-1' } }] });
    expect(response.text).not.toContain('secret-part');
  });

  it('answers an unsupported charset with a JSON 415', async () => {
    const response = await send('{"query":"{ __typename }"}', { 'content-type': 'application/json; charset=latin-7' });
    expect(response.status).toBe(415);
    expect(response.json?.errors?.[0]?.extensions?.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('keeps CSRF prevention on: a simple GET or text/plain POST is refused, a preflighted one served', async () => {
    const url = `${graphql()}?query=${encodeURIComponent('{ __typename }')}`;
    const blocked = await fetch(url, { headers: auth() });
    expect(blocked.status).toBe(400);
    expect(await blocked.text()).toMatch(/Cross-Site Request Forgery/);
    const allowed = await fetch(url, { headers: { ...auth(), 'apollo-require-preflight': 'true' } });
    expect([allowed.status, await allowed.json()]).toEqual([200, { data: { __typename: 'Query' }, extensions: { cost: { requestedQueryCost: 0, actualQueryCost: 0 } } }]);
    const plain = await send('{"query":"{ __typename }"}', { 'content-type': 'text/plain' });
    expect(plain.status).toBe(400);
    expect(plain.text).toMatch(/Cross-Site Request Forgery/);
  });

  it('refuses batched requests unless ALLOW_BATCHED_REQUESTS is set', async () => {
    const response = await send([{ query: '{ __typename }' }, { query: '{ __typename }' }]);
    expect(response.status).toBe(400);
    expect(response.json?.errors?.[0]).toMatchObject({ message: 'Operation batching disabled.', extensions: { code: 'BAD_REQUEST' } });
  });
});

describe('with batching allowed and a generous token limit', () => {
  let open: Stack;
  beforeAll(async () => {
    open = await startStack({ ALLOW_BATCHED_REQUESTS: 'true', MAX_BATCH_SIZE: '3', MAX_QUERY_TOKENS: '100000' });
  });
  afterAll(() => open.close());
  const sendOpen = (body: unknown) => post(`${open.gateway.url}/graphql`, body, { authorization: `Bearer ${open.acme}` });

  it('answers a batch with one result per operation, each under the same limits', async () => {
    const deep = '{ exceptions { edges { node { notes { createdBy { type } } } } } }';
    const tooDeep = '{ exceptions { edges { node { entity { ... on FinancialAccount { documentAcceptances { edges { node { createdBy { type } } } } } } } } } }';
    const response = await sendOpen([{ query: '{ __typename }' }, { query: tooDeep }, { query: deep.replace('exceptions', 'exceptions(first: 1)') }]);
    // Apollo gives the whole batch the status of its refused operation.
    expect(response.status).toBe(400);
    const results = response.json as unknown as { data?: unknown; errors?: { extensions: { code: string; limit?: string } }[] }[];
    expect(results).toHaveLength(3);
    expect(results[0]).toEqual({ data: { __typename: 'Query' } });
    expect(results[1]!.errors![0]!.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', limit: 'MAX_QUERY_DEPTH' });
    expect(results[2]!.errors).toBeUndefined();
  });

  it('refuses a batch over MAX_BATCH_SIZE before running any of it', async () => {
    open.sandbox.resetRequests();
    const response = await sendOpen(Array.from({ length: 4 }, () => ({ query: '{ exceptions(first: 1) { nodes { id } } }' })));
    expect(response.status).toBe(400);
    expect(response.json?.errors?.[0]).toMatchObject({ message: 'A batch may hold at most 3 operations', extensions: { code: 'BAD_REQUEST', limit: 'MAX_BATCH_SIZE', max: 3 } });
    expect(open.platformCalls()).toEqual([]);
  });

  it('(for comparison) parses and validates the whole 3000 __typename document when the token limit is lifted', async () => {
    const query = `{ ${Array.from({ length: 3000 }, () => '__typename').join(' ')} }`;
    const { response, median } = await timed(5, () => sendOpen({ query }));
    // graphql-js's overlapping-fields rule gives up on it, but only after the whole document was parsed and walked.
    expect(response.status).toBe(400);
    expect(response.json?.errors?.[0]).toMatchObject({ message: 'Validation aborted.', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
    console.info(`3000 __typename selections without the token limit: refused by validation in ${median.toFixed(1)} ms over HTTP (median of 5)`);
  });
});
