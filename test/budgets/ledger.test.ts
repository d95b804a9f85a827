import { describe, expect, it } from '@jest/globals';
import { MemoryBuckets, type BucketPolicy } from '../../src/budgets/bucket.ts';
import { RequestBudget } from '../../src/budgets/ledger.ts';
import type { PlatformError } from '../../src/platform/platform-error.ts';
import { CallNotSent } from '../../src/platform/upstream-call.ts';

// One operation's share of its caller's bucket, on a clock that stands still: nothing refills
// between the steps, so every number below is exact.

const POLICY: BucketPolicy = { name: 'platform-calls', perSecond: 1, burst: 5 };
const KEY = 'token:abc';

async function setup(reserve: number) {
  const buckets = new MemoryBuckets(100, () => 1_000_000);
  const ledger = new RequestBudget(buckets, POLICY, KEY);
  const reserved = await ledger.reserve(reserve);
  expect(reserved.allowed).toBe(true);
  return { buckets, ledger };
}

/** What is left in the bucket, read by taking nothing. */
const left = (buckets: MemoryBuckets) => buckets.takeNow(POLICY, KEY, 0).available;

async function refusal(drawing: Promise<void> | undefined): Promise<PlatformError> {
  try {
    await drawing;
  } catch (error) {
    expect(error).toBeInstanceOf(CallNotSent);
    return (error as CallNotSent).answer;
  }
  throw new Error('expected the draw to be refused');
}

describe('an operation ledger', () => {
  it('draws its reservation without touching the bucket, then the bucket unit by unit, then refuses', async () => {
    const { buckets, ledger } = await setup(2);
    expect([ledger.draw(), ledger.draw(), left(buckets)]).toEqual([undefined, undefined, 3]);
    for (let i = 0; i < 3; i++) await ledger.draw();
    expect([ledger.drawn, left(buckets)]).toEqual([5, 0]);
    const refused = await refusal(ledger.draw());
    expect([refused.message, refused.extensions]).toEqual([
      'Too many platform calls from this caller: this query needed more than its estimate and the budget is spent; retry after 1 s',
      { code: 'RATE_LIMITED', retryAfter: 1 },
    ]);
    expect(ledger.drawn).toBe(5);
    // Drawn beyond the reservation: the bucket is read back at the end, nothing given back.
    expect((await ledger.close())?.available).toBe(0);
  });

  it('gives back the reservation it did not draw at the end', async () => {
    const { buckets, ledger } = await setup(4);
    ledger.draw();
    expect(left(buckets)).toBe(1);
    expect((await ledger.close())?.available).toBe(4);
    expect(left(buckets)).toBe(4);
  });

  it('keeps one unit of an operation that made no call', async () => {
    const { buckets, ledger } = await setup(3);
    expect((await ledger.close())?.available).toBe(4);
    expect(left(buckets)).toBe(4);
  });

  it('draws from the bucket once closed: an attempt still in flight after the answer is paid too', async () => {
    const { buckets, ledger } = await setup(2);
    expect(await ledger.close()).toEqual(expect.objectContaining({ available: 4 }));
    await ledger.draw();
    expect(left(buckets)).toBe(3);
  });

  it('shows the reservation\'s own state when it drew exactly what it reserved', async () => {
    const { ledger } = await setup(2);
    ledger.draw();
    ledger.draw();
    expect(ledger.close()).toBeUndefined();
  });
});

describe('a draw whose request ends while it waits for the bucket', () => {
  it('gives the unit back and throws the signal\'s reason: the attempt is neither sent nor paid', async () => {
    const { buckets } = await setup(0);
    // The store answers only when told to: the request ends while the take is pending.
    let answer: () => void = () => undefined;
    const pending = Object.assign(Object.create(buckets) as MemoryBuckets, {
      take: (policy: BucketPolicy, key: string, cost: number) => new Promise<ReturnType<MemoryBuckets['takeNow']>>((resolve) => (answer = () => resolve(buckets.takeNow(policy, key, cost)))),
      adjust: (policy: BucketPolicy, key: string, delta: number) => buckets.adjust(policy, key, delta),
    });
    const waiting = new RequestBudget(pending, POLICY, KEY);
    const ended = new AbortController();
    const drawing = waiting.draw(ended.signal);
    ended.abort(new Error('the request ended'));
    answer();
    await expect(drawing).rejects.toThrow('the request ended');
    expect([waiting.drawn, left(buckets)]).toEqual([0, 5]);
  });
});
