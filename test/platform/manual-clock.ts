import type { Clock } from '../../src/platform/clock.ts';

interface Timer {
  at: number;
  ms: number;
  wake: () => void;
}

/**
 * A clock the test moves: now() stands still until advance(), and every sleep() is recorded and
 * wakes when the clock reaches its end (or at once when its signal aborts). With `autoAdvance`,
 * each sleep moves the clock by its whole length and wakes on the next turn of the event loop,
 * so code that waits runs through without real waiting, and now() still tells how long it waited.
 */
export class ManualClock implements Clock {
  /** Every wait asked for, in order, in milliseconds. */
  readonly waits: number[] = [];
  private time: number;
  private readonly timers = new Set<Timer>();
  private readonly autoAdvance: boolean;

  constructor(options: { start?: number; autoAdvance?: boolean } = {}) {
    this.time = options.start ?? 1_000_000;
    this.autoAdvance = options.autoAdvance ?? false;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.waits.push(ms);
    if (this.autoAdvance) {
      this.time += ms;
      return new Promise((resolve) => setImmediate(resolve));
    }
    return new Promise((resolve) => {
      const timer: Timer = {
        at: this.time + ms,
        ms,
        wake: () => {
          this.timers.delete(timer);
          signal?.removeEventListener('abort', timer.wake);
          resolve();
        },
      };
      if (signal?.aborted) return resolve();
      signal?.addEventListener('abort', timer.wake, { once: true });
      this.timers.add(timer);
    });
  }

  /** Waits not yet over, in milliseconds asked. */
  pending(): number[] {
    return [...this.timers].map((timer) => timer.ms);
  }

  /** Moves the clock and wakes every sleep whose end it reached. */
  advance(ms: number): void {
    this.time += ms;
    for (const timer of [...this.timers]) if (timer.at <= this.time) timer.wake();
  }
}
