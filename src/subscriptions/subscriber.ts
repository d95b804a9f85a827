import type { GraphQLError } from 'graphql';

/**
 * What a subscription sends, as the root value of its field (resolveEvent turns it into the field's
 * value or error): a value, or an error that is final (the subscription then ends) or not.
 */
export type FeedEvent = { readonly value: unknown } | { readonly error: GraphQLError; readonly final: boolean };

/**
 * One subscriber's events on their way to its transport: a bounded queue read as an async iterator.
 * A subscriber that does not read falls behind; past `limit` events waiting it is dropped: its
 * queue is emptied and replaced by one final error, so its memory stays bounded whatever it does,
 * and it learns why where its transport can still say so.
 */
export class Subscriber implements AsyncIterableIterator<FeedEvent> {
  readonly #limit: number;
  readonly #queue: FeedEvent[] = [];
  #waiting: ((result: IteratorResult<FeedEvent>) => void) | undefined;
  /** No more events will be queued. */
  #ended = false;
  readonly #onReturn: () => void;
  #returned = false;

  /** `onReturn` runs once, when the subscriber ends for any reason (its transport closed it, or the feed ended it). */
  constructor(limit: number, onReturn: () => void) {
    this.#limit = limit;
    this.#onReturn = onReturn;
  }

  /** Events waiting to be read. */
  get queued(): number {
    return this.#queue.length;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Queues an event; false when the subscriber has ended (or just got dropped for not reading). */
  push(event: FeedEvent, overflow: () => GraphQLError): boolean {
    if (this.#ended) return false;
    const waiting = this.#waiting;
    if (waiting !== undefined) {
      this.#waiting = undefined;
      waiting({ value: event, done: false });
    } else if (this.#queue.length >= this.#limit) {
      this.#queue.length = 0;
      this.end({ error: overflow(), final: true });
      return false;
    } else {
      this.#queue.push(event);
    }
    if ('error' in event && event.final) this.end();
    return true;
  }

  /** No more events after `last` (if given); the iterator finishes once the queue is read. */
  end(last?: FeedEvent): void {
    if (this.#ended) return;
    if (last !== undefined) {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      if (waiting !== undefined) waiting({ value: last, done: false });
      else this.#queue.push(last);
    }
    this.#ended = true;
    this.#release();
    if (this.#queue.length === 0 && this.#waiting !== undefined) {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      waiting({ value: undefined, done: true });
    }
  }

  #release(): void {
    if (this.#returned) return;
    this.#returned = true;
    this.#onReturn();
  }

  next(): Promise<IteratorResult<FeedEvent>> {
    const event = this.#queue.shift();
    if (event !== undefined) return Promise.resolve({ value: event, done: false });
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.#waiting = resolve));
  }

  return(): Promise<IteratorResult<FeedEvent>> {
    this.#queue.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error: unknown): Promise<IteratorResult<FeedEvent>> {
    this.#queue.length = 0;
    this.end();
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
