/**
 * Where the platform seam reads the time and waits: breaker cool-downs, retry back-off, and how
 * long a stopped call had waited. One per PolicyChain, so a test can drive every wait of the
 * seam through its own clock instead of sleeping through them.
 */
export interface Clock {
  /** Milliseconds on a monotonic scale; only differences mean anything. */
  now(): number;
  /** Resolves after `ms`, or as soon as `signal` aborts (the waiter checks its signal after). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The process's own time: performance.now() (monotonic, unlike Date.now()) and timers. */
export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) {
        resolve();
        return;
      }
      const wake = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      signal?.addEventListener('abort', wake, { once: true });
    }),
};
