import { afterEach, describe, expect, it } from '@jest/globals';
import nock from 'nock';
import { ErrorCode } from '../../src/errors.ts';
import { PolicyChain, type UpstreamCallEvent } from '../../src/platform/policy-chain.ts';
import { PlatformError } from '../../src/platform/platform-error.ts';
import type { Policy } from '../../src/platform/policy.ts';
import type { CallLedger } from '../../src/platform/request-calls.ts';
import { CallNotSent } from '../../src/platform/upstream-call.ts';
import { RequestClient } from '../support/request-client.ts';
import { attemptsPerRequest } from './policies/attempts-per-request.ts';
import { useNock } from './nock-guard.ts';
import { PLATFORM_URL, TOKEN, eventsOf, failure, json, upstreamSettings } from './support.ts';

// The platform call's way as one ordered list of named policies (src/platform/policies/).

useNock();

const REQUEST_ID = 'req-policies-1';
const PAGE = { totalElements: 0, totalPages: 0, number: 0, numberOfElements: 0, hasNext: false, content: [] };
let http: PolicyChain | undefined;

afterEach(() => {
  http?.close();
  http = undefined;
});

function platform(overrides: Record<string, string>, policies?: (defaults: Policy[]) => Policy[]): { http: PolicyChain; events: UpstreamCallEvent[] } {
  http = new PolicyChain(PLATFORM_URL, upstreamSettings(overrides), undefined, undefined, { policies });
  const events: UpstreamCallEvent[] = [];
  http.observe((event) => events.push(event));
  return { http, events };
}

/** A ledger that pays `allowed` attempts and refuses the rest, as the budgets' does once the bucket is empty. */
function ledgerPaying(allowed: number): CallLedger & { draws: number } {
  const ledger = {
    draws: 0,
    draw(): Promise<void> | undefined {
      ledger.draws++;
      if (ledger.draws > allowed) return Promise.reject(new CallNotSent(new PlatformError(ErrorCode.RATE_LIMITED, 'spent', { retryAfter: 3 })));
      return undefined;
    },
    forOperation: (): CallLedger => ledgerPaying(allowed),
  };
  return ledger;
}

describe('the list of policies', () => {
  it('names every policy in the order a call meets them', () => {
    expect(platform({}).http.policyNames).toEqual(['token gate', 'calls budget', 'report', 'deadline', 'shared reads', 'breaker gate', 'bulkhead', 'breaker', 'retries', 'bucket draw', 'transport']);
  });

  it('takes a new policy as one more entry: it sees every attempt, retries included, and what it adds reaches the platform', async () => {
    const seen: string[] = [];
    // The whole of a new policy: a name and send(call, next).
    const audit: Policy = {
      name: 'audit',
      async send(call, next) {
        seen.push(`${call.method} ${call.pathAndQuery}`);
        call.headers['x-audit'] = 'gateway';
        return next(call);
      },
    };
    const { http: withAudit } = platform({ UPSTREAM_RETRY_LIMIT: '1' }, (defaults) => [...defaults.slice(0, -1), audit, ...defaults.slice(-1)]);
    expect(withAudit.policyNames.slice(-3)).toEqual(['bucket draw', 'audit', 'transport']);
    const scope = nock(PLATFORM_URL, { reqheaders: { 'x-audit': 'gateway' } })
      .get('/exceptions')
      .reply(503, '')
      .get('/exceptions')
      .reply(200, json(PAGE));
    await expect(new RequestClient(withAudit, TOKEN, REQUEST_ID).get('exceptions.list', '/exceptions')).resolves.toEqual(PAGE);
    scope.done();
    expect(seen).toEqual(['GET /exceptions', 'GET /exceptions']);
  });
});

