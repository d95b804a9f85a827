import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { getIntrospectionQuery } from 'graphql';
import { loadConfig } from '../../src/settings/config.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { accountOf } from '../support/expected.ts';
import { post, read, type RawResponse } from './support/http.ts';

let production: Stack;
let productionOpened: Stack;
let development: Stack;
let developmentWithoutStackTraces: Stack;

beforeAll(async () => {
  [production, productionOpened, development, developmentWithoutStackTraces] = await Promise.all([
    startStack({ NODE_ENV: 'production' }),
    startStack({ NODE_ENV: 'production', INTROSPECTION: 'true', PLAYGROUND: 'true' }),
    startStack({ NODE_ENV: 'development', STACK_TRACES: 'true' }),
    startStack({ NODE_ENV: 'development' }),
  ]);
});
afterAll(() => Promise.all([production, productionOpened, development, developmentWithoutStackTraces].map((stack) => stack.close())));
afterEach(() => {
  jest.restoreAllMocks();
});

const send = (stack: Stack, body: unknown, headers: Record<string, string> = {}) =>
  post(`${stack.gateway.url}/graphql`, body, { authorization: `Bearer ${stack.acme}`, ...headers });
const browserGet = async (stack: Stack) => read(await fetch(`${stack.gateway.url}/graphql`, { headers: { accept: 'text/html' } }));
const codes = (response: RawResponse) => response.json?.errors?.map((e) => e.extensions?.code);

/** An error unlike any the gateway expects, carrying details that must not reach a client. */
function breakPlatformSeam(stack: Stack) {
  jest.spyOn(stack.gateway.http, 'send').mockRejectedValueOnce(new Error('connect to 10.0.7.12:5432 failed (user=gateway password=hunter2)'));
}

