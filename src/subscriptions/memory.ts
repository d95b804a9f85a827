import { GraphQLError } from 'graphql';
import { ErrorCode } from '../errors.ts';
import type { FeedEvent, HeldBytes, Subscriber } from './subscriber.ts';

/** Once the budget is spent, subscribers are dropped until the rest hold at most this share of it: one drop frees room for many events. */
const SHED_TO = 0.9;
/** What an error event is counted for: its message and code, about. */
const ERROR_EVENT_BYTES = 512;

/**
 * One byte budget over every subscriber of the process (SUBSCRIPTION_BUFFER_BYTES): the events each
 * queues (an event counted once per queue holding it, as large as its value's JSON: what its frame
 * will be about) and the bytes its stream's buffer holds unsent. A reader that keeps up holds next to
 * nothing; one that stops reading holds more and more. Once the sum passes the budget, the subscribers
 * holding most (the slowest readers) are dropped first, each told why, until the rest fit again.
 */
export class SubscriberMemory implements HeldBytes {
  readonly #limit: number;
  /** Told of each subscriber the budget drops (the metric of dropped subscribers counts it). */
  readonly #dropped: (() => void) | undefined;
  readonly #holders = new Set<Subscriber>();
  readonly #sizes = new WeakMap<FeedEvent, number>();
  #held = 0;
  #shedding = false;

  constructor(limitBytes: number, dropped?: () => void) {
    this.#limit = limitBytes;
    this.#dropped = dropped;
  }

  sizeOf(event: FeedEvent): number {
    let size = this.#sizes.get(event);
    if (size === undefined) {
      size = 'error' in event ? ERROR_EVENT_BYTES : (JSON.stringify(event.value)?.length ?? 0);
      this.#sizes.set(event, size);
    }
    return size;
  }

  change(subscriber: Subscriber, delta: number): void {
    this.#held += delta;
    if (delta > 0) this.#holders.add(subscriber);
    if (delta > 0 && this.#held > this.#limit) this.#shed();
  }

  left(subscriber: Subscriber): void {
    if (!this.#holders.delete(subscriber)) return;
    this.#held -= subscriber.held;
  }

  /** Drops the subscribers holding most until the rest hold at most SHED_TO of the budget. */
  #shed(): void {
    // A drop releases bytes and ends subscribers, which may queue nothing more meanwhile: one pass at a time.
    if (this.#shedding) return;
    this.#shedding = true;
    try {
      const heaviest = [...this.#holders].sort((a, b) => b.held - a.held);
      const error = new GraphQLError(`This gateway's subscribers hold more than the ${this.#limit} bytes it allows, and this one, reading slowest, held most and was dropped; subscribe again with the last cursor received`, {
        extensions: { code: ErrorCode.RATE_LIMITED, limit: 'SUBSCRIPTION_BUFFER_BYTES' },
      });
      for (const subscriber of heaviest) {
        if (this.#held <= this.#limit * SHED_TO) break;
        subscriber.drop(error);
        this.#dropped?.();
      }
    } finally {
      this.#shedding = false;
    }
  }
}
