import { afterEach, describe, expect, it } from '@jest/globals';
import { testConfig } from '../../src/settings/config.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { Bulkhead, RouteBusy } from '../../src/platform/bulkhead.ts';
import { RequestDeadlineExceeded } from '../../src/request/deadline.ts';
import { RequestClient } from '../support/request-client.ts';
import { PolicyChain, type UpstreamCallEvent } from '../../src/platform/policy-chain.ts';
import { TOKEN, eventsOf, eventually, failure, json, protectionSettings, startServer, upstreamSettings, type TestServer } from './support.ts';

describe('Bulkhead', () => {
  it('grants its capacity at once, queues the rest in arrival order and hands each freed slot to the longest waiting', async () => {
    const bulkhead = new Bulkhead(2, 3);
    expect([bulkhead.acquire(), bulkhead.acquire()]).toEqual([undefined, undefined]);
    const granted: string[] = [];
    const waiting = ['a', 'b', 'c'].map((name) => bulkhead.acquire()!.then(() => granted.push(name)));
    expect([bulkhead.inFlight, bulkhead.queued]).toEqual([2, 3]);

    bulkhead.release();
    await waiting[0];
    expect(granted).toEqual(['a']);
    expect([bulkhead.inFlight, bulkhead.queued]).toEqual([2, 2]);
    bulkhead.release();
    bulkhead.release();
    await Promise.all(waiting);
    expect(granted).toEqual(['a', 'b', 'c']);
    expect([bulkhead.inFlight, bulkhead.queued]).toEqual([2, 0]);
    bulkhead.release();
    bulkhead.release();
    expect([bulkhead.inFlight, bulkhead.queued]).toEqual([0, 0]);
  });

  it('refuses a call with RouteBusy once the queue is full', () => {
    const bulkhead = new Bulkhead(1, 1);
    bulkhead.acquire();
    void bulkhead.acquire();
    expect(() => bulkhead.acquire()).toThrow(new RouteBusy(1, 1));
    expect(new RouteBusy(1, 1).message).toBe('1 calls in flight and 1 waiting');
    const noQueue = new Bulkhead(1, 0);
    noQueue.acquire();
    expect(() => noQueue.acquire()).toThrow(RouteBusy);
  });

  it('lets a waiting call go when its signal aborts: it fails with the reason at once and its queue slot is free again', async () => {
    const bulkhead = new Bulkhead(1, 1);
    bulkhead.acquire();
    const controller = new AbortController();
    const leaving = bulkhead.acquire(controller.signal)!;
    expect(() => bulkhead.acquire()).toThrow(RouteBusy);

    const reason = new RequestDeadlineExceeded(300);
    controller.abort(reason);
    await expect(leaving).rejects.toBe(reason);
    expect([bulkhead.inFlight, bulkhead.queued]).toEqual([1, 0]);

    let next = false;
    const waiting = bulkhead.acquire()!.then(() => (next = true));
    bulkhead.release();
    await waiting;
    expect(next).toBe(true);
    expect([bulkhead.inFlight, bulkhead.queued]).toEqual([1, 0]);
  });

  it('refuses to queue a call whose signal has already aborted', async () => {
    const bulkhead = new Bulkhead(1, 5);
    bulkhead.acquire();
    const reason = new Error('gone');
    await expect(bulkhead.acquire(AbortSignal.abort(reason))!).rejects.toBe(reason);
    expect(bulkhead.queued).toBe(0);
  });
});

