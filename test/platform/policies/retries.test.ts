import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { RequestError, TimeoutError } from 'got';
import { ErrorCode } from '../../../src/errors.ts';
import { PlatformError } from '../../../src/platform/platform-error.ts';
import type { Next, PlatformCall } from '../../../src/platform/policy.ts';
import { retries, retriesOf, type RetrySettings } from '../../../src/platform/policies/retries.ts';
import { CallNotSent, type Answer } from '../../../src/platform/upstream-call.ts';
import { ManualClock } from '../manual-clock.ts';

const SETTINGS: RetrySettings = { limit: 2, baseMs: 100, retryAfterCapMs: 5_000 };

function call(overrides: Partial<PlatformCall> = {}): PlatformCall {
  return { route: 'exceptions.list', method: 'GET', pathAndQuery: '/exceptions', authorization: 'Bearer t', headers: {}, callers: () => 1, ...overrides };
}

function answer(status: number, headers: Record<string, string> = {}): Answer {
  return { status, body: `body ${status}`, headers, retries: 0 };
}

function networkError(code: string): RequestError {
  return new RequestError(`failed: ${code}`, { code }, {} as never);
}

function timeout(): TimeoutError {
  const cause = Object.assign(new Error('Timeout awaiting response'), { code: 'ETIMEDOUT', event: 'response' });
  return new TimeoutError(cause as ConstructorParameters<typeof TimeoutError>[0], {} as never, {} as never);
}

