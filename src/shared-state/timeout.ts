/**
 * The one bound on a call to a shared store (Redis, or the worker group's primary): a store that
 * hangs, stopped or unreachable with its socket still open, is treated as one that is down. The
 * clients' own timeouts do not do this: node-redis's `timeout` lapses once a command is written, and
 * a stopped server accepts the write.
 */

/** A store call that got no answer in time. */
export class Timeout extends Error {
  /** How late the timer fired: the event loop was busy that long, not Redis. */
  readonly lagMs: number;

  constructor(ms: number, lagMs: number) {
    super(`no answer within ${ms} ms`);
    this.lagMs = lagMs;
  }
}

/**
 * The promise, or Timeout after `ms`. The timer runs on this process's event loop: when the loop
 * stalls, it fires late, possibly beside a reply that arrived meanwhile and is not read yet (timers
 * run before I/O in a turn of the loop). So the verdict waits one more turn (setImmediate runs after
 * the I/O phase): a reply already received is read first, and only a reply still missing times out.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let lagged = false;
    const arm = (): ReturnType<typeof setTimeout> => {
      const due = performance.now() + ms;
      return setTimeout(() => {
        const lagMs = performance.now() - due;
        setImmediate(() => {
          if (settled) return;
          // The loop itself was late by half the wait or more: the command had no fair chance to be
          // sent and answered. It gets one more wait before it counts as the store's failure.
          if (lagMs >= ms / 2 && !lagged) {
            lagged = true;
            timer = arm();
            return;
          }
          settled = true;
          reject(new Timeout(ms, lagMs));
        });
      }, ms);
    };
    let timer = arm();
    promise.then(
      (value) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
