import { afterEach, describe, expect, it } from '@jest/globals';
import { CallerGone, RequestDeadlineExceeded } from '../../src/request/deadline.ts';
import { RequestClient } from '../support/request-client.ts';
import { systemClock, type Clock } from '../../src/platform/clock.ts';
import { PolicyChain } from '../../src/platform/policy-chain.ts';
import { ManualClock } from './manual-clock.ts';
import { TOKEN, eventually, failure, startServer, upstreamSettings, type Handler, type TestServer } from './support.ts';

// What counts as evidence against a platform route's breaker when calls do not end with an answer:
// timed-out attempts (at once, before any retry), and calls the request deadline stopped after they
// had waited a response timeout's worth; never a caller hanging up.

let server: TestServer | undefined;
let http: PolicyChain | undefined;
let transitions: string[] = [];

afterEach(async () => {
  http?.close();
  await server?.close();
  http = undefined;
  server = undefined;
});

async function setup(handler: Handler, overrides: Record<string, string>, clock: Clock = systemClock) {
  server = await startServer(handler);
  http = new PolicyChain(server.url, upstreamSettings(overrides), undefined, clock);
  transitions = [];
  http.onBreakerStateChange((state, route) => transitions.push(`${route}:${state}`));
  return { server, http };
}

const hang: Handler = () => {};
const unavailable: Handler = (_request, response) => response.writeHead(503, { 'content-type': 'application/json' }).end('{}');
const exceptions = (platform: PolicyChain, n: number, signal?: AbortSignal) =>
  new RequestClient(platform, TOKEN, `req-${n}`, signal).get('exceptions.list', '/exceptions', { page: n });

describe('timed-out attempts', () => {
  it('count at once: concurrent hung calls open the breaker once, and none is retried after it opened', async () => {
    const wire = await setup(hang, { UPSTREAM_RESPONSE_TIMEOUT_MS: '100', UPSTREAM_RETRY_LIMIT: '2', UPSTREAM_BREAKER_THRESHOLD: '3', UPSTREAM_BREAKER_COOLDOWN_MS: '60000' });

    const errors = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => failure(exceptions(wire.http, n))));

    expect(errors.map((e) => [e.message, e.extensions.code])).toEqual(Array(6).fill(['The platform did not answer in time (response timeout)', 'UPSTREAM_TIMEOUT']));
    expect(transitions).toEqual(['exceptions:open']);
    // The first two timeouts found the breaker closed and were retried; the rest were not.
    expect(wire.server.requests).toHaveLength(6 + 2);
    expect((await failure(exceptions(wire.http, 7))).message).toBe('The platform is failing; calls are paused for a short cool-down');
    expect(wire.server.requests).toHaveLength(8);
  });
});

describe('a shared call', () => {
  it('fails once for every caller waiting on it: ten identical hung requests open the breaker at the first timeout', async () => {
    const wire = await setup(hang, { UPSTREAM_RESPONSE_TIMEOUT_MS: '100', UPSTREAM_RETRY_LIMIT: '2', UPSTREAM_BREAKER_THRESHOLD: '5', UPSTREAM_BREAKER_COOLDOWN_MS: '60000' });
    const same = (n: number) => new RequestClient(wire.http, TOKEN, `req-${n}`).get('exceptions.list', '/exceptions');

    const errors = await Promise.all(Array.from({ length: 10 }, (_, n) => failure(same(n))));

    expect(errors.map((e) => e.extensions.code)).toEqual(Array.from({ length: 10 }, () => 'UPSTREAM_TIMEOUT'));
    // Each caller maps the failure in its own request: ten errors, not one shared object.
    expect(new Set(errors).size).toBe(10);
    expect(wire.server.requests).toHaveLength(1);
    expect(transitions).toEqual(['exceptions:open']);
  });
});

describe('calls stopped by their request', () => {
  /** A 503, then a retry that waits seconds: the call is in flight, without an answer, until stopped. */
  const waiting = { UPSTREAM_RETRY_LIMIT: '1', UPSTREAM_RETRY_BASE_MS: '10000', UPSTREAM_BREAKER_THRESHOLD: '1', UPSTREAM_BREAKER_COOLDOWN_MS: '60000' };

  /** The call waits on a clock the test moves: `waitMs` pass between the 503 and the stop, and the back-off is still running. */
  async function stopAfter(responseTimeoutMs: number, waitMs: number, reason: Error) {
    const clock = new ManualClock();
    const wire = await setup(unavailable, { ...waiting, UPSTREAM_RESPONSE_TIMEOUT_MS: String(responseTimeoutMs) }, clock);
    const controller = new AbortController();
    const call = failure(exceptions(wire.http, 1, controller.signal));
    await eventually(() => clock.pending().length === 1);
    expect(wire.server.requests).toHaveLength(1);
    clock.advance(waitMs);
    expect(clock.pending()).toHaveLength(1);
    controller.abort(reason);
    const error = await call;
    // Stopping the call ended its back-off too: nothing is left waiting.
    expect(clock.pending()).toEqual([]);
    return { wire, error };
  }

  it('count when the deadline stopped them after a response timeout’s worth of waiting', async () => {
    const { wire, error } = await stopAfter(50, 100, new RequestDeadlineExceeded(300));
    expect([error.message, error.extensions.code]).toEqual(['The platform did not answer in time (request deadline of 300 ms)', 'UPSTREAM_TIMEOUT']);
    expect(transitions).toEqual(['exceptions:open']);
    expect(wire.http.breakerStates()).toEqual({ exceptions: 'open' });
  });

  it('do not count when the deadline came sooner than a response timeout', async () => {
    const { wire, error } = await stopAfter(60_000, 0, new RequestDeadlineExceeded(300));
    expect(error.extensions.code).toBe('UPSTREAM_TIMEOUT');
    expect(transitions).toEqual([]);
    expect(wire.http.breakerState).toBe('closed');
  });

  it('never count when the caller hung up, however long they waited', async () => {
    const { wire, error } = await stopAfter(50, 100, new CallerGone());
    expect(error.extensions.code).toBe('CANCELLED');
    expect(transitions).toEqual([]);
    expect(wire.http.breakerState).toBe('closed');
  });
});
