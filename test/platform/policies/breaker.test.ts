import { beforeEach, describe, expect, it } from '@jest/globals';
import { ErrorCode } from '../../../src/errors.ts';
import { CircuitOpen, RouteBreakers } from '../../../src/platform/breaker.ts';
import { PlatformError } from '../../../src/platform/platform-error.ts';
import { breakerGate, breakerPolicy } from '../../../src/platform/policies/breaker.ts';
import { deadline } from '../../../src/platform/policies/deadline.ts';
import type { Next, PlatformCall } from '../../../src/platform/policy.ts';
import { CallNotSent, type Answer } from '../../../src/platform/upstream-call.ts';
import { CallerGone, RequestDeadlineExceeded } from '../../../src/request/deadline.ts';
import { ManualClock } from '../manual-clock.ts';

const ROUTE = 'documents.get';
const RESPONSE_TIMEOUT_MS = 500;
const COOL_DOWN_MS = 1_000;

let clock: ManualClock;
let breakers: RouteBreakers;
let moves: string[];

beforeEach(() => {
  clock = new ManualClock();
  breakers = new RouteBreakers({ threshold: 2, cooldownMs: COOL_DOWN_MS }, clock);
  moves = [];
  breakers.onStateChange((state, route) => moves.push(`${route}:${state}`));
});

function call(overrides: Partial<PlatformCall> = {}): PlatformCall {
  return { route: ROUTE, method: 'GET', pathAndQuery: '/v1/documents/d1', authorization: 'Bearer t', headers: {}, callers: () => 1, ...overrides };
}

function answer(status: number): Answer {
  return { status, body: '', headers: {}, retries: 0 };
}

/** A `next` that answers `status` (or throws `error`), recording the calls it was given. */
function sending(outcome: number | unknown): Next & { calls: PlatformCall[] } {
  const calls: PlatformCall[] = [];
  return Object.assign(
    async (given: PlatformCall) => {
      calls.push(given);
      if (typeof outcome === 'number') return answer(outcome);
      throw outcome;
    },
    { calls },
  );
}

const policy = () => breakerPolicy(breakers, RESPONSE_TIMEOUT_MS, clock);
const state = () => breakers.for(ROUTE).state;

/** Opens the route's breaker with two failed calls. */
async function open(): Promise<void> {
  for (let i = 0; i < 2; i++) await policy().send(call(), sending(503));
  expect(state()).toBe('open');
}

describe('breakerGate', () => {
  it('passes a call on while the breaker is closed', async () => {
    const next = sending(200);
    await expect(breakerGate(breakers).send(call(), next)).resolves.toEqual(answer(200));
    expect(next.calls).toHaveLength(1);
    expect(breakerGate(breakers).name).toBe('breaker gate');
  });

  it('refuses at once while the breaker cools down, and passes the call on once it has', async () => {
    await open();
    const next = sending(200);
    await expect(breakerGate(breakers).send(call({ route: 'documents.update' }), next)).rejects.toBeInstanceOf(CircuitOpen);
    clock.advance(COOL_DOWN_MS);
    await expect(breakerGate(breakers).send(call(), next)).resolves.toEqual(answer(200));
    expect(next.calls).toHaveLength(1);
    // The gate changes nothing: the breaker still waits for its probe.
    expect(state()).toBe('open');
  });
});

describe('breakerPolicy: answers', () => {
  it('opens after threshold 5xx answers, which are still answered', async () => {
    await expect(policy().send(call(), sending(500))).resolves.toEqual(answer(500));
    expect(state()).toBe('closed');
    await expect(policy().send(call(), sending(503))).resolves.toEqual(answer(503));
    expect(moves).toEqual(['documents:open']);
  });

  it('counts a 4xx or a success as the platform being healthy: failures start over', async () => {
    await policy().send(call(), sending(502));
    await policy().send(call(), sending(404));
    await policy().send(call(), sending(502));
    await policy().send(call(), sending(200));
    await policy().send(call(), sending(502));
    expect(state()).toBe('closed');
  });

  it('refuses while open without sending, then lets one probe through, whose success closes it', async () => {
    await open();
    const refused = sending(200);
    await expect(policy().send(call(), refused)).rejects.toBeInstanceOf(CircuitOpen);
    expect(refused.calls).toEqual([]);
    clock.advance(COOL_DOWN_MS);
    await expect(policy().send(call(), sending(200))).resolves.toEqual(answer(200));
    expect(moves).toEqual(['documents:open', 'documents:half-open', 'documents:closed']);
  });

  it('admits only one probe at a time when half-open', async () => {
    await open();
    clock.advance(COOL_DOWN_MS);
    let answerProbe: (value: Answer) => void = () => undefined;
    const probe = policy().send(call(), () => new Promise<Answer>((resolve) => (answerProbe = resolve)));
    await expect(policy().send(call(), sending(200))).rejects.toBeInstanceOf(CircuitOpen);
    answerProbe(answer(503));
    await expect(probe).resolves.toEqual(answer(503));
    expect(moves).toEqual(['documents:open', 'documents:half-open', 'documents:open']);
  });
});