describe('a route at its bound (UPSTREAM_ROUTE_MAX_IN_FLIGHT, UPSTREAM_ROUTE_QUEUE)', () => {
  let server: TestServer | undefined;
  let http: PolicyChain | undefined;
  let metrics: ReturnType<typeof createMetrics> | undefined;

  afterEach(async () => {
    metrics?.close();
    http?.close();
    await server?.close();
    http = undefined;
    server = undefined;
  });

  /** Exceptions never answer; documents answer at once. Two exceptions calls in flight and one waiting at most. */
  async function setup() {
    server = await startServer((request, response) => {
      if (request.url?.startsWith('/v1/documents/')) response.writeHead(200, { 'content-type': 'application/json' }).end(json({ id: 'd1' }));
    });
    const env = { UPSTREAM_ROUTE_MAX_IN_FLIGHT: '2', UPSTREAM_ROUTE_QUEUE: '1', UPSTREAM_RESPONSE_TIMEOUT_MS: '60000', UPSTREAM_REQUEST_TIMEOUT_MS: '60000' };
    http = new PolicyChain(server.url, upstreamSettings(env), protectionSettings(env));
    const events: UpstreamCallEvent[] = [];
    metrics = createMetrics(http);
    const recorded = metrics;
    http.observe((event) => {
      events.push(event);
      recorded.recordUpstream(event);
    });
    return { server, http, events, metrics: recorded };
  }

  const exceptions = (platform: PolicyChain, n: number, signal?: AbortSignal) =>
    new RequestClient(platform, TOKEN, `req-${n}`, signal).get('exceptions.list', '/exceptions', { page: n });

  it('refuses further calls with UPSTREAM_BUSY, sends nothing for them, and leaves the other routes and the breaker alone', async () => {
    const wire = await setup();
    const controller = new AbortController();
    const pending = [1, 2, 3].map((n) => failure(exceptions(wire.http, n, controller.signal)));
    await eventually(() => wire.server.requests.length === 2 && wire.http.routeLoad()[0]!.queued === 1);
    expect(wire.http.routeLoad()).toEqual([{ route: 'exceptions', inFlight: 2, queued: 1 }]);

    const busy = await failure(exceptions(wire.http, 4));
    expect(busy.message).toBe('The gateway is limiting calls to this platform route (2 calls in flight and 1 waiting); try again shortly');
    expect(busy.extensions).toEqual({ code: 'UPSTREAM_BUSY' });
    expect(eventsOf(wire.events)).toEqual([{ route: 'exceptions.list', method: 'GET', status: 0, retries: 0, requestId: 'req-4', errorCode: 'UPSTREAM_BUSY' }]);
    await expect(new RequestClient(wire.http, TOKEN, 'req-doc').get('documents.get', '/v1/documents/d1')).resolves.toEqual({ id: 'd1' });
    expect(wire.server.requests.map((r) => r.url)).toEqual(['/exceptions?page=1', '/exceptions?page=2', '/v1/documents/d1']);
    expect(wire.http.breakerState).toBe('closed');

    const { metrics } = wire;
    expect(await metrics.registry.getSingleMetricAsString('upstream_busy_total')).toContain('upstream_busy_total{route="exceptions.list"} 1');
    const load = await metrics.registry.getSingleMetricAsString('upstream_in_flight');
    expect(load).toContain('upstream_in_flight{route="exceptions",state="active"} 2');
    expect(load).toContain('upstream_in_flight{route="exceptions",state="queued"} 1');
    expect(load).toContain('upstream_in_flight{route="documents",state="active"} 0');

    controller.abort(new Error('caller gone'));
    expect((await Promise.all(pending)).map((error) => error.extensions.code)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED']);
    expect(wire.http.routeLoad()).toEqual([
      { route: 'exceptions', inFlight: 0, queued: 0 },
      { route: 'documents', inFlight: 0, queued: 0 },
    ]);
  });

  it('a waiting call honours its request’s deadline: it answers UPSTREAM_TIMEOUT and is never sent', async () => {
    const wire = await setup();
    const holders = new AbortController();
    const inFlight = [1, 2].map((n) => failure(exceptions(wire.http, n, holders.signal)));
    await eventually(() => wire.server.requests.length === 2);

    const deadline = new AbortController();
    const queued = failure(exceptions(wire.http, 3, deadline.signal));
    await eventually(() => wire.http.routeLoad()[0]!.queued === 1);
    deadline.abort(new RequestDeadlineExceeded(250));
    const error = await queued;
    expect([error.message, error.extensions]).toEqual(['The platform did not answer in time (request deadline of 250 ms)', { code: 'UPSTREAM_TIMEOUT' }]);
    expect(wire.http.routeLoad()).toEqual([{ route: 'exceptions', inFlight: 2, queued: 0 }]);

    holders.abort(new Error('caller gone'));
    await Promise.all(inFlight);
    expect(wire.server.requests.map((r) => r.url)).toEqual(['/exceptions?page=1', '/exceptions?page=2']);
  });
});

describe('settings', () => {
  it('size each route’s bound from the socket pool unless set', () => {
    expect(testConfig().platformProtection).toEqual({ route: { maxInFlight: 32, queue: 256 }, shareReads: true, maxCallsPerRequest: 200 });
    expect(testConfig({ UPSTREAM_MAX_SOCKETS: '4' }).platformProtection.route).toEqual({ maxInFlight: 2, queue: 16 });
    expect(testConfig({ UPSTREAM_MAX_SOCKETS: '1' }).platformProtection.route).toEqual({ maxInFlight: 1, queue: 4 });
    expect(
      testConfig({ UPSTREAM_ROUTE_MAX_IN_FLIGHT: '10', UPSTREAM_ROUTE_QUEUE: '0', UPSTREAM_SHARE_READS: 'false', MAX_PLATFORM_CALLS_PER_REQUEST: '50' }).platformProtection,
    ).toEqual({ route: { maxInFlight: 10, queue: 0 }, shareReads: false, maxCallsPerRequest: 50 });
    expect(() => testConfig({ UPSTREAM_ROUTE_MAX_IN_FLIGHT: '0' })).toThrow(/UPSTREAM_ROUTE_MAX_IN_FLIGHT/);
    expect(() => testConfig({ UPSTREAM_ROUTE_QUEUE: '-1' })).toThrow(/UPSTREAM_ROUTE_QUEUE/);
    expect(() => testConfig({ UPSTREAM_SHARE_READS: 'maybe' })).toThrow(/UPSTREAM_SHARE_READS/);
    expect(() => testConfig({ MAX_PLATFORM_CALLS_PER_REQUEST: '0' })).toThrow(/MAX_PLATFORM_CALLS_PER_REQUEST/);
  });
});
