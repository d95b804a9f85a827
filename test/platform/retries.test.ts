// Network errors (resets, refusals) are covered against a real socket in transport.test.ts:
// nock's simulated errors do not reach got the way a real socket's do.
import { afterEach, describe, expect, it } from '@jest/globals';
import nock from 'nock';
import { RequestClient } from '../support/request-client.ts';
import type { PolicyChain} from '../../src/platform/policy-chain.ts';
import { type UpstreamCallEvent } from '../../src/platform/policy-chain.ts';
import type { Clock } from '../../src/platform/clock.ts';
import { ManualClock } from './manual-clock.ts';
import { useNock } from './nock-guard.ts';
import { PLATFORM_URL, TOKEN, eventsOf, eventually, failure, json, observedPlatformHttp } from './support.ts';

useNock();

const REQUEST_ID = 'req-retry-1';
const PAGE = { totalElements: 1, totalPages: 1, number: 0, numberOfElements: 1, hasNext: false, content: [{ id: 'e1' }] };

let http: PolicyChain | undefined;
let events: UpstreamCallEvent[] = [];

/** A client over a fresh PolicyChain (retry limit 2, 5 ms backoff unless overridden), waiting on `clock`. */
function setup(overrides: Record<string, string> = {}, clock?: Clock): RequestClient {
  ({ http, events } = observedPlatformHttp({ UPSTREAM_RETRY_LIMIT: '2', ...overrides }, clock));
  return new RequestClient(http, TOKEN, REQUEST_ID);
}

afterEach(() => {
  http?.close();
  http = undefined;
});

/** A nock answer that also records when the request arrived, on the clock the seam waits on. */
function stamped(clock: Clock, times: number[], status: number, body = '', headers: Record<string, string> = {}) {
  return (): [number, string, Record<string, string>] => {
    times.push(clock.now());
    return [status, body, headers];
  };
}

describe('GET retries', () => {
  it('retries a 503 and succeeds: exactly two requests', async () => {
    const client = setup();
    const scope = nock(PLATFORM_URL).get('/exceptions').reply(503, 'busy').get('/exceptions').reply(200, json(PAGE));

    await expect(client.get('exceptions.list', '/exceptions')).resolves.toEqual(PAGE);

    scope.done();
    expect(eventsOf(events)).toEqual([{ route: 'exceptions.list', method: 'GET', status: 200, retries: 1, requestId: REQUEST_ID }]);
  });

  for (const status of [429, 502, 504]) {
    it(`retries a ${status} too`, async () => {
      const client = setup();
      const scope = nock(PLATFORM_URL).get('/exceptions').reply(status, '').get('/exceptions').reply(200, json(PAGE));
      await expect(client.get('exceptions.list', '/exceptions')).resolves.toEqual(PAGE);
      scope.done();
      expect(eventsOf(events)).toEqual([{ route: 'exceptions.list', method: 'GET', status: 200, retries: 1, requestId: REQUEST_ID }]);
    });
  }

  it('does not retry a 500 (a failing handler, not an overloaded one)', async () => {
    const client = setup();
    const scope = nock(PLATFORM_URL).get('/exceptions').reply(500, '');

    const error = await failure(client.get('exceptions.list', '/exceptions'));

    scope.done();
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: { status: 500 } });
    expect(eventsOf(events)).toEqual([
      { route: 'exceptions.list', method: 'GET', status: 500, retries: 0, requestId: REQUEST_ID, errorCode: 'UPSTREAM_ERROR' },
    ]);
  });

  it('does not retry a 4xx', async () => {
    const client = setup();
    const scope = nock(PLATFORM_URL).get('/v1/documents/d1').reply(404, '');
    const error = await failure(client.get('documents.get', '/v1/documents/d1'));
    scope.done();
    expect(error.extensions.code).toBe('NOT_FOUND');
  });

  it('stops after the limit: limit 2 means exactly three requests, then the last answer maps', async () => {
    const client = setup({ UPSTREAM_RETRY_LIMIT: '2' });
    const scope = nock(PLATFORM_URL).get('/exceptions').times(3).reply(503, json({ traceId: 't-503', message: 'down' }));

    const error = await failure(client.get('exceptions.list', '/exceptions'));

    scope.done();
    expect(error.message).toBe('The platform failed to answer (HTTP 503)');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: { status: 503, traceId: 't-503' } });
    expect(eventsOf(events)).toEqual([
      { route: 'exceptions.list', method: 'GET', status: 503, retries: 2, requestId: REQUEST_ID, errorCode: 'UPSTREAM_ERROR' },
    ]);
  });

  it('limit 0 means exactly one request', async () => {
    const client = setup({ UPSTREAM_RETRY_LIMIT: '0' });
    const scope = nock(PLATFORM_URL).get('/exceptions').reply(503, '');
    const error = await failure(client.get('exceptions.list', '/exceptions'));
    scope.done();
    expect(error.extensions.code).toBe('UPSTREAM_ERROR');
  });

  it('backs off with jitter between half and all of base × 2^(attempt-1)', async () => {
    // Each wait runs through at once and moves the clock by its length: the gaps are the waits.
    const clock = new ManualClock({ autoAdvance: true });
    const client = setup({ UPSTREAM_RETRY_BASE_MS: '150', UPSTREAM_RETRY_LIMIT: '3' }, clock);
    const times: number[] = [];
    const scope = nock(PLATFORM_URL)
      .get('/exceptions')
      .times(3)
      .reply(stamped(clock, times, 503))
      .get('/exceptions')
      .reply(stamped(clock, times, 200, json(PAGE)));

    await expect(client.get('exceptions.list', '/exceptions')).resolves.toEqual(PAGE);

    scope.done();
    const gaps = times.slice(1).map((at, index) => at - times[index]!);
    expect(gaps).toHaveLength(3);
    expect(clock.waits).toEqual(gaps);
    // Windows [75,150], [150,300], [300,600] ms: the exponential, jittered backoff.
    gaps.forEach((gap, index) => {
      const ceiling = 150 * 2 ** index;
      expect(gap).toBeGreaterThanOrEqual(ceiling / 2);
      expect(gap).toBeLessThanOrEqual(ceiling);
    });
  });
});