describe('breakerPolicy: failures', () => {
  it('counts a thrown failure once per caller waiting on the call', async () => {
    const error = new Error('socket hang up');
    await expect(policy().send(call({ callers: () => 2 }), sending(error))).rejects.toBe(error);
    expect(state()).toBe('open');
  });

  it('releases a probe that a policy did not send, so the next call probes', async () => {
    await open();
    clock.advance(COOL_DOWN_MS);
    const notSent = new CallNotSent(new PlatformError(ErrorCode.RATE_LIMITED, 'spent'));
    await expect(policy().send(call(), sending(notSent))).rejects.toBe(notSent);
    expect(state()).toBe('half-open');
    await expect(policy().send(call(), sending(200))).resolves.toEqual(answer(200));
    expect(state()).toBe('closed');
  });

  it('throws the reason of a call stopped before it starts (the deadline policy above it), telling the breaker nothing', async () => {
    const controller = new AbortController();
    const reason = new CallerGone();
    controller.abort(reason);
    const next = sending(200);
    const breaker = policy();
    await expect(deadline.send(call({ signal: controller.signal }), (given) => breaker.send(given, next))).rejects.toBe(reason);
    expect(next.calls).toEqual([]);
  });

  /** A call whose request stops it with `reason` after `waitedMs` on the clock. */
  async function stopped(reason: Error, waitedMs: number): Promise<void> {
    const controller = new AbortController();
    const next: Next = async () => {
      clock.advance(waitedMs);
      controller.abort(reason);
      throw reason;
    };
    await expect(policy().send(call({ signal: controller.signal, callers: () => 2 }), next)).rejects.toBe(reason);
  }

  it('does not count a call its caller hung up on, however long it waited', async () => {
    await stopped(new CallerGone(), 10 * RESPONSE_TIMEOUT_MS);
    await stopped(new CallerGone(), 10 * RESPONSE_TIMEOUT_MS);
    expect(state()).toBe('closed');
  });

  it('counts a call the deadline stopped once, and only after a response timeout of waiting', async () => {
    await stopped(new RequestDeadlineExceeded(300), RESPONSE_TIMEOUT_MS - 1);
    await stopped(new RequestDeadlineExceeded(300), RESPONSE_TIMEOUT_MS - 1);
    expect(state()).toBe('closed');
    await stopped(new RequestDeadlineExceeded(900), RESPONSE_TIMEOUT_MS);
    expect(state()).toBe('closed');
    await stopped(new RequestDeadlineExceeded(900), RESPONSE_TIMEOUT_MS);
    expect(state()).toBe('open');
  });
});

describe('breakerPolicy: timed-out attempts', () => {
  it('counts a timed-out attempt once, when told, and allows a retry only while closed', async () => {
    const told: boolean[] = [];
    const next: Next = async (given) => {
      told.push(given.attemptTimedOut!(), given.attemptTimedOut!());
      return answer(200);
    };
    await policy().send(call(), next);
    expect(told).toEqual([true, true]);
    // The success after the retry closed the count again.
    expect(state()).toBe('closed');
  });

  it('forbids the retry once the timeout opened the breaker, and does not count the failure again', async () => {
    const told: boolean[] = [];
    const error = new Error('timeout');
    const next: Next = async (given) => {
      told.push(given.attemptTimedOut!());
      throw error;
    };
    await expect(policy().send(call({ callers: () => 2 }), next)).rejects.toBe(error);
    expect(told).toEqual([false]);
    expect(moves).toEqual(['documents:open']);
  });

  it('does not count a 5xx after a timeout it was told of', async () => {
    const next: Next = async (given) => {
      given.attemptTimedOut!();
      return answer(503);
    };
    await policy().send(call(), next);
    expect(state()).toBe('closed');
    await policy().send(call(), sending(503));
    expect(state()).toBe('open');
  });
});
