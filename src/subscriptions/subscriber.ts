import type { GraphQLError } from 'graphql';

/**
 * What a subscription sends, as the root value of its field (resolveEvent turns it into the field's
 * value or error): a value, or an error that is final (the subscription then ends) or not.
 */
export type FeedEvent = { readonly value: unknown } | { readonly error: GraphQLError; readonly final: boolean };

/**
 * The bytes every subscriber of the process holds, together (memory.ts): each charges what it
 * queues and what its stream buffers, and the budget drops those holding most once it is spent.
 * Declared here, where it is called, so the subscriber does not import its owner.
 */
export interface HeldBytes {
  /** The bytes `event` is counted for in a queue: measured once per event, whoever queues it. */
  sizeOf(event: FeedEvent): number;
  /** `subscriber` holds `delta` bytes more (or fewer). */
  change(subscriber: Subscriber, delta: number): void;
  /** `subscriber` ended: it holds nothing any more. */
  left(subscriber: Subscriber): void;
}

/**
 * One subscriber's events on their way to its transport: a bounded queue read as an async iterator.
 * A subscriber that does not read falls behind; past `limit` events waiting, or when the process's
 * byte budget is spent and it holds more than the others, it is dropped: its queue is emptied and
 * replaced by one final error, so its memory stays bounded whatever it does, and it learns why where
 * its transport can still say so.
 */
export class Subscriber implements AsyncIterableIterator<FeedEvent> {
  readonly #limit: number;
  readonly #queue: FeedEvent[] = [];
  #waiting: ((result: IteratorResult<FeedEvent>) => void) | undefined;
  /** No more events will be queued. */
  #ended = false;
  readonly #onReturn: () => void;
  #returned = false;
  readonly #bytes: HeldBytes | undefined;
  /** Bytes of the events queued, and of the stream's buffer as its transport last said. */
  #queuedBytes = 0;
  #bufferedBytes = 0;

  /** `onReturn` runs once, when the subscriber ends for any reason (its transport closed it, or the feed ended it). */
  constructor(limit: number, onReturn: () => void, bytes?: HeldBytes) {
    this.#limit = limit;
    this.#onReturn = onReturn;
    this.#bytes = bytes;
  }

  /** Events waiting to be read. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Bytes held: the events waiting and the stream's buffer. */
  get held(): number {
    return this.#queuedBytes + this.#bufferedBytes;
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
      this.drop(overflow());
      return false;
    } else {
      this.#queue.push(event);
      this.#charge(event, 1);
    }
    if ('error' in event && event.final) this.end();
    return true;
  }

  /** Empties the queue and ends with `error`: a subscriber that fell too far behind. */
  drop(error: GraphQLError): void {
    if (this.#ended) return;
    this.#clear();
    this.end({ error, final: true });
  }

  /** The bytes its stream holds unsent now (its transport says so while it waits for room). */
  buffered(bytes: number): void {
    const delta = bytes - this.#bufferedBytes;
    if (delta === 0 || this.#bytes === undefined || this.#returned) return;
    this.#bufferedBytes = bytes;
    this.#bytes.change(this, delta);
  }

  #charge(event: FeedEvent, sign: 1 | -1): void {
    // Once it has ended the budget no longer counts it (left): what it still queues is read out or dropped with it.
    if (this.#bytes === undefined || this.#returned) return;
    const bytes = sign * this.#bytes.sizeOf(event);
    this.#queuedBytes += bytes;
    this.#bytes.change(this, bytes);
  }

  #clear(): void {
    for (const event of this.#queue) this.#charge(event, -1);
    this.#queue.length = 0;
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
    this.#bytes?.left(this);
    this.#queuedBytes = 0;
    this.#bufferedBytes = 0;
    this.#onReturn();
  }

  next(): Promise<IteratorResult<FeedEvent>> {
    const event = this.#queue.shift();
    if (event !== undefined) {
      this.#charge(event, -1);
      return Promise.resolve({ value: event, done: false });
    }
    if (this.#ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.#waiting = resolve));
  }

  return(): Promise<IteratorResult<FeedEvent>> {
    this.#clear();
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error: unknown): Promise<IteratorResult<FeedEvent>> {
    this.#clear();
    this.end();
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
