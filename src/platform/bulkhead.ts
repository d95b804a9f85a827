/** Why a call was not sent: its route already has as many calls in flight and waiting as it may. */
export class RouteBusy extends Error {
  override name = 'RouteBusy';

  constructor(capacity: number, queueCapacity: number) {
    super(`${capacity} calls in flight and ${queueCapacity} waiting`);
  }
}

interface Waiter {
  grant(): void;
}

/**
 * The gateway's one bulkhead: the calls something may have in flight (`capacity`)
 * and waiting for a slot (`queueCapacity`). The breaker-and-bulkhead policy keeps one per platform
 * route, across every request of the process; a request's document loader keeps
 * one with an unbounded queue for its own fetches (documents/loader.ts). A waiting
 * call whose signal aborts (its request's deadline, its caller gone) leaves the
 * queue at once, so a queue slot never outlives the caller holding it; slots
 * are granted in arrival order.
 *
 * Hand-written rather than cockatiel's bulkhead, which keeps an aborted call
 * in its queue until the call reaches the head: behind a hung route the queue
 * would fill with callers that are already gone, refusing live ones, and a
 * queued caller would learn of its own deadline only when a slot freed.
 */
export class Bulkhead {
  readonly capacity: number;
  readonly queueCapacity: number;
  /** Calls holding a slot. */
  inFlight = 0;
  /** Insertion-ordered: the first entry is the longest waiting; removal on abort is O(1). */
  readonly #waiting = new Set<Waiter>();

  constructor(capacity: number, queueCapacity: number) {
    this.capacity = capacity;
    this.queueCapacity = queueCapacity;
  }

  get queued(): number {
    return this.#waiting.size;
  }

  /**
   * Takes a slot: at once when one is free (returns undefined, no promise on the fast path), or a
   * promise that resolves when a slot is handed over. Throws (or rejects with) RouteBusy when the
   * queue is full, and rejects with the signal's reason when it aborts while waiting. Every acquire
   * that succeeded is followed by exactly one release().
   */
  acquire(signal?: AbortSignal): Promise<void> | undefined {
    if (this.inFlight < this.capacity) {
      this.inFlight++;
      return undefined;
    }
    if (this.#waiting.size >= this.queueCapacity) throw new RouteBusy(this.capacity, this.queueCapacity);
    return new Promise<void>((resolve, reject) => {
      if (signal === undefined) {
        this.#waiting.add({ grant: resolve });
        return;
      }
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', leave);
          resolve();
        },
      };
      const leave = () => {
        this.#waiting.delete(waiter);
        reject(signal.reason);
      };
      signal.addEventListener('abort', leave, { once: true });
      this.#waiting.add(waiter);
    });
  }

  /** Frees a slot, handing it straight to the longest-waiting call if there is one. */
  release(): void {
    const next = this.#waiting.values().next();
    if (next.done) {
      this.inFlight--;
      return;
    }
    this.#waiting.delete(next.value);
    next.value.grant();
  }
}
