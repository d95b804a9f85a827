import type { Worker } from 'node:cluster';
import { Asks } from '../shared-state/asks.ts';
import { claimLease, SeatCounts, type FeedShare, type Lease, type LeaseHeld, type PollOutcome, type Seat, type SeatRefusal, type SharedSeats } from './share.ts';

/**
 * One poller per feed across the workers of one instance (WORKERS > 1) without Redis: the primary
 * keeps each feed's lease and hands each poll's outcome to the other workers listening on the feed,
 * over node:cluster's IPC, as redis-share.ts does across replicas. Without it each worker would poll
 * every feed its subscribers landed on, one platform read per worker and interval. A primary that
 * does not answer a lead in time leaves the worker to poll for itself: subscribers are served either
 * way. IPC keeps a worker's messages in order, so its `listen` reaches the primary before its `lead`.
 */
type FeedMessage =
  | { feedShare: 'lead'; id: number; key: string; ttlMs: number }
  | { feedShare: 'seat'; id: number; key: string; perToken: number; max: number }
  | { feedShare: 'unseat'; id: number; key: string }
  | { feedShare: 'publish'; key: string; outcome: PollOutcome }
  | { feedShare: 'listen' | 'unlisten' | 'release'; key: string };

interface LeadReply {
  feedLeadReply: number;
  lead: true | LeaseHeld;
}

interface SeatReply {
  feedSeatReply: number;
  refusal: SeatRefusal | null;
}

interface OutcomeMessage {
  feedOutcome: string;
  outcome: PollOutcome;
}


function isFeedMessage(message: unknown): message is FeedMessage {
  return typeof message === 'object' && message !== null && typeof (message as { feedShare?: unknown }).feedShare === 'string' && typeof (message as { key?: unknown }).key === 'string';
}

/**
 * The primary's side (src/process/cluster.ts): every feed's lease and listeners, kept across the workers
 * each forked worker is attached to, on that worker's own IPC channel.
 */