describe('a policy that keeps state and reads the request', () => {
  it('is one file and one line: each request its own count of attempts, retries included, and one count across requests', async () => {
    const limit = attemptsPerRequest(2);
    // The one line: the new policy just above the bucket draw, where every attempt passes.
    const { http: seam, events } = platform({ UPSTREAM_RETRY_LIMIT: '2' }, (defaults) => [...defaults.slice(0, -2), limit, ...defaults.slice(-2)]);
    expect(seam.policyNames.slice(-4)).toEqual(['retries', 'attempts per request', 'bucket draw', 'transport']);
    const scope = nock(PLATFORM_URL).get('/exceptions').times(2).reply(503, json({ traceId: 't-1', message: 'down' })).get('/documents/d1').reply(200, json({ id: 'd1' }));
    const first = new RequestClient(seam, TOKEN, REQUEST_ID);
    // Two attempts, then the third (a second retry) is refused: the last answer stands.
    expect((await failure(first.get('exceptions.list', '/exceptions'))).extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: { status: 503, traceId: 't-1' } });
    // The same request has spent its attempts; another request has its own.
    expect((await failure(first.get('documents.get', '/documents/d1'))).extensions).toEqual({ code: 'RATE_LIMITED', retryAfter: 1 });
    await expect(new RequestClient(seam, TOKEN, 'req-policies-2').get('documents.get', '/documents/d1')).resolves.toEqual({ id: 'd1' });
    scope.done();
    expect([first.sent, limit.refused()]).toEqual([2, 2]);
    expect(eventsOf(events).map((event) => [event.requestId, event.status, event.errorCode])).toEqual([
      [REQUEST_ID, 503, 'UPSTREAM_ERROR'],
      [REQUEST_ID, 0, 'RATE_LIMITED'],
      ['req-policies-2', 200, undefined],
    ]);
  });
});

describe('the bucket draw', () => {
  it('draws every attempt, retries included, and counts what the platform received', async () => {
    const { http: seam } = platform({ UPSTREAM_RETRY_LIMIT: '2' });
    const scope = nock(PLATFORM_URL).get('/exceptions').twice().reply(503, '').get('/exceptions').reply(200, json(PAGE));
    const ledger = ledgerPaying(10);
    const client = new RequestClient(seam, TOKEN, REQUEST_ID, undefined, { ledger });
    await expect(client.get('exceptions.list', '/exceptions')).resolves.toEqual(PAGE);
    scope.done();
    expect([ledger.draws, client.sent, client.calls]).toEqual([3, 3, 1]);
  });

  it('does not send a call the budget cannot pay: RATE_LIMITED with retryAfter, reported, and the breaker not told', async () => {
    const { http: seam, events } = platform({ UPSTREAM_BREAKER_THRESHOLD: '1' });
    const client = new RequestClient(seam, TOKEN, REQUEST_ID, undefined, { ledger: ledgerPaying(0) });
    const error = await failure(client.get('exceptions.list', '/exceptions'));
    expect([error.message, error.extensions]).toEqual(['spent', { code: 'RATE_LIMITED', retryAfter: 3 }]);
    expect(client.sent).toBe(0);
    expect(eventsOf(events)).toEqual([{ route: 'exceptions.list', method: 'GET', status: 0, retries: 0, requestId: REQUEST_ID, errorCode: 'RATE_LIMITED' }]);
    expect(seam.breakerState).toBe('closed');
  });

  it('sends no retry the budget cannot pay: the last answer stands', async () => {
    const { http: seam, events } = platform({ UPSTREAM_RETRY_LIMIT: '2' });
    const scope = nock(PLATFORM_URL).get('/exceptions').reply(503, json({ traceId: 't-1', message: 'down' }));
    const ledger = ledgerPaying(1);
    const client = new RequestClient(seam, TOKEN, REQUEST_ID, undefined, { ledger });
    const error = await failure(client.get('exceptions.list', '/exceptions'));
    scope.done();
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: { status: 503, traceId: 't-1' } });
    expect([ledger.draws, client.sent]).toEqual([2, 1]);
    expect(eventsOf(events)).toEqual([{ route: 'exceptions.list', method: 'GET', status: 503, retries: 0, requestId: REQUEST_ID, errorCode: 'UPSTREAM_ERROR' }]);
  });
});