describe('Retry-After', () => {
  it('waits at least as long as the platform asks before retrying', async () => {
    const clock = new ManualClock();
    const client = setup({}, clock);
    const times: number[] = [];
    const scope = nock(PLATFORM_URL)
      .get('/exceptions')
      .reply(stamped(clock, times, 429, '', { 'retry-after': '1' }))
      .get('/exceptions')
      .reply(stamped(clock, times, 200, json(PAGE)));

    const answer = client.get('exceptions.list', '/exceptions');
    await eventually(() => clock.pending().length === 1);
    expect(clock.pending()).toEqual([1000]);
    // The retry goes only once the clock has moved the whole second.
    clock.advance(999);
    expect(clock.pending()).toEqual([1000]);
    expect(times).toHaveLength(1);
    clock.advance(1);
    await expect(answer).resolves.toEqual(PAGE);

    scope.done();
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(1000);
    expect(clock.waits).toEqual([1000]);
    expect(eventsOf(events)).toEqual([{ route: 'exceptions.list', method: 'GET', status: 200, retries: 1, requestId: REQUEST_ID }]);
  });

  it('does not retry when Retry-After exceeds the cap, and reports RATE_LIMITED with the wait', async () => {
    const client = setup({ UPSTREAM_RETRY_AFTER_CAP_MS: '2000' });
    const scope = nock(PLATFORM_URL).get('/exceptions').reply(429, json({ traceId: 't-429', message: 'quota' }), { 'retry-after': '30' });

    const error = await failure(client.get('exceptions.list', '/exceptions'));

    scope.done();
    expect(error.message).toBe('The platform is rate limiting this caller (HTTP 429): quota');
    expect(error.extensions).toEqual({ code: 'RATE_LIMITED', upstream: { status: 429, traceId: 't-429' }, retryAfter: 30 });
    expect(eventsOf(events)).toEqual([
      { route: 'exceptions.list', method: 'GET', status: 429, retries: 0, requestId: REQUEST_ID, errorCode: 'RATE_LIMITED' },
    ]);
  });

  it('does not retry when an HTTP-date Retry-After is beyond the cap', async () => {
    const client = setup({ UPSTREAM_RETRY_AFTER_CAP_MS: '2000' });
    const scope = nock(PLATFORM_URL).get('/exceptions').reply(429, '', { 'retry-after': new Date(Date.now() + 120_000).toUTCString() });
    const error = await failure(client.get('exceptions.list', '/exceptions'));
    scope.done();
    expect(error.extensions.code).toBe('RATE_LIMITED');
    expect(error.extensions.retryAfter).toBeGreaterThanOrEqual(119);
    expect(error.extensions.retryAfter).toBeLessThanOrEqual(120);
  });

  it('does not retry a 503 whose Retry-After exceeds the cap', async () => {
    const client = setup({ UPSTREAM_RETRY_AFTER_CAP_MS: '2000' });
    const scope = nock(PLATFORM_URL).get('/exceptions').reply(503, '', { 'retry-after': '3' });
    const error = await failure(client.get('exceptions.list', '/exceptions'));
    scope.done();
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: { status: 503 } });
  });
});

describe('a Retry-After that is not delay-seconds or an HTTP date', () => {
  for (const header of ['1e3', '0x10', '1.5', 'soon 5']) {
    it(`reads ${JSON.stringify(header)} as absent, as the failure mapping does: a back-off, then the retry`, async () => {
      const client = setup({ UPSTREAM_RETRY_AFTER_CAP_MS: '2000' });
      const scope = nock(PLATFORM_URL).get('/exceptions').reply(503, '', { 'retry-after': header }).get('/exceptions').reply(200, json(PAGE));
      await expect(client.get('exceptions.list', '/exceptions')).resolves.toEqual(PAGE);
      scope.done();
      expect(eventsOf(events)).toEqual([{ route: 'exceptions.list', method: 'GET', status: 200, retries: 1, requestId: REQUEST_ID }]);
    });
  }
});

describe('PUT is sent exactly once', () => {
  const body = { documentType: 'passport', name: 'Passport' };

  it('on 503: one request, UPSTREAM_ERROR', async () => {
    const client = setup();
    const scope = nock(PLATFORM_URL).put('/v1/documents/passport', body).reply(503, '');

    const error = await failure(client.put('documents.update', '/v1/documents/passport', body));

    scope.done();
    expect(error.message).toBe('The platform failed to answer (HTTP 503)');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: { status: 503 } });
    expect(eventsOf(events)).toEqual([
      { route: 'documents.update', method: 'PUT', status: 503, retries: 0, requestId: REQUEST_ID, errorCode: 'UPSTREAM_ERROR' },
    ]);
  });

  it('on 429 with a short Retry-After: one request, RATE_LIMITED', async () => {
    const client = setup();
    const scope = nock(PLATFORM_URL).put('/v1/documents/passport', body).reply(429, '', { 'retry-after': '1' });
    const error = await failure(client.put('documents.update', '/v1/documents/passport', body));
    scope.done();
    expect(error.extensions).toEqual({ code: 'RATE_LIMITED', upstream: { status: 429 }, retryAfter: 1 });
  });
});