describe('introspection', () => {
  it('is refused in production', async () => {
    for (const query of [getIntrospectionQuery(), '{ __schema { types { name } } }', '{ __type(name: "Exception") { fields { name } } }']) {
      const response = await send(production, { query });
      expect(response.status).toBe(400);
      expect(response.json?.data).toBeUndefined();
      expect(codes(response)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
      expect(response.json!.errors![0]!.message).toMatch(/introspection is not allowed/);
      expect(response.json!.errors![0]!.message).toBe(
        'GraphQL introspection is not allowed: the query contained __schema or __type. Set INTROSPECTION=true on the gateway to allow it.',
      );
      expect(production.platformCalls()).toEqual([]);
    }
  });

  it('is served in production with INTROSPECTION=true, and in development', async () => {
    for (const stack of [productionOpened, development]) {
      const response = await send(stack, { query: getIntrospectionQuery() });
      expect(response.status).toBe(200);
      const types = (response.json!.data!.__schema as { types: { name: string }[] }).types.map((t) => t.name);
      expect(types).toEqual(expect.arrayContaining(['Exception', 'DocumentAcceptance', 'LinxBatch', 'Document']));
    }
  });

  it('keeps __typename, which clients need for caching', async () => {
    expect((await send(production, { query: '{ __typename }' })).json).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('playground', () => {
  it('is not served in production: a browser gets a short page saying so, and how to turn it on', async () => {
    const response = await browserGet(production);
    expect([response.status, response.contentType]).toEqual([404, 'text/html; charset=utf-8']);
    expect(response.text).toMatch(/The playground is off \(off by default in production\): set <code>PLAYGROUND=true<\/code> to serve it here\./);
    expect(response.text).not.toMatch(/playground-config|<script/);
  });

  it('is served in production with PLAYGROUND=true', async () => {
    const response = await browserGet(productionOpened);
    // 503 when the bundle has not been built in this checkout: still the playground's own answer.
    expect([200, 503]).toContain(response.status);
    expect(response.text).toMatch(response.status === 200 ? /id="playground-config"/ : /playground/i);
  });
});

describe('errors', () => {
  it('masks an unexpected error in production: generic message, code and request id kept, no stack trace', async () => {
    breakPlatformSeam(production);
    const id = production.sandbox.store.documents(accountOf(production.sandbox, production.acme))[0]!.id;
    const response = await send(production, { query: 'query($id: ID!) { document(id: $id) { id } }', variables: { id } }, { 'x-request-id': 'req-masked-1' });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      data: { document: null },
      errors: [{ message: 'Internal server error', locations: [{ line: 1, column: 19 }], path: ['document'], extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'req-masked-1' } }],
    });
    expect(response.text).not.toMatch(/hunter2|10\.0\.7\.12|stacktrace/);
  });

  it('shows the same error with its message but no stack trace in development unless STACK_TRACES=true', async () => {
    breakPlatformSeam(developmentWithoutStackTraces);
    const id = developmentWithoutStackTraces.sandbox.store.documents(accountOf(developmentWithoutStackTraces.sandbox, developmentWithoutStackTraces.acme))[0]!.id;
    const response = await send(developmentWithoutStackTraces, { query: 'query($id: ID!) { document(id: $id) { id } }', variables: { id } }, { 'x-request-id': 'req-dev-1' });
    expect(response.json).toEqual({
      data: { document: null },
      errors: [
        {
          message: 'connect to 10.0.7.12:5432 failed (user=gateway password=hunter2)',
          locations: [{ line: 1, column: 19 }],
          path: ['document'],
          extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'req-dev-1' },
        },
      ],
    });
    const invalid = await send(developmentWithoutStackTraces, { query: '{ nope }' });
    expect(invalid.json!.errors![0]!.extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED', requestId: expect.any(String) });
  });

  it('refuses STACK_TRACES=true in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', STACK_TRACES: 'true' })).toThrow('STACK_TRACES: stack traces are never sent in production (NODE_ENV=production)');
  });

  it('shows the same error with its message and stack trace in development with STACK_TRACES=true', async () => {
    breakPlatformSeam(development);
    const id = development.sandbox.store.documents(accountOf(development.sandbox, development.acme))[0]!.id;
    const response = await send(development, { query: 'query($id: ID!) { document(id: $id) { id } }', variables: { id } });
    const [error] = response.json!.errors!;
    expect(error!.message).toBe('connect to 10.0.7.12:5432 failed (user=gateway password=hunter2)');
    expect(error!.extensions!.code).toBe('INTERNAL_SERVER_ERROR');
    expect(Array.isArray(error!.extensions!.stacktrace)).toBe(true);
  });

  it('keeps public errors as they are in production', async () => {
    const response = await send(production, { query: '{ document(id: "00000000-0000-4000-8000-000000000000") { id } }' });
    expect(response.json!.errors![0]).toMatchObject({ message: expect.stringMatching(/^Not found on the platform \(HTTP 404\)/), extensions: { code: 'NOT_FOUND', upstream: { status: 404 } } });
  });

  it('keeps limit refusals readable in production', async () => {
    production.sandbox.resetRequests();
    const response = await send(production, { query: `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: exceptions(first: 1) { totalCount }`).join(' ')} }` });
    expect(response.status).toBe(400);
    expect(response.json!.errors).toEqual([
      { message: 'Aliases limit of 15 exceeded, found 16.', extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'MAX_QUERY_ALIASES', max: 15, requestId: expect.any(String) } },
    ]);
    expect(production.platformCalls()).toEqual([]);
  });

  it('never sends a stack trace in production, whatever the failure', async () => {
    const failures: unknown[] = [
      { query: '{ exceptions { nodes { id } ' },
      { query: '{ nope }' },
      { query: 'query($n: Int) { exceptions(first: $n) { nodes { id } } }', variables: { n: 'ten' } },
      { query: '{ exceptions(first: 1000) { nodes { id } } }' },
      { query: '{ document(id: "00000000-0000-4000-8000-000000000000") { id } }' },
      '{"query": ',
    ];
    for (const body of failures) {
      const response = await send(production, body);
      expect(response.json?.errors?.length).toBeGreaterThan(0);
      expect(response.text).not.toMatch(/stacktrace|\bat .*\.(ts|js):\d+/);
      for (const error of response.json!.errors!) expect(typeof error.extensions?.code).toBe('string');
    }
    const development400 = await send(development, { query: '{ nope }' });
    expect(development400.json!.errors![0]!.extensions!.stacktrace).toBeDefined();
  });

  it('answers a broken body as JSON without a stack trace in development too', async () => {
    const response = await send(development, '{"query": ');
    expect(response.status).toBe(400);
    expect(response.json?.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
    expect(response.text).not.toMatch(/<html|stack|node_modules/i);
  });
});

describe('field suggestions', () => {
  const typo = { query: '{ exceptoins { nodes { id } } }' };
  const enumTypo = { query: 'query($s: [ExceptionStatus!]) { exceptions(filter: { status: $s }) { nodes { id } } }', variables: { s: ['NEWW'] } };
  const argumentTypo = { query: '{ exceptions(frist: 1) { nodes { id } } }' };

  it('are cut from every message in production', async () => {
    expect((await send(production, typo)).json!.errors![0]!.message).toBe('Cannot query field "exceptoins" on type "Query".');
    expect((await send(production, argumentTypo)).json!.errors![0]!.message).toBe('Unknown argument "frist" on field "Query.exceptions".');
    const enumError = (await send(production, enumTypo)).json!.errors![0]!;
    expect(enumError.message).toBe('Variable "$s" got invalid value "NEWW" at "s[0]"; Value "NEWW" does not exist in "ExceptionStatus" enum.');
    expect(enumError.extensions!.code).toBe('BAD_USER_INPUT');
  });

  it('are kept in development', async () => {
    expect((await send(development, typo)).json!.errors![0]!.message).toBe('Cannot query field "exceptoins" on type "Query". Did you mean "exceptions"?');
    expect((await send(development, enumTypo)).json!.errors![0]!.message).toMatch(/Did you mean the enum value "NEW"\?$/);
  });
});
