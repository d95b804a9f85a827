import { afterEach, describe, expect, it } from '@jest/globals';
import { RequestClient } from '../support/request-client.ts';
import { PolicyChain, type UpstreamCallEvent } from '../../src/platform/policy-chain.ts';
import { ManualClock } from './manual-clock.ts';
import { TOKEN, closedPort, eventsOf, eventually, failure, json, startServer, upstreamSettings, type Handler, type TestServer } from './support.ts';

const REQUEST_ID = 'req-breaker-1';
const THRESHOLD = 3;
const COOL_DOWN_MS = 150;
const RECORD = { id: 'd1' };

let server: TestServer | undefined;
let http: PolicyChain | undefined;
let events: UpstreamCallEvent[] = [];
let transitions: string[] = [];
let status = 200;
/** The seam's clock: cool-downs pass when the test moves it; a retry's back-off moves it by itself. */
let clock = new ManualClock({ autoAdvance: true });

/** Answers `status` (a JSON record for 200); the suite flips it between calls. */
const byStatus: Handler = (_request, response) => {
  response.writeHead(status, { 'content-type': 'application/json' }).end(status === 200 ? json(RECORD) : '');
};

async function setup(handler: Handler = byStatus, overrides: Record<string, string> = {}) {
  server = await startServer(handler);
  clock = new ManualClock({ autoAdvance: true });
  // No retries: each call is one request, so server counts equal call counts.
  http = new PolicyChain(
    server.url,
    upstreamSettings({
      UPSTREAM_RETRY_LIMIT: '0',
      UPSTREAM_BREAKER_THRESHOLD: String(THRESHOLD),
      UPSTREAM_BREAKER_COOLDOWN_MS: String(COOL_DOWN_MS),
      // Long enough that a loaded machine's answers never time out: only the timeout tests shorten it.
      UPSTREAM_RESPONSE_TIMEOUT_MS: '10000',
      UPSTREAM_REQUEST_TIMEOUT_MS: '10000',
      ...overrides,
    }),
    undefined,
    clock,
  );
  events = [];
  transitions = [];
  status = 200;
  http.observe((event) => events.push(event));
  http.onBreakerStateChange((state) => transitions.push(state));
  return { http, server };
}

afterEach(async () => {
  http?.close();
  await server?.close();
  http = undefined;
  server = undefined;
});

const call = (platform: PolicyChain) => new RequestClient(platform, TOKEN, REQUEST_ID).get('documents.get', '/v1/documents/d1');

async function tripWith(platform: PolicyChain, failingStatus: number) {
  status = failingStatus;
  for (let i = 0; i < THRESHOLD; i++) expect((await failure(call(platform))).extensions.code).toBe('UPSTREAM_ERROR');
}

