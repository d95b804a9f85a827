import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import nock from 'nock';
import { TokenVerdicts } from '../../src/platform/token-verdicts.ts';
import type { PolicyChain } from '../../src/platform/policy-chain.ts';
import { tokenKey } from '../../src/request/caller-token.ts';
import { RequestDeadlineExceeded } from '../../src/request/deadline.ts';
import { RequestClient } from '../support/request-client.ts';
import { useNock } from './nock-guard.ts';
import { PLATFORM_URL, TOKEN, TOKEN_SECRET, failure, json, observedPlatformHttp } from './support.ts';

// The token gate (CallBudget.admitted) in one process, without the server: what a
// request's calls learn of its token, and what they do with what the process already knows. A
// made-up token must cost the platform at most one refused call.

useNock();

const KEY = tokenKey(TOKEN_SECRET);
let http: PolicyChain;
let tokens: TokenVerdicts;

beforeEach(() => {
  ({ http } = observedPlatformHttp());
  tokens = new TokenVerdicts();
});

afterEach(() => http.close());

const client = (options: { onTokenRefused?: () => void; tokenKey?: string; signal?: AbortSignal } = {}) =>
  new RequestClient(http, TOKEN, 'req-token-gate', options.signal, { tokens, tokenKey: options.tokenKey, onTokenRefused: options.onTokenRefused });

describe('the token gate', () => {
  it('sends an unknown token\'s calls one at a time: the second waits for the first to be answered, and both go once it is accepted', async () => {
    const order: string[] = [];
    const scope = nock(PLATFORM_URL)
      .get('/v1/documents/a')
      .reply(() => {
        order.push('a received');
        return [200, json({ id: 'a' })];
      })
      .get('/v1/documents/b')
      .reply(() => {
        order.push('b received');
        return [200, json({ id: 'b' })];
      });
    const request = client();
    const answers = await Promise.all([
      request.getUncached('documents.get', '/v1/documents/a').then((answer) => (order.push('a answered'), answer)),
      request.getUncached('documents.get', '/v1/documents/b'),
    ]);
    expect(answers).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(order).toEqual(['a received', 'a answered', 'b received']);
    expect(tokens.verdict(KEY)).toBe('accepted');
    expect(tokens.sizes).toEqual({ accepted: 1, refused: 0, probes: 0 });
    scope.done();
  });

  it('sends an accepted token\'s calls at once, side by side', async () => {
    tokens.report(KEY, 'accepted', false);
    const order: string[] = [];
    const scope = nock(PLATFORM_URL)
      .get('/v1/documents/a')
      .delay(30)
      .reply(() => {
        order.push('a received');
        return [200, json({ id: 'a' })];
      })
      .get('/v1/documents/b')
      .reply(() => {
        order.push('b received');
        return [200, json({ id: 'b' })];
      });
    const request = client();
    await Promise.all([request.getUncached('documents.get', '/v1/documents/a'), request.getUncached('documents.get', '/v1/documents/b')]);
    expect(order).toEqual(['a received', 'b received']);
    scope.done();
  });

  it('refuses a token the platform answered 401: the request is told, and its next call is answered UNAUTHENTICATED without being sent', async () => {
    const refusedByPlatform = jest.fn();
    const scope = nock(PLATFORM_URL).get('/v1/documents/a').reply(401, json({ message: 'unauthorized' }));
    const request = client({ onTokenRefused: refusedByPlatform });
    expect((await failure(request.getUncached('documents.get', '/v1/documents/a'))).extensions.code).toBe('UNAUTHENTICATED');
    expect(refusedByPlatform).toHaveBeenCalledTimes(1);
    expect(tokens.verdict(KEY)).toBe('refused');
    scope.done();

    const unsent = await failure(request.getUncached('documents.get', '/v1/documents/b'));
    expect([unsent.message, unsent.extensions.code]).toEqual(['The platform rejected the access token (not sent: the platform refused this token moments ago)', 'UNAUTHENTICATED']);
    // Refused before the call: the request is not told a second time.
    expect(refusedByPlatform).toHaveBeenCalledTimes(1);
  });

  it('learns from every answer but a 5xx: a 404 accepts the token, a 503 leaves it unknown', async () => {
    const scope = nock(PLATFORM_URL).get('/v1/documents/gone').reply(404, json({ message: 'not found' })).get('/v1/documents/busy').reply(503, json({ message: 'busy' }));
    const refusedByPlatform = jest.fn();
    expect((await failure(client({ onTokenRefused: refusedByPlatform }).getUncached('documents.get', '/v1/documents/busy'))).extensions.code).toBe('UPSTREAM_ERROR');
    expect(tokens.verdict(KEY)).toBe('unknown');
    expect(tokens.sizes.probes).toBe(0);
    expect((await failure(client({ onTokenRefused: refusedByPlatform }).getUncached('documents.get', '/v1/documents/gone'))).extensions.code).toBe('NOT_FOUND');
    expect(tokens.verdict(KEY)).toBe('accepted');
    expect(refusedByPlatform).not.toHaveBeenCalled();
    scope.done();
  });

  it('makes an accepted token unknown again on a 401, not refused: its next call probes', async () => {
    tokens.report(KEY, 'accepted', false);
    const scope = nock(PLATFORM_URL).get('/v1/documents/a').reply(401, json({ message: 'unauthorized' })).get('/v1/documents/b').reply(200, json({ id: 'b' }));
    const request = client();
    expect((await failure(request.getUncached('documents.get', '/v1/documents/a'))).extensions.code).toBe('UNAUTHENTICATED');
    expect(tokens.verdict(KEY)).toBe('unknown');
    expect(await request.getUncached('documents.get', '/v1/documents/b')).toEqual({ id: 'b' });
    expect(tokens.verdict(KEY)).toBe('accepted');
    scope.done();
  });

  it('keeps what it learns under the key the request was admitted with', async () => {
    const scope = nock(PLATFORM_URL).get('/v1/documents/a').reply(200, json({ id: 'a' }));
    expect(await client({ tokenKey: 'admitted-key' }).getUncached('documents.get', '/v1/documents/a')).toEqual({ id: 'a' });
    expect([tokens.verdict('admitted-key'), tokens.verdict(KEY)]).toEqual(['accepted', 'unknown']);
    scope.done();
  });

  it('answers a call stopped while it waits for the probe as a call stopped in flight: UPSTREAM_TIMEOUT at the deadline, CANCELLED when the caller left', async () => {
    const probe = nock(PLATFORM_URL).get('/v1/documents/slow').delay(150).reply(200, json({ id: 'slow' }));
    const first = client().getUncached('documents.get', '/v1/documents/slow');
    const deadline = new AbortController();
    const left = new AbortController();
    const waitingAtDeadline = client({ signal: deadline.signal }).getUncached('documents.get', '/v1/documents/never-sent');
    const waitingForLeaver = client({ signal: left.signal }).getUncached('documents.get', '/v1/documents/never-sent');
    deadline.abort(new RequestDeadlineExceeded(50));
    left.abort(new Error('the caller closed the connection'));
    expect((await failure(waitingAtDeadline)).extensions.code).toBe('UPSTREAM_TIMEOUT');
    expect((await failure(waitingForLeaver)).extensions.code).toBe('CANCELLED');
    expect(await first).toEqual({ id: 'slow' });
    probe.done();
  });
});
