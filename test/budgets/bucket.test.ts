import { describe, expect, it } from '@jest/globals';
import { adjust, MemoryBuckets, take, type BucketPolicy } from '../../src/budgets/bucket.ts';
import { bearerToken, canonicalAuthorization, tokenKey } from '../../src/request/caller-token.ts';
import { secondsToWait } from '../../src/budgets/index.ts';
import { TokenVerdicts } from '../../src/platform/token-verdicts.ts';
import { ManualClock } from '../platform/manual-clock.ts';
import { loadConfig } from '../../src/settings/config.ts';

const TEN_AT_FIVE: BucketPolicy = { name: 'calls', perSecond: 5, burst: 10 };

describe('the bucket (GCRA)', () => {
  it('refills continuously: a spent burst of 10 at 5/s holds 5 again one second later', () => {
    let now = 1_000_000;
    const buckets = new MemoryBuckets(100, () => now);
    const taken = Array.from({ length: 11 }, () => buckets.takeNow(TEN_AT_FIVE, 'caller', 1).allowed);
    expect(taken).toEqual([...Array<boolean>(10).fill(true), false]);
    now += 1_000;
    expect(Array.from({ length: 6 }, () => buckets.takeNow(TEN_AT_FIVE, 'caller', 1).allowed)).toEqual([true, true, true, true, true, false]);
  });

  it('takes a cost at once or not at all, and says when that many will be there', () => {
    const full = take(TEN_AT_FIVE, undefined, 3, 0);
    expect(full.state).toEqual({ allowed: true, available: 7, retryAfterMs: 0, fullInMs: 600 });
    // 7 left: a cost of 9 waits for 2 more, 400 ms at 5/s; nothing is taken.
    const refused = take(TEN_AT_FIVE, full.tat, 9, 0);
    expect(refused).toEqual({ tat: undefined, state: { allowed: false, available: 7, retryAfterMs: 400, fullInMs: 600 } });
  });

  it('charges past the estimate into debt and refunds never beyond full', () => {
    const debt = adjust(TEN_AT_FIVE, undefined, 12, 0);
    expect(debt.state).toEqual({ allowed: true, available: 0, retryAfterMs: 0, fullInMs: 2_400 });
    expect(adjust(TEN_AT_FIVE, debt.tat, -100, 0)).toEqual({ tat: 0, state: { allowed: true, available: 10, retryAfterMs: 0, fullInMs: 0 } });
  });

  it('keeps at most maxKeys buckets, dropping full ones first, then the oldest', () => {
    let now = 0;
    const buckets = new MemoryBuckets(3, () => now);
    for (const key of ['a', 'b', 'c']) buckets.takeNow(TEN_AT_FIVE, key, 10);
    expect(buckets.size).toBe(3);
    buckets.takeNow(TEN_AT_FIVE, 'd', 10);
    expect(buckets.size).toBe(3);
    // `a` was forgotten (as full), the others are still spent.
    expect(buckets.takeNow(TEN_AT_FIVE, 'a', 1).allowed).toBe(true);
    expect(buckets.takeNow(TEN_AT_FIVE, 'c', 1).allowed).toBe(false);
    now += 10_000;
    // Full again: a bucket that refilled is dropped when met, so a million callers one after another hold nothing.
    for (let i = 0; i < 1_000; i++) buckets.takeNow(TEN_AT_FIVE, `caller-${i}`, 0);
    expect(buckets.size).toBeLessThanOrEqual(3);
  });

  it('rounds Retry-After up to whole seconds, at least 1', () => {
    expect([0, 1, 999, 1000, 1001, 2500].map(secondsToWait)).toEqual([1, 1, 1, 1, 2, 3]);
  });
});