export class FeedLeases {
  readonly #leases = new Map<string, Lease<number>>();
  /** Every worker's open subscriptions: by worker, each seat's token key (by the worker's seat id). */
  readonly #seats = new Map<number, Map<number, string>>();
  readonly #counts = new SeatCounts();
  readonly #listeners = new Map<string, Set<Worker>>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Serves a worker's feed messages; once it exits it holds no lease and hears no outcome, so another worker's poller takes its feeds at once. */
  attach(worker: Worker): void {
    worker.on('message', (message: unknown) => {
      if (isFeedMessage(message)) this.#receive(worker, message);
    });
    worker.once('exit', () => {
      for (const [key, lease] of this.#leases) if (lease.holder === worker.id) this.#leases.delete(key);
      for (const id of [...(this.#seats.get(worker.id)?.keys() ?? [])]) this.#unseat(worker.id, id);
      this.#seats.delete(worker.id);
      for (const key of [...this.#listeners.keys()]) forget(this.#listeners, key, worker);
    });
  }

  #receive(worker: Worker, message: FeedMessage): void {
    const key = message.key;
    switch (message.feedShare) {
      case 'lead': {
        const claim = claimLease(this.#leases.get(key), worker.id, this.#now(), message.ttlMs);
        if ('taken' in claim) this.#leases.set(key, claim.taken);
        const lead: true | LeaseHeld = 'taken' in claim ? true : claim;
        if (worker.isConnected()) worker.send({ feedLeadReply: message.id, lead } satisfies LeadReply);
        return;
      }
      case 'seat': {
        const refusal = this.#counts.refusal(key, message) ?? null;
        if (refusal === null) {
          let seats = this.#seats.get(worker.id);
          if (seats === undefined) this.#seats.set(worker.id, (seats = new Map()));
          seats.set(message.id, key);
          this.#counts.add(key);
        }
        if (worker.isConnected()) worker.send({ feedSeatReply: message.id, refusal } satisfies SeatReply);
        return;
      }
      case 'unseat':
        this.#unseat(worker.id, message.id);
        return;
      case 'publish':
        for (const other of this.#listeners.get(key) ?? []) {
          if (other !== worker && other.isConnected()) other.send({ feedOutcome: key, outcome: message.outcome } satisfies OutcomeMessage);
        }
        return;
      case 'listen': {
        let set = this.#listeners.get(key);
        if (set === undefined) this.#listeners.set(key, (set = new Set()));
        set.add(worker);
        return;
      }
      case 'unlisten':
        forget(this.#listeners, key, worker);
        return;
      case 'release':
        if (this.#leases.get(key)?.holder === worker.id) this.#leases.delete(key);
        return;
    }
  }

  #unseat(worker: number, id: number): void {
    const seats = this.#seats.get(worker);
    const key = seats?.get(id);
    if (key === undefined) return;
    seats!.delete(id);
    this.#counts.remove(key);
  }
}

function forget(listeners: Map<string, Set<Worker>>, key: string, worker: Worker): void {
  const set = listeners.get(key);
  if (set === undefined) return;
  set.delete(worker);
  if (set.size === 0) listeners.delete(key);
}

/** A worker's side. */
export class WorkerFeedShare implements FeedShare, SharedSeats {
  readonly #leads = new Asks<true | LeaseHeld>();
  /** A seat's answer: the refusal, null when taken, undefined when the primary did not answer in time. */
  readonly #seats = new Asks<SeatRefusal | null | undefined>();
  readonly seats: SharedSeats = this;
  readonly #receivers = new Map<string, (outcome: PollOutcome) => void>();
  /** How long a worker waits for the primary's answer to a lead before it polls for itself (SUBSCRIPTION_STORE_TIMEOUT_MS). */
  readonly #timeoutMs: number;
  readonly #listener = (message: unknown) => {
    if (typeof message !== 'object' || message === null) return;
    const reply = message as Partial<LeadReply & OutcomeMessage>;
    const seat = message as Partial<SeatReply>;
    if (typeof reply.feedLeadReply === 'number') this.#leads.answer(reply.feedLeadReply, reply.lead!);
    else if (typeof seat.feedSeatReply === 'number') this.#seats.answer(seat.feedSeatReply, seat.refusal ?? null);
    else if (typeof reply.feedOutcome === 'string' && reply.outcome !== undefined) this.#receivers.get(reply.feedOutcome)?.(reply.outcome);
  };

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    process.on('message', this.#listener);
  }

  lead(key: string, ttlMs: number): Promise<true | LeaseHeld> {
    return this.#leads.ask((id) => this.#send({ feedShare: 'lead', id, key, ttlMs }), this.#timeoutMs, () => true);
  }

  /** Asks the primary for a seat; a primary that does not answer in time leaves this worker's own counts to decide. */
  async take(tokenKey: string, limits: { readonly perToken: number; readonly max: number }): Promise<Seat | SeatRefusal | undefined> {
    let asked = -1;
    const refusal = await this.#seats.ask((id) => this.#send({ feedShare: 'seat', id: (asked = id), key: tokenKey, perToken: limits.perToken, max: limits.max }), this.#timeoutMs, () => undefined);
    const unseat = () => this.#send({ feedShare: 'unseat', id: asked, key: tokenKey });
    if (refusal === undefined) {
      // Counted by the primary should its answer come after all: given back.
      unseat();
      return undefined;
    }
    if (refusal !== null) return refusal;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        unseat();
      },
    };
  }

  publish(key: string, outcome: PollOutcome): void {
    this.#send({ feedShare: 'publish', key, outcome });
  }

  listen(key: string, receive: (outcome: PollOutcome) => void): () => void {
    this.#receivers.set(key, receive);
    this.#send({ feedShare: 'listen', key });
    return () => {
      if (this.#receivers.get(key) === receive) this.#receivers.delete(key);
      this.#send({ feedShare: 'unlisten', key });
    };
  }

  release(key: string): void {
    this.#send({ feedShare: 'release', key });
  }

  async close(): Promise<void> {
    process.off('message', this.#listener);
    this.#leads.settleAll(() => true);
    this.#seats.settleAll(() => undefined);
  }

  /** Sends to the primary; false when the channel is gone (the worker then polls alone). */
  #send(message: FeedMessage): boolean {
    if (!process.connected || process.send === undefined) return false;
    process.send(message);
    return true;
  }
}
