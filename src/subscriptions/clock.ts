/**
 * The time a poller runs on: the real clock in the gateway, a manual one in tests, so that a test
 * of the pollers moves time itself instead of waiting on the machine's speed.
 */
export interface PollClock {
  now(): number;
  /** Calls `fn` once after `ms`; returns the cancel. */
  setTimer(ms: number, fn: () => void): () => void;
}

export const REAL_CLOCK: PollClock = {
  now: Date.now,
  setTimer(ms, fn) {
    const timer = setTimeout(fn, ms);
    // A poller alone never keeps the process up: the open streams do.
    timer.unref();
    return () => clearTimeout(timer);
  },
};
