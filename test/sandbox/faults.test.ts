import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { accountOf } from '../support/expected.ts';
import { startSandbox } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/index.ts';
import { ACME, TIMESTAMP, TRACE_ID, call, get } from './client.ts';
import type { ShapeA, ShapeB } from './client.ts';
import { until } from '../support/time.ts';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterEach(() => sandbox.faults.clear());
afterAll(() => sandbox.close());

const exceptions = () => get<ShapeA>(sandbox, '/exceptions?size=1');

/** The cause code of a failed fetch (ECONNRESET, ...). */
async function failure(request: Promise<unknown>): Promise<string> {
  try {
    await request;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return cause?.code ?? (error as Error).name;
  }
  throw new Error('the request succeeded');
}

describe('substitute answers', () => {
  it('answers the status with the platform error body, and Retry-After when asked', async () => {
    sandbox.faults.set('exceptions', { status: 503, retryAfter: 7 });
    const { status, headers, body } = await exceptions();
    expect(status).toBe(503);
    expect(headers.get('retry-after')).toBe('7');
    expect(headers.get('content-type')).toBe('application/json');
    expect(Object.keys(body)).toEqual(['timestamp', 'traceId', 'error', 'message']);
    expect(body).toMatchObject({ error: 'Service Unavailable', message: 'Simulated 503 Service Unavailable' });
    expect(body.timestamp).toMatch(TIMESTAMP);
    expect(body.traceId).toMatch(TRACE_ID);
  });

  it('answers 429 with Retry-After, and 400/422 in the validation shape', async () => {
    sandbox.faults.set('linx', { status: 429, retryAfter: 2 });
    const limited = await get<ShapeA>(sandbox, '/v2/linx/workflow-batches');
    expect([limited.status, limited.headers.get('retry-after'), limited.body.error]).toEqual([429, '2', 'Too Many Requests']);
    sandbox.faults.set('linx', { status: 422 });
    const invalid = await get<ShapeB>(sandbox, '/v2/linx/workflow-batches');
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ message: 'Unprocessable Entity', errorCode: 'VALIDATION_ERROR', errors: [] });
  });

  it('answers an HTML page, plain text, truncated JSON or an empty body', async () => {
    sandbox.faults.set('exceptions', { status: 502, body: 'html' });
    const html = await exceptions();
    expect([html.status, html.headers.get('content-type')]).toEqual([502, 'text/html; charset=utf-8']);
    expect(html.text).toContain('<h1>502 Bad Gateway</h1>');
    sandbox.faults.set('exceptions', { status: 500, body: 'text' });
    const text = await exceptions();
    expect([text.status, text.headers.get('content-type'), text.text]).toEqual([500, 'text/plain; charset=utf-8', '500 Internal Server Error']);
    sandbox.faults.set('exceptions', { status: 500, body: 'malformed' });
    const malformed = await exceptions();
    expect([malformed.status, malformed.headers.get('content-type')]).toEqual([500, 'application/json']);
    expect(malformed.text.startsWith('{"timestamp":')).toBe(true);
    expect(() => JSON.parse(malformed.text)).toThrow(SyntaxError);
    sandbox.faults.set('exceptions', { status: 504, body: 'empty' });
    const empty = await exceptions();
    expect([empty.status, empty.headers.get('content-length'), empty.text]).toEqual([504, '0', '']);
  });

  it('answers a 200 with a broken body when only the body kind is set', async () => {
    sandbox.faults.set('document.get', { body: 'malformed' });
    const id = sandbox.store.documents(accountOf(sandbox, ACME))[0]!.id;
    const answer = await get(sandbox, `/v1/documents/${id}`);
    expect(answer.status).toBe(200);
    expect(() => JSON.parse(answer.text)).toThrow(SyntaxError);
  });

  it('applies before authentication, as an outage would', async () => {
    sandbox.faults.set('exceptions', { status: 503 });
    expect((await get(sandbox, '/exceptions', null)).status).toBe(503);
  });
});

