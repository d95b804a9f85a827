import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { clip, clipEchoes, MAX_MESSAGE_CHARS } from '../../src/client-text.ts';
import { createLogger } from '../../src/logger.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { post, sha256 } from '../hardening/support/http.ts';
import { LogCapture } from '../support/log-capture.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let capture: LogCapture;
let production: Stack;
let development: Stack;

beforeAll(async () => {
  [production, development] = await Promise.all([
    startStack({ NODE_ENV: 'production', METRICS_MAX_OPERATIONS: '5' }, {}, createLogger('info', { destination: (capture = new LogCapture()) })),
    startStack({ NODE_ENV: 'development', STACK_TRACES: 'true' }),
  ]);
});
afterAll(() => Promise.all([production.close(), development.close()]));
beforeEach(() => {
  capture.text = '';
  jest.restoreAllMocks();
});

const send = (stack: Stack, body: unknown, headers: Record<string, string> = {}) =>
  post(`${stack.gateway.url}/graphql`, body, { authorization: `Bearer ${stack.acme}`, ...headers });
const linesNamed = (msg: string) => capture.lines().filter((line) => line.msg === msg);

describe('client text cut to a short prefix', () => {
  it('clip keeps short text and cuts long text at a character boundary', () => {
    expect(clip('Inbox', 8)).toBe('Inbox');
    expect(clip('abcdefghij', 4)).toBe('abcd…');
    // The fourth UTF-16 unit is the first half of 😀: the cut falls before the pair.
    expect(clip('abc😀def', 4)).toBe('abc…');
  });

  it('clipEchoes cuts long quoted parts and long words, keeps the rest of the message', () => {
    expect(clipEchoes(`timeZone "${'x'.repeat(100)}" is not accepted: use Z`, 10)).toBe('timeZone "xxxxxxxxxx…" is not accepted: use Z');
    expect(clipEchoes(`Document ${'d'.repeat(100)} not found`, 10)).toBe('Document dddddddddd… not found');
    expect(clipEchoes(`value "${'a '.repeat(50)}" and "ok"`, 10)).toBe('value "a a a a a …" and "ok"');
    // An escaped quote does not end a quoted part; an unclosed one runs to the end.
    expect(clipEchoes(`got "${'\\"'.repeat(40)}" then "${'y'.repeat(40)}`, 10)).toBe('got "\\"\\"\\"\\"\\"…" then "yyyyyyyyyy…');
    expect(clipEchoes('a short message', 10)).toBe('a short message');
    expect(clipEchoes('word '.repeat(1_000), 10)).toHaveLength(MAX_MESSAGE_CHARS + 1);
  });
});

describe('operation names from clients', () => {
  it('are cut in metric labels and log lines, and /metrics stays small however many long names arrive', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `Op${i}_${'x'.repeat(20_000)}`);
    for (const name of names) expect((await send(production, { query: `query ${name} { __typename }` })).json).toEqual({ data: { __typename: 'Query' } });

    const text = await (await fetch(`${production.gateway.url}/metrics`)).text();
    const counted = text.split('\n').filter((line) => line.startsWith('graphql_requests_total{'));
    expect(counted).toEqual([
      ...names.slice(0, 5).map((name) => `graphql_requests_total{operation="${name.slice(0, 64)}…",outcome="ok"} 1`),
      'graphql_requests_total{operation="other",outcome="ok"} 7',
    ]);
    expect(text.length).toBeLessThan(50_000);

    const logged = linesNamed('graphql request').map((line) => line.operationName);
    expect(logged).toEqual(names.map((name) => `${name.slice(0, 64)}…`));
    expect(capture.text.length).toBeLessThan(12 * 1_000);
  });
});

