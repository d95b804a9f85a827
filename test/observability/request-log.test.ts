import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createLogger } from '../../src/logger.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { LogCapture } from '../support/log-capture.ts';

const EXCEPTIONS = 'query Inbox { exceptions(first: 2) { nodes { id } } }';

let capture: LogCapture;
let stack: Stack;

beforeAll(async () => {
  capture = new LogCapture();
  stack = await startStack({ UPSTREAM_RETRY_LIMIT: '0' }, {}, createLogger('debug', { destination: capture }));
});
afterAll(() => stack.close());
beforeEach(() => {
  stack.sandbox.faults.clear();
  capture.reset();
});

const byMessage = (msg: string) => capture.lines().filter((line) => line.msg === msg);

describe('request log', () => {
  it('writes one line per GraphQL request with id, operation, duration, outcome and upstream call count', async () => {
    const response = await stack.gql(EXCEPTIONS, {}, { headers: { 'x-request-id': 'log-ok-1' } });
    expect(response.body.errors).toBeUndefined();

    const lines = byMessage('graphql request');
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toEqual({
      level: 30,
      time: expect.any(Number),
      service: 'platform-gateway',
      msg: 'graphql request',
      requestId: 'log-ok-1',
      operationName: 'Inbox',
      operationType: 'query',
      durationMs: expect.any(Number),
      outcome: 'ok',
      errorCodes: [],
      upstreamCalls: 1,
      httpStatus: 200,
    });
    expect(line!.durationMs as number).toBeGreaterThan(0);
    expect(capture.lines()).toHaveLength(1);
  });

  it('names the error codes of a failed request, and counts no upstream call when none was made', async () => {
    const response = await stack.gql(EXCEPTIONS, {}, { token: null, headers: { 'x-request-id': 'log-unauth-1' } });
    expect(response.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(byMessage('graphql request')).toEqual([
      expect.objectContaining({ requestId: 'log-unauth-1', operationName: 'Inbox', outcome: 'error', errorCodes: ['UNAUTHENTICATED'], upstreamCalls: 0 }),
    ]);
    expect(byMessage('upstream call failed')).toEqual([]);
  });

  it('logs a document that fails validation with its code and no operation', async () => {
    await stack.gql('query Broken { exceptions(first: 2) { nodes { nope } } }', {}, { headers: { 'x-request-id': 'log-invalid-1' } });
    expect(byMessage('graphql request')).toEqual([
      expect.objectContaining({ requestId: 'log-invalid-1', operationName: null, operationType: null, outcome: 'error', errorCodes: ['GRAPHQL_VALIDATION_FAILED'], upstreamCalls: 0, httpStatus: 400 }),
    ]);
  });

  it('logs a platform failure at warn with request id, route and status, and never the token', async () => {
    stack.sandbox.faults.set('exceptions', { status: 503 });
    const response = await stack.gql(EXCEPTIONS, {}, { headers: { 'x-request-id': 'log-503-1', cookie: 'session=cookie-secret-value' } });
    expect(response.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');

    expect(byMessage('upstream call failed')).toEqual([
      {
        level: 40,
        time: expect.any(Number),
        service: 'platform-gateway',
        msg: 'upstream call failed',
        requestId: 'log-503-1',
        route: 'exceptions.list',
        method: 'GET',
        status: 503,
        errorCode: 'UPSTREAM_ERROR',
        retries: 0,
        durationMs: expect.any(Number),
      },
    ]);
    expect(byMessage('graphql request')).toEqual([expect.objectContaining({ requestId: 'log-503-1', outcome: 'error', errorCodes: ['UPSTREAM_ERROR'], upstreamCalls: 1 })]);
    expect(capture.text).not.toContain(stack.acme);
    expect(capture.text).not.toContain('cookie-secret-value');
    expect(capture.text.toLowerCase()).not.toContain('authorization');
  });

  it('logs a refusal the caller caused at debug, not warn', async () => {
    const response = await stack.gql('query One { document(id: "00000000-0000-4000-8000-000000000000") { id } }', {}, { headers: { 'x-request-id': 'log-404-1' } });
    expect(response.body.data).toEqual({ document: null });
    expect(byMessage('upstream call failed')).toEqual([]);
    expect(byMessage('upstream call refused')).toEqual([
      expect.objectContaining({ level: 20, requestId: 'log-404-1', route: 'documents.get', method: 'GET', status: 404, errorCode: 'NOT_FOUND' }),
    ]);
    expect(capture.text).not.toContain(stack.acme);
  });
});

describe('redaction', () => {
  it('replaces authorization and cookie wherever a request or its headers are logged', () => {
    const out = new LogCapture();
    const logger = createLogger('info', { destination: out });
    const headers = { authorization: 'Bearer very-secret-token', cookie: 'sid=very-secret-cookie', 'x-request-id': 'r-1' };
    logger.info({ req: { headers } }, 'incoming');
    logger.info({ headers }, 'headers');
    logger.info({ authorization: headers.authorization, cookie: headers.cookie }, 'flat');
    logger.info({ upstream: { authorization: headers.authorization, cookie: headers.cookie } }, 'nested');

    const [incoming, direct, flat, nested] = out.lines();
    expect((incoming!.req as { headers: unknown }).headers).toEqual({ authorization: '[REDACTED]', cookie: '[REDACTED]', 'x-request-id': 'r-1' });
    expect(direct!.headers).toEqual({ authorization: '[REDACTED]', cookie: '[REDACTED]', 'x-request-id': 'r-1' });
    expect(flat).toMatchObject({ authorization: '[REDACTED]', cookie: '[REDACTED]' });
    expect(nested!.upstream).toEqual({ authorization: '[REDACTED]', cookie: '[REDACTED]' });
    expect(out.text).not.toContain('very-secret');
  });
});

describe('request log of a batch', () => {
  it("gives each operation's line its own upstream calls", async () => {
    const log = new LogCapture();
    const batching = await startStack({ ALLOW_BATCHED_REQUESTS: 'true' }, {}, createLogger('info', { destination: log }));
    const response = await fetch(`${batching.gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${batching.acme}`, 'x-request-id': 'log-batch-1' },
      body: JSON.stringify([
        { query: 'query One { exceptions(first: 2) { nodes { id } } }' },
        { query: 'query Two { a: exceptions(first: 2) { nodes { id } } b: exceptions(first: 3) { nodes { id } } }' },
        { query: 'query Three { __typename }' },
      ]),
    });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    await batching.close();
    // Written as each operation's answer is ready, in no set order.
    const lines = log.lines().filter((line) => line.msg === 'graphql request').map((line) => [line.operationName, line.upstreamCalls]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(lines).toEqual([
      ['One', 1],
      ['Three', 0],
      ['Two', 2],
    ]);
  });
});