describe('one caller per token', () => {
  it('reads the bearer token in any spelling of the scheme and spacing, and nothing else', () => {
    for (const header of ['Bearer T0k.en-1', 'bearer T0k.en-1', 'BEARER T0k.en-1', 'BeArEr  T0k.en-1', 'Bearer\tT0k.en-1 ']) expect(bearerToken(header)).toBe('T0k.en-1');
    for (const header of [undefined, '', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Bearer a b', 'T0k.en-1', 'Bearer: T0k.en-1 x']) expect(bearerToken(header)).toBeUndefined();
    expect(canonicalAuthorization('T0k.en-1')).toBe('Bearer T0k.en-1');
  });

  it('keys a token by a truncated SHA-256, never the token itself', () => {
    expect(tokenKey('secret-token-1234')).toBe('10e9d75218bfbda3fe8120b4302a306a');
    expect(tokenKey('secret-token-1234')).not.toBe(tokenKey('secret-token-1235'));
  });
});

describe('tokens the platform refused or accepted', () => {
  it('lets one probe go for an unknown token and holds the others until its outcome', async () => {
    const tokens = new TokenVerdicts();
    expect(await tokens.admit('k')).toBe('probe');
    const waiting = [tokens.admit('k'), tokens.admit('k')];
    let settled = false;
    void Promise.all(waiting).then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    tokens.report('k', 'refused', true);
    expect(await Promise.all(waiting)).toEqual(['refused', 'refused']);
    expect(tokens.verdict('k')).toBe('refused');
  });

  it('lets the waiting calls go in parallel once the probe was accepted, and the next one probe when it showed nothing', async () => {
    const tokens = new TokenVerdicts();
    expect(await tokens.admit('a')).toBe('probe');
    const next = tokens.admit('a');
    tokens.report('a', 'unknown', true);
    expect(await next).toBe('probe');
    const others = [tokens.admit('a'), tokens.admit('a')];
    tokens.report('a', 'accepted', true);
    expect(await Promise.all(others)).toEqual(['go', 'go']);
  });

  it('forgets a refused token after its time, and keeps at most the bound', () => {
    const clock = new ManualClock();
    const tokens = new TokenVerdicts({ maxTokens: 2, clock });
    tokens.report('x', 'refused', false);
    tokens.report('y', 'refused', false);
    tokens.report('z', 'refused', false);
    expect(['x', 'y', 'z'].map((key) => tokens.verdict(key))).toEqual(['unknown', 'refused', 'refused']);
    clock.advance(60_001);
    expect(tokens.verdict('z')).toBe('unknown');
    expect(tokens.sizes).toEqual({ accepted: 0, refused: 1, probes: 0 });
  });
});

describe('budget settings', () => {
  it('reads the bucket in platform calls, and refuses settings it cannot keep', () => {
    expect(loadConfig({}).rateLimit).toBeUndefined();
    expect(loadConfig({ RATE_LIMIT_PER_SECOND: '20', RATE_LIMIT_BURST: '200' }).rateLimit).toEqual({ perSecond: 20, burst: 200 });
    expect(loadConfig({ RATE_LIMIT_PER_SECOND: '2.5' }).rateLimit).toEqual({ perSecond: 2.5, burst: 3 });
    expect(loadConfig({}).authFailures).toEqual({ perMinute: 30, burst: 10 });
    expect(() => loadConfig({ RATE_LIMIT_PER_SECOND: '0.001', RATE_LIMIT_BURST: '100' })).toThrow('RATE_LIMIT_BURST: RATE_LIMIT_BURST ÷ RATE_LIMIT_PER_SECOND must not exceed 86400 s (one day)');
    expect(() => loadConfig({ REDIS_URL: 'redis://cache:6379', RATE_LIMIT_REDIS_URL: 'redis://cache:6379' })).toThrow(
      'RATE_LIMIT_REDIS_URL: must be a Redis of its own (maxmemory-policy noeviction), not REDIS_URL: persisted queries would evict budgets',
    );
    expect(loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1' }).trustedProxies).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(() => loadConfig({ TRUSTED_PROXIES: 'proxy.example.com' })).toThrow('TRUSTED_PROXIES: not an address or CIDR list');
  });
});
