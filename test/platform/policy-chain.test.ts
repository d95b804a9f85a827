import { afterEach, describe, expect, it } from '@jest/globals';
import { PolicyChain, type UpstreamCallEvent, type UpstreamRequest } from '../../src/platform/policy-chain.ts';
import type { PlatformCall, Policy } from '../../src/platform/policy.ts';
import type { Answer } from '../../src/platform/upstream-call.ts';
import { runWithRequestId } from '../../src/request/scope.ts';
import { ManualClock } from './manual-clock.ts';
import { PLATFORM_URL, TOKEN, upstreamSettings } from './support.ts';

// The seam's own surface, over a transport policy the test plays: what send() hands the list and
// returns, and what the seam tells of its breakers, bulkheads and shared reads. The policies
// themselves are tested one by one in test/platform/policies/.

/** A transport whose answers the test gives, one call at a time, in arrival order. */
function fakeTransport() {
  const calls: PlatformCall[] = [];
  const pending: ((answer: Answer) => void)[] = [];
  const policy: Policy = {
    name: 'transport',
    send: (call) =>
      new Promise<Answer>((resolve) => {
        calls.push(call);
        pending.push(resolve);
      }),
  };
  const answer = (status: number, body = '') => pending.shift()!({ status, body, headers: {}, retries: 0 });
  return { policy, calls, answer };
}

let http: PolicyChain | undefined;
afterEach(() => http?.close());

function seam(options: { shareReads?: boolean; threshold?: string; maxInFlight?: number } = {}) {
  const transport = fakeTransport();
  const clock = new ManualClock();
  http = new PolicyChain(
    PLATFORM_URL,
    upstreamSettings({ UPSTREAM_RETRY_LIMIT: '0', UPSTREAM_BREAKER_THRESHOLD: options.threshold ?? '2', UPSTREAM_BREAKER_COOLDOWN_MS: '1000' }),
    { route: { maxInFlight: options.maxInFlight ?? 4, queue: 4 }, shareReads: options.shareReads ?? true },
    clock,
    { policies: (defaults) => [...defaults.slice(0, -1), transport.policy] },
  );
  return { http, transport, clock };
}

const GET: UpstreamRequest = { route: 'documents.get', method: 'GET', pathAndQuery: '/v1/documents/d1', authorization: TOKEN };

/** Lets every settled promise run its reactions. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('PolicyChain.send', () => {
  it('hands the list the request with fresh headers and one caller, and resolves with the status and body only', async () => {
    const { http, transport } = seam();
    const sent = runWithRequestId('req-http-1', () => http.send(GET));
    await settle();
    transport.answer(200, '{"id":"d1"}');
    await expect(sent).resolves.toEqual({ status: 200, body: '{"id":"d1"}' });
    expect(transport.calls).toHaveLength(1);
    expect(transport.calls[0]).toMatchObject({ ...GET, headers: { 'x-request-id': 'req-http-1' } });
    expect(transport.calls[0]!.callers()).toBe(1);
  });

  it('rejects a non-2xx answer with the mapped error', async () => {
    const { http, transport } = seam();
    const sent = http.send(GET);
    await settle();
    transport.answer(404);
    await expect(sent).rejects.toMatchObject({ extensions: { code: 'NOT_FOUND', upstream: { status: 404 } } });
  });

  it('tells its observers and its tracer of every call', async () => {
    const { http, transport } = seam();
    const events: Omit<UpstreamCallEvent, 'durationMs'>[] = [];
    const spans: string[] = [];
    http.observe(({ durationMs: _, ...event }) => void events.push(event));
    http.traceWith({ startUpstream: (requestId, route) => ({ traceparent: undefined, end: (event) => void spans.push(`${requestId} ${route} ${event.status}`) }) });
    const sent = runWithRequestId('req-http-2', () => http.send(GET));
    await settle();
    transport.answer(200);
    await sent;
    expect(events).toEqual([{ route: 'documents.get', method: 'GET', status: 200, retries: 0, requestId: 'req-http-2', errorCode: undefined }]);
    expect(spans).toEqual(['req-http-2 documents.get 200']);
  });
});

describe('what PolicyChain tells of its policies', () => {
  it('reports the breakers: closed, then the open route and its transitions', async () => {
    const { http, transport } = seam({ threshold: '1' });
    const moves: string[] = [];
    http.onBreakerStateChange((state, route) => moves.push(`${route} ${state}`));
    expect([http.breakerState, http.breakerStates()]).toEqual(['closed', {}]);
    const sent = http.send(GET);
    await settle();
    transport.answer(503);
    await expect(sent).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_ERROR' } });
    expect([http.breakerState, http.breakerStates(), moves]).toEqual(['open', { documents: 'open' }, ['documents open']]);
  });

  it('reports the calls in flight and waiting per breaker key', async () => {
    const { http, transport } = seam({ maxInFlight: 1 });
    expect(http.routeLoad()).toEqual([]);
    const first = http.send(GET);
    const second = http.send({ ...GET, method: 'PUT', route: 'documents.update' });
    await settle();
    expect(http.routeLoad()).toEqual([{ route: 'documents', inFlight: 1, queued: 1 }]);
    transport.answer(200);
    await first;
    await settle();
    transport.answer(200);
    await second;
    expect(http.routeLoad()).toEqual([{ route: 'documents', inFlight: 0, queued: 0 }]);
  });

  it('shares an identical read in flight, and reports it', async () => {
    const { http, transport } = seam();
    expect(http.sharesReads).toBe(true);
    const reads = [http.send(GET), http.send(GET)];
    await settle();
    expect(http.sharedReads()).toEqual({ calls: 1, callers: 2 });
    transport.answer(200, 'once');
    await expect(Promise.all(reads)).resolves.toEqual([
      { status: 200, body: 'once' },
      { status: 200, body: 'once' },
    ]);
    expect(transport.calls).toHaveLength(1);
    expect(http.sharedReads()).toEqual({ calls: 0, callers: 0 });
  });

  it('sends each read when sharing is off', async () => {
    const { http, transport } = seam({ shareReads: false });
    expect(http.sharesReads).toBe(false);
    const reads = [http.send(GET), http.send(GET)];
    await settle();
    expect(transport.calls).toHaveLength(2);
    transport.answer(200);
    transport.answer(200);
    await Promise.all(reads);
  });

  it('has no sockets open before any call reached the real transport', () => {
    expect(seam().http.socketCounts()).toEqual({ active: 0, idle: 0 });
  });
});

describe('the list of policies', () => {
  it('takes the default list, or what the options make of it', () => {
    const plain = new PolicyChain(PLATFORM_URL, upstreamSettings());
    expect(plain.policyNames.at(-1)).toBe('transport');
    plain.close();
    const audit: Policy = { name: 'audit', send: (call, next) => next(call) };
    let defaults: string[] = [];
    http = new PolicyChain(PLATFORM_URL, upstreamSettings(), undefined, undefined, {
      policies: (given) => ((defaults = given.map((policy) => policy.name)), [audit, ...given]),
    });
    expect(http.policyNames).toEqual(['audit', ...defaults]);
    expect(defaults).toEqual(plain.policyNames);
  });
});
