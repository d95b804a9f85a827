import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { systemClock } from '../../src/platform/clock.ts';

// The process's clock, on jest's fake timers: a wait ends when its time has passed, or when its
// signal aborts, and leaves no timer behind either way.

beforeEach(() => {
  jest.useFakeTimers();
});

afterEach(() => {
  jest.useRealTimers();
});

/** Whether the promise has settled, after pending callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await Promise.resolve();
  await Promise.resolve();
  return done;
}

describe('systemClock.sleep', () => {
  it('ends when its time has passed, not a millisecond before', async () => {
    const wait = systemClock.sleep(1_000);
    jest.advanceTimersByTime(999);
    expect(await settled(wait)).toBe(false);
    jest.advanceTimersByTime(1);
    expect(await settled(wait)).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('ends at once when its signal aborts, and its timer is cleared', async () => {
    const controller = new AbortController();
    const wait = systemClock.sleep(60_000, controller.signal);
    expect(await settled(wait)).toBe(false);
    expect(jest.getTimerCount()).toBe(1);
    controller.abort(new Error('caller gone'));
    expect(await settled(wait)).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('with a signal that never aborts, ends at its time and lets go of the signal', async () => {
    const controller = new AbortController();
    const removed = jest.spyOn(controller.signal, 'removeEventListener');
    const wait = systemClock.sleep(500, controller.signal);
    jest.advanceTimersByTime(500);
    expect(await settled(wait)).toBe(true);
    expect(removed).toHaveBeenCalledWith('abort', expect.any(Function));
  });

  it('does not wait at all when its signal has already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('deadline'));
    const wait = systemClock.sleep(60_000, controller.signal);
    expect(await settled(wait)).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('systemClock.now', () => {
  it('is the monotonic performance clock', () => {
    const before = performance.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(performance.now());
  });
});