describe('circuit breaker', () => {
  it(`opens after ${THRESHOLD} consecutive 5xx and then fails fast without reaching the platform`, async () => {
    const wire = await setup();
    await tripWith(wire.http, 500);
    expect(wire.http.breakerState).toBe('open');
    expect(transitions).toEqual(['open']);

    status = 200;
    const error = await failure(call(wire.http));

    expect(error.message).toBe('The platform is failing; calls are paused for a short cool-down');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR' });
    expect(wire.server.requests).toHaveLength(THRESHOLD);
    expect(eventsOf(events).at(-1)).toEqual({
      route: 'documents.get',
      method: 'GET',
      status: 0,
      retries: 0,
      requestId: REQUEST_ID,
      errorCode: 'UPSTREAM_ERROR',
    });
    // PUTs share the breaker: a failing platform is not sent mutations either.
    const put = await failure(new RequestClient(wire.http, TOKEN, REQUEST_ID).put('documents.update', '/v1/documents/d1', { name: 'x' }));
    expect(put.message).toBe('The platform is failing; calls are paused for a short cool-down');
    expect(wire.server.requests).toHaveLength(THRESHOLD);
  });

  it('stays closed one failure short of the threshold', async () => {
    const wire = await setup();
    status = 503;
    for (let i = 0; i < THRESHOLD - 1; i++) await failure(call(wire.http));
    status = 200;
    await expect(call(wire.http)).resolves.toEqual(RECORD);
    expect(wire.http.breakerState).toBe('closed');
    expect(wire.server.requests).toHaveLength(THRESHOLD);
  });

  it('after the cool-down lets one probe through (half-open) and closes when it succeeds', async () => {
    const wire = await setup();
    await tripWith(wire.http, 502);
    clock.advance(COOL_DOWN_MS);
    expect(wire.http.breakerState).toBe('open');

    status = 200;
    await expect(call(wire.http)).resolves.toEqual(RECORD);

    expect(transitions).toEqual(['open', 'half-open', 'closed']);
    expect(wire.http.breakerState).toBe('closed');
    expect(wire.server.requests).toHaveLength(THRESHOLD + 1);
    await expect(call(wire.http)).resolves.toEqual(RECORD);
    expect(wire.server.requests).toHaveLength(THRESHOLD + 2);
  });

  it('a failed probe opens it again for another cool-down', async () => {
    const wire = await setup();
    await tripWith(wire.http, 504);
    clock.advance(COOL_DOWN_MS);

    const probe = await failure(call(wire.http));
    expect(probe.message).toBe('The platform failed to answer (HTTP 504)');
    expect(transitions).toEqual(['open', 'half-open', 'open']);
    expect(wire.server.requests).toHaveLength(THRESHOLD + 1);

    const fast = await failure(call(wire.http));
    expect(fast.message).toBe('The platform is failing; calls are paused for a short cool-down');
    expect(wire.server.requests).toHaveLength(THRESHOLD + 1);
  });

  it('timeouts trip it', async () => {
    const wire = await setup(() => {}, { UPSTREAM_RESPONSE_TIMEOUT_MS: '100' });
    for (let i = 0; i < THRESHOLD; i++) expect((await failure(call(wire.http))).extensions.code).toBe('UPSTREAM_TIMEOUT');
    expect(wire.http.breakerState).toBe('open');

    const error = await failure(call(wire.http));
    expect(error.extensions.code).toBe('UPSTREAM_ERROR');
    expect(wire.server.requests).toHaveLength(THRESHOLD);
  });

  it('refused connections trip it', async () => {
    http = new PolicyChain(`http://127.0.0.1:${await closedPort()}`, upstreamSettings({ UPSTREAM_RETRY_LIMIT: '0', UPSTREAM_BREAKER_THRESHOLD: String(THRESHOLD) }));
    for (let i = 0; i < THRESHOLD; i++) expect((await failure(call(http))).message).toBe('The platform could not be reached (ECONNREFUSED)');
    expect(http.breakerState).toBe('open');
    expect((await failure(call(http))).message).toBe('The platform is failing; calls are paused for a short cool-down');
  });

  it('a GET with retries counts as one failure, however many attempts it made', async () => {
    const wire = await setup(byStatus, { UPSTREAM_RETRY_LIMIT: '2' });
    status = 503;
    for (let i = 0; i < THRESHOLD - 1; i++) await failure(call(wire.http));
    expect(wire.server.requests).toHaveLength((THRESHOLD - 1) * 3);
    expect(wire.http.breakerState).toBe('closed');
  });

  it('4xx answers never trip it, and reset the count of consecutive failures', async () => {
    const wire = await setup();
    for (const clientError of [400, 401, 403, 404, 409, 422, 429, 400, 404]) {
      status = clientError;
      await failure(call(wire.http));
    }
    expect(wire.http.breakerState).toBe('closed');

    status = 500;
    for (let i = 0; i < THRESHOLD - 1; i++) await failure(call(wire.http));
    status = 404;
    await failure(call(wire.http));
    status = 500;
    for (let i = 0; i < THRESHOLD - 1; i++) await failure(call(wire.http));
    expect(wire.http.breakerState).toBe('closed');
    expect(transitions).toEqual([]);
    expect(wire.server.requests).toHaveLength(9 + 2 * (THRESHOLD - 1) + 1);
  });

  it('an unusable 200 body does not trip it (the platform answered)', async () => {
    const wire = await setup((_request, response) => response.writeHead(200).end('not json'));
    for (let i = 0; i < THRESHOLD + 1; i++) expect((await failure(call(wire.http))).message).toBe('The platform answered with an unusable body (malformed JSON)');
    expect(wire.http.breakerState).toBe('closed');
  });
});