describe('client mistakes answered with client codes', () => {
  const ENTITIES = 'query($r: [_Any!]!) { _entities(representations: $r) { __typename } }';

  it.each([
    ['an unknown type', [{ __typename: 'Nope', id: 'x' }], 'representations[0]: "Nope" is not an entity type of this subgraph'],
    ['a 5000-character type', [{ __typename: `N${'o'.repeat(5_000)}`, id: 'x' }], `representations[0]: "N${'o'.repeat(63)}…" is not an entity type of this subgraph`],
    ['a type that is no entity', [{ __typename: 'Document', id: 'd0c00000-0000-4000-8000-000000000001' }, { __typename: 'Query' }], 'representations[1]: "Query" is not an entity type of this subgraph'],
    ['no key', [{ __typename: 'FinancialAccount' }], 'representations[0]: FinancialAccount needs its key field id as an ID'],
    ['a key that is no ID', [{ __typename: 'FinancialAccount', id: { a: 1 } }], 'representations[0]: FinancialAccount needs its key field id as an ID'],
    ['no __typename', [{ id: 'x' }], 'representations[0] has no __typename'],
    ['a string', ['x'], "representations[0] must be an object with __typename and the entity's key fields"],
  ])('_entities with %s is BAD_USER_INPUT, resolves nothing and logs no error', async (_label, representations, message) => {
    production.sandbox.resetRequests();
    const response = await send(production, { query: ENTITIES, variables: { r: representations } }, { 'x-request-id': 'entities-1' });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      data: null,
      errors: [{ message, locations: [{ line: 1, column: 23 }], path: ['_entities'], extensions: { argumentName: 'representations', code: 'BAD_USER_INPUT', requestId: 'entities-1' } }],
    });
    expect(production.platformCalls()).toEqual([]);
    expect(linesNamed('unexpected error')).toEqual([]);
  });

  it('still resolves well-formed representations', async () => {
    const response = await send(production, { query: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on FinancialAccount { id } } }', variables: { r: [{ __typename: 'FinancialAccount', id: 'fa000000-0000-4000-8000-000000000001' }] } });
    expect(response.json).toEqual({ data: { _entities: [{ id: 'fa000000-0000-4000-8000-000000000001' }] } });
  });

  it('answers a persisted-query hash mismatch with 400 PERSISTED_QUERY_HASH_MISMATCH', async () => {
    const query = '{ __typename }';
    const response = await send(production, { query, extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ other }') } } }, { 'x-request-id': 'apq-1' });
    expect([response.status, response.json]).toEqual([400, { errors: [{ message: 'provided sha does not match query', extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH', requestId: 'apq-1' } }] }]);
    expect(linesNamed('unexpected error')).toEqual([]);
  });

  it('answers an unsupported persisted-query version with 400 BAD_REQUEST', async () => {
    const query = '{ __typename }';
    const response = await send(production, { query, extensions: { persistedQuery: { version: 2, sha256Hash: sha256(query) } } }, { 'x-request-id': 'apq-2' });
    expect([response.status, response.json]).toEqual([400, { errors: [{ message: 'Unsupported persisted query version', extensions: { code: 'BAD_REQUEST', requestId: 'apq-2' } }] }]);
    expect(linesNamed('unexpected error')).toEqual([]);
  });
});

describe('unexpected errors', () => {
  it('are logged at error level with the request id and the cause the answer hides', async () => {
    jest.spyOn(production.gateway.http, 'send').mockRejectedValueOnce(new Error('connect to 10.0.7.12:5432 failed'));
    const response = await send(production, { query: '{ document(id: "d0c00000-0000-4000-8000-000000000001") { id } }' }, { 'x-request-id': 'boom-1' });
    expect(response.json).toEqual({
      data: { document: null },
      errors: [{ message: 'Internal server error', locations: [{ line: 1, column: 3 }], path: ['document'], extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'boom-1' } }],
    });
    const logged = linesNamed('unexpected error');
    expect(logged).toEqual([
      {
        level: 50,
        time: expect.any(Number),
        service: 'platform-gateway',
        msg: 'unexpected error',
        requestId: 'boom-1',
        code: 'INTERNAL_SERVER_ERROR',
        path: ['document'],
        error: { type: 'Error', message: 'connect to 10.0.7.12:5432 failed', stack: expect.any(Array) },
      },
    ]);
    expect((logged[0]!.error as { stack: string[] }).stack[0]).toMatch(/^at /);
  });
});

describe('refusals before the GraphQL pipeline', () => {
  const refusals: [string, unknown, Record<string, string>, string][] = [
    ['CSRF', '{"query":"{ __typename }"}', { 'content-type': 'text/plain' }, 'This operation has been blocked as a potential Cross-Site Request Forgery (CSRF).'],
    ['a batch', [{ query: '{ __typename }' }], {}, 'Operation batching disabled.'],
    ['an empty body', {}, {}, 'POST body missing, invalid Content-Type, or JSON object has no keys.'],
    ['a query that is no string', { query: 5 }, {}, 'GraphQL queries must be strings.'],
  ];

  it.each(refusals)('%s carries the caller’s request id, and is logged and counted with it', async (_label, body, headers, message) => {
    const response = await send(production, body, { ...headers, 'x-request-id': 'refused-1' });
    expect(response.status).toBe(400);
    expect(response.json!.errors).toHaveLength(1);
    expect(response.json!.errors![0]!.message.startsWith(message)).toBe(true);
    expect(response.json!.errors![0]!.extensions).toEqual({ code: 'BAD_REQUEST', requestId: 'refused-1' });
    expect(linesNamed('graphql request refused')).toEqual([
      { level: 30, time: expect.any(Number), service: 'platform-gateway', msg: 'graphql request refused', requestId: 'refused-1', code: 'BAD_REQUEST', message: expect.any(String) },
    ]);
  });

  it.each(refusals)('%s without x-request-id gets a fresh id, the same in the answer and the log', async (_label, body, headers) => {
    const response = await send(production, body, headers);
    const requestId = response.json!.errors![0]!.extensions!.requestId;
    expect(requestId).toMatch(UUID);
    expect(linesNamed('graphql request refused').map((line) => line.requestId)).toEqual([requestId]);
  });
});

describe('echoes of client input in answers', () => {
  it('quote an unknown 90 kB operationName by a short prefix', async () => {
    for (const stack of [production, development]) {
      const response = await send(stack, { query: 'query Inbox { __typename }', operationName: 'o'.repeat(90_000) }, { 'x-request-id': 'echo-1' });
      expect(response.status).toBe(400);
      const [error] = response.json!.errors!;
      expect(error!.message).toBe(`Unknown operation named "${'o'.repeat(64)}…".`);
      expect(error!.extensions!.code).toBe('OPERATION_RESOLUTION_FAILURE');
      // Development answers carry a stack trace, whose first line repeats the message: cut too.
      expect(response.text.length).toBeLessThan(5_000);
    }
  });

  it('quote a 5000-character timeZone by a short prefix, keeping the advice', async () => {
    const response = await send(production, { query: 'query($z: String) { exceptions(first: 1, filter: { timeZone: $z }) { nodes { id } } }', variables: { z: 'Z'.repeat(5_000) } }, { 'x-request-id': 'echo-2' });
    expect(response.json).toEqual({
      data: { exceptions: null },
      errors: [
        {
          message: `timeZone "${'Z'.repeat(64)}…" is not accepted: use Z, UTC, GMT, an offset such as +05:30, UTC+2 / GMT-3, or an IANA region id such as Europe/Paris`,
          locations: [{ line: 1, column: 21 }],
          path: ['exceptions'],
          extensions: { field: ['filter', 'timeZone'], code: 'BAD_USER_INPUT', requestId: 'echo-2' },
        },
      ],
    });
  });

  it('quote a long variable value by a short prefix', async () => {
    const response = await send(production, { query: 'query($n: Int) { exceptions(first: $n) { nodes { id } } }', variables: { n: 'n'.repeat(50_000) } }, { 'x-request-id': 'echo-3' });
    expect([response.status, response.json!.errors!.map((e) => e.message)]).toEqual([
      400,
      [`Variable "$n" got invalid value "${'n'.repeat(64)}…"; Int cannot represent non-integer value: "${'n'.repeat(64)}…"`],
    ]);
  });
});