describe('connection faults', () => {
  it('resets the connection without answering', async () => {
    sandbox.faults.set('acceptances', { reset: true });
    expect(await failure(get(sandbox, '/v1/acceptances'))).toBe('ECONNRESET');
  });

  it('hangs until the client gives up, and close() still finishes at once', async () => {
    const own = await startSandbox();
    own.faults.set('exceptions', { hang: true });
    expect(await failure(fetch(`${own.url}/exceptions`, { signal: AbortSignal.timeout(150) }))).toBe('TimeoutError');
    const pending = fetch(`${own.url}/exceptions`).catch((error: unknown) => error);
    // Both requests have reached the sandbox (it records a request as it arrives), so close() finds one hanging.
    await until('the second request at the sandbox', () => (own.requests.filter((r) => r.route === 'exceptions').length === 2 ? true : undefined), 20_000);
    // A hanging request must not hold close() up: a hang here fails the test by its timeout.
    await own.close();
    expect(await pending).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
  });

  // The delay is the behaviour here, so these tests read the wall clock: a lower bound only (a busy
  // machine answers later, never earlier), with 5 ms of margin for the timer's rounding.
  it('delays the normal answer by latencyMs', async () => {
    sandbox.faults.set('exceptions', { latencyMs: 200 });
    const started = Date.now();
    const { status } = await exceptions();
    expect(status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(195);
  });

  it('delays the fault answer too', async () => {
    sandbox.faults.set('exceptions', { latencyMs: 150, status: 500 });
    const started = Date.now();
    expect((await exceptions()).status).toBe(500);
    expect(Date.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('trickles the normal body over trickleMs after sending the headers at once', async () => {
    const normal = await get(sandbox, '/exceptions?size=5');
    sandbox.faults.set('exceptions', { trickleMs: 400 });
    const started = performance.now();
    const res = await fetch(`${sandbox.url}/exceptions?size=5`, { headers: { authorization: `Bearer ${ACME}` } });
    const headersAfter = performance.now() - started;
    const reader = res.body!.getReader();
    let chunks = 0;
    const parts: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks += 1;
      parts.push(value);
    }
    const bodyAfter = performance.now() - started;
    expect(res.status).toBe(200);
    // Lower bounds only: the whole body takes the trickle's length (less 20 ms for the timers' rounding),
    // and arrives in several chunks after the headers. How long after the headers is left to the clock:
    // a busy machine may read the headers late, when part of the body is already there.
    expect(bodyAfter).toBeGreaterThanOrEqual(380);
    expect(bodyAfter).toBeGreaterThan(headersAfter);
    expect(chunks).toBeGreaterThan(4);
    expect(JSON.parse(Buffer.concat(parts).toString())).toEqual(normal.body);
  });
});

describe('selection', () => {
  it('applies to the next N requests only with times', async () => {
    sandbox.faults.set('exceptions', { status: 500, times: 2 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await exceptions()).status);
    expect(statuses).toEqual([500, 500, 200, 200]);
  });

  it('hits a deterministic fraction of requests with errorRate', async () => {
    const run = async (): Promise<number[]> => {
      sandbox.faults.set('exceptions', { status: 503, errorRate: 0.3 });
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await exceptions()).status);
      return statuses;
    };
    const first = await run();
    const second = await run();
    expect(second).toEqual(first);
    const failed = first.filter((s) => s === 503).length;
    expect(failed).toBeGreaterThanOrEqual(6);
    expect(failed).toBeLessThanOrEqual(18);
    expect(first.filter((s) => s !== 503).every((s) => s === 200)).toBe(true);
  });

  it("lets '*' hit every route, content host included, and a route's own fault take precedence", async () => {
    sandbox.faults.set('*', { status: 502 });
    sandbox.faults.set('linx', { status: 504 });
    expect((await exceptions()).status).toBe(502);
    expect((await get(sandbox, '/nowhere')).status).toBe(502);
    expect((await call(`${sandbox.documentsUrl}/documents/x`)).status).toBe(502);
    expect((await get(sandbox, '/v2/linx/workflow-batches')).status).toBe(504);
    sandbox.faults.clear('*');
    expect((await exceptions()).status).toBe(200);
    expect((await get(sandbox, '/v2/linx/workflow-batches')).status).toBe(504);
  });

  it('leaves other routes alone', async () => {
    sandbox.faults.set('acceptances', { status: 500 });
    expect((await exceptions()).status).toBe(200);
  });

  it('refuses faults it cannot apply', () => {
    expect(() => sandbox.faults.set('exceptions', { status: 99 })).toThrow('invalid fault field "status": 99');
    expect(() => sandbox.faults.set('exceptions', { errorRate: 2 })).toThrow(TypeError);
    expect(() => sandbox.faults.set('exceptions', { delay: 5 } as never)).toThrow('unknown fault field "delay"');
    expect(() => sandbox.faults.set('documents' as never, { status: 500 })).toThrow('route must be one of *, acceptances, exceptions, linx, document.get, document.put, content');
  });
});

describe('global latency option', () => {
  it('delays every request', async () => {
    const slow = await startSandbox({ latencyMs: 120 });
    try {
      const started = Date.now();
      expect((await get(slow, '/exceptions?size=1')).status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(115);
    } finally {
      await slow.close();
    }
  });
});