/** A `next` that answers (or throws) each outcome in turn, counting the attempts. */
function attempts(...outcomes: (Answer | Error)[]): Next & { made: number } {
  const next = Object.assign(
    async () => {
      const outcome = outcomes[next.made++];
      if (outcome === undefined) throw new Error('one attempt too many');
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
    { made: 0 },
  );
  return next;
}

let clock: ManualClock;
beforeEach(() => {
  clock = new ManualClock({ autoAdvance: true });
  // Back-off is half to all of base × 2^(retry-1): with 0.5, three quarters of it.
  jest.spyOn(Math, 'random').mockReturnValue(0.5);
});
afterEach(() => {
  jest.restoreAllMocks();
});

describe('the retries policy', () => {
  it('is named retries', () => {
    expect(retries(SETTINGS, clock).name).toBe('retries');
  });

  it('retries a 503 and answers the next attempt, with the retries it took', async () => {
    const next = attempts(answer(503), answer(200));
    await expect(retries(SETTINGS, clock).send(call(), next)).resolves.toEqual({ ...answer(200), retries: 1 });
    expect(next.made).toBe(2);
    expect(clock.waits).toEqual([75]);
  });

  it('retries 429, 502 and 504 too, backing off longer each time, and answers the last when the limit is reached', async () => {
    const next = attempts(answer(429), answer(502), answer(504));
    await expect(retries(SETTINGS, clock).send(call(), next)).resolves.toEqual({ ...answer(504), retries: 2 });
    expect(clock.waits).toEqual([75, 150]);
  });

  it('backs off between half and all of the ceiling', async () => {
    jest.spyOn(Math, 'random').mockReturnValueOnce(0).mockReturnValueOnce(0.9999);
    await retries(SETTINGS, clock).send(call(), attempts(answer(503), answer(503), answer(200)));
    expect(clock.waits).toEqual([50, 200]);
  });

  it('does not retry a 500, a 4xx or a success', async () => {
    for (const status of [500, 404, 200]) {
      const next = attempts(answer(status));
      await expect(retries(SETTINGS, clock).send(call(), next)).resolves.toEqual(answer(status));
      expect(next.made).toBe(1);
    }
    expect(clock.waits).toEqual([]);
  });

  it('sends a PUT once, and every call once with a limit of zero', async () => {
    const put = attempts(answer(503));
    await expect(retries(SETTINGS, clock).send(call({ method: 'PUT' }), put)).resolves.toEqual(answer(503));
    const none = attempts(answer(503));
    await expect(retries({ ...SETTINGS, limit: 0 }, clock).send(call(), none)).resolves.toEqual(answer(503));
    expect([put.made, none.made, clock.waits]).toEqual([1, 1, []]);
  });
});

describe('Retry-After', () => {
  it('waits the seconds a 503 or 429 asks for, up to the cap', async () => {
    await retries(SETTINGS, clock).send(call(), attempts(answer(503, { 'retry-after': '2' }), answer(429, { 'retry-after': '0' }), answer(200)));
    expect(clock.waits).toEqual([2_000, 0]);
  });

  it('does not retry when the wait asked for is over the cap', async () => {
    const next = attempts(answer(503, { 'retry-after': '6' }));
    await expect(retries(SETTINGS, clock).send(call(), next)).resolves.toEqual(answer(503, { 'retry-after': '6' }));
    expect([next.made, clock.waits]).toEqual([1, []]);
  });

  it('reads an HTTP date, a past one as no wait', async () => {
    await retries(SETTINGS, clock).send(call(), attempts(answer(503, { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }), answer(200)));
    expect(clock.waits).toEqual([0]);
    const far = answer(503, { 'retry-after': 'Fri, 01 Jan 2100 00:00:00 GMT' });
    await expect(retries(SETTINGS, clock).send(call(), attempts(far))).resolves.toEqual(far);
  });

  it('backs off when the header is unreadable or empty, and for a 502 or 504 whatever it says', async () => {
    const next = attempts(answer(503, { 'retry-after': 'soon' }), answer(503, { 'retry-after': ' ' }), answer(200));
    await retries(SETTINGS, clock).send(call(), next);
    await retries(SETTINGS, clock).send(call(), attempts(answer(502, { 'retry-after': '1' }), answer(504, { 'retry-after': '60' }), answer(200)));
    expect(clock.waits).toEqual([75, 150, 75, 150]);
  });
});

describe('network failures', () => {
  it('retries a reset or refusal and answers the next attempt', async () => {
    const next = attempts(networkError('ECONNRESET'), networkError('ECONNREFUSED'), answer(200));
    await expect(retries(SETTINGS, clock).send(call(), next)).resolves.toEqual({ ...answer(200), retries: 2 });
    expect(clock.waits).toEqual([75, 150]);
  });

  it('throws the last failure when the limit is reached, with the retries it took', async () => {
    const last = networkError('EAI_AGAIN');
    await expect(retries(SETTINGS, clock).send(call(), attempts(networkError('ENOTFOUND'), networkError('EPIPE'), last))).rejects.toBe(last);
    expect(retriesOf(last)).toBe(2);
  });

  it('does not retry another request error, or an error that is not got’s', async () => {
    for (const error of [networkError('ERR_BODY_PARSE_FAILURE'), new Error('bug')]) {
      const next = attempts(error);
      await expect(retries(SETTINGS, clock).send(call(), next)).rejects.toBe(error);
      expect([next.made, retriesOf(error)]).toEqual([1, 0]);
    }
    expect(clock.waits).toEqual([]);
  });

  it('tells a timed-out attempt to the breaker, and does not retry when it says no', async () => {
    const told: string[] = [];
    const error = timeout();
    const closed = attempts(timeout(), answer(200));
    await expect(retries(SETTINGS, clock).send(call({ attemptTimedOut: () => (told.push('closed'), true) }), closed)).resolves.toEqual({ ...answer(200), retries: 1 });
    await expect(retries(SETTINGS, clock).send(call({ attemptTimedOut: () => (told.push('open'), false) }), attempts(error))).rejects.toBe(error);
    expect(told).toEqual(['closed', 'open']);
    // Without a breaker a timeout is retried.
    await expect(retries(SETTINGS, clock).send(call(), attempts(timeout(), answer(200)))).resolves.toEqual({ ...answer(200), retries: 1 });
  });
});

describe('a retry that is not sent', () => {
  it('leaves the last answer standing when the budget does not pay for the retry', async () => {
    const notSent = new CallNotSent(new PlatformError(ErrorCode.RATE_LIMITED, 'spent', { retryAfter: 1 }));
    const next = attempts(answer(503), notSent);
    await expect(retries(SETTINGS, clock).send(call(), next)).resolves.toEqual(answer(503));
    expect(next.made).toBe(2);
  });

  it('throws a first attempt that is not sent', async () => {
    const notSent = new CallNotSent(new PlatformError(ErrorCode.RATE_LIMITED, 'spent', { retryAfter: 1 }));
    await expect(retries(SETTINGS, clock).send(call(), attempts(notSent))).rejects.toBe(notSent);
  });

  it('stops when the call is stopped during its wait, with the stop’s reason', async () => {
    const controller = new AbortController();
    const reason = new Error('deadline');
    const next = attempts(answer(503), answer(200));
    const stopping: Next = async (given) => {
      const outcome = await next(given);
      controller.abort(reason);
      return outcome;
    };
    await expect(retries(SETTINGS, new ManualClock()).send(call({ signal: controller.signal }), stopping)).rejects.toBe(reason);
    expect(next.made).toBe(1);
  });
});

describe('retriesOf', () => {
  it('is undefined for a failure that did not pass the policy, or a value that is not an object', () => {
    expect(retriesOf(new Error('elsewhere'))).toBeUndefined();
    expect(retriesOf('text')).toBeUndefined();
    expect(retriesOf(null)).toBeUndefined();
  });
});