describe('one breaker per platform route', () => {
  const exceptions = (platform: PolicyChain) => new RequestClient(platform, TOKEN, REQUEST_ID).get('exceptions.list', '/exceptions');

  it('a route failing opens only its own breaker: other routes are still called', async () => {
    const wire = await setup();
    const routes: string[] = [];
    wire.http.onBreakerStateChange((state, route) => routes.push(`${route}:${state}`));
    await tripWith(wire.http, 500);

    status = 200;
    await expect(exceptions(wire.http)).resolves.toEqual(RECORD);
    expect((await failure(call(wire.http))).message).toBe('The platform is failing; calls are paused for a short cool-down');
    expect(wire.server.requests.map((r) => r.url)).toEqual([...Array<string>(THRESHOLD).fill('/v1/documents/d1'), '/exceptions']);
    expect(routes).toEqual(['documents:open']);
    expect(wire.http.breakerStates()).toEqual({ documents: 'open' });
    expect(wire.http.breakerState).toBe('open');
  });

  it('failures of different routes do not add up', async () => {
    const wire = await setup();
    status = 502;
    for (let i = 0; i < THRESHOLD - 1; i++) {
      await failure(call(wire.http));
      await failure(exceptions(wire.http));
    }
    expect(wire.http.breakerStates()).toEqual({});
    expect(wire.http.breakerState).toBe('closed');
    expect(wire.server.requests).toHaveLength(2 * (THRESHOLD - 1));
  });
});

describe('calls stopped by their request', () => {
  const stoppable = (platform: PolicyChain, signal: AbortSignal) =>
    new RequestClient(platform, TOKEN, REQUEST_ID, signal).get('documents.get', '/v1/documents/d1');

  it('never count as failures, however many there are', async () => {
    const wire = await setup(() => {}, { UPSTREAM_RESPONSE_TIMEOUT_MS: '60000', UPSTREAM_REQUEST_TIMEOUT_MS: '60000' });
    for (let i = 0; i < THRESHOLD + 2; i++) {
      const controller = new AbortController();
      const pending = failure(stoppable(wire.http, controller.signal));
      await eventually(() => wire.server.requests.length === i + 1);
      controller.abort(new Error('caller gone'));
      expect((await pending).extensions.code).toBe('CANCELLED');
    }
    expect(wire.http.breakerState).toBe('closed');
    expect(transitions).toEqual([]);
  });

  it('a stopped probe leaves the breaker half-open, and the next call probes', async () => {
    const wire = await setup();
    await tripWith(wire.http, 500);
    clock.advance(COOL_DOWN_MS);
    wire.server.handle(() => {});
    const controller = new AbortController();
    const probe = failure(stoppable(wire.http, controller.signal));
    await eventually(() => wire.server.requests.length === THRESHOLD + 1);
    controller.abort(new Error('caller gone'));
    expect((await probe).extensions.code).toBe('CANCELLED');
    expect(wire.http.breakerState).toBe('half-open');

    wire.server.handle(byStatus);
    status = 200;
    await expect(call(wire.http)).resolves.toEqual(RECORD);
    expect(transitions).toEqual(['open', 'half-open', 'closed']);
    expect(wire.server.requests).toHaveLength(THRESHOLD + 2);
  });
});

