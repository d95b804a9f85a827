/**
 * What one poll found, as the replica that polled hands it to the others (JSON): the data read
 * (a list feed's records, a record feed's record), a poll the budget did not pay (with the seconds
 * its refusal named, or none when the feed gave its turn to another of the token's), or a failure
 * with its error (`ended`: the feed is over; `refused`: the platform refused the token).
 */
export type PollOutcome =
  | { readonly kind: 'data'; readonly data: unknown; readonly at: number }
  | { readonly kind: 'skipped'; readonly retryAfter?: number }
  | { readonly kind: 'failed' | 'ended' | 'refused'; readonly error: { readonly message: string; readonly extensions: Record<string, unknown> } };

/** Another replica holds a feed's lease for `heldForMs` more milliseconds. */
export interface LeaseHeld {
  readonly heldForMs: number;
}

/** Who holds a feed's lease, until when (epoch milliseconds). */
export interface Lease<Holder> {
  readonly holder: Holder;
  readonly until: number;
}

/**
 * The lease rule, stated once: a claimant takes a feed's lease, or renews it, for `ttlMs` when it is
 * free, its own already, or lapsed; else it learns how long the holder's has left. The primary of a
 * group applies it here (worker-share.ts); Redis runs the same rule as one Lua script, atomically
 * (LEAD in redis-share.ts).
 */
export function claimLease<Holder>(lease: Lease<Holder> | undefined, claimant: Holder, now: number, ttlMs: number): { taken: Lease<Holder> } | LeaseHeld {
  if (lease === undefined || lease.holder === claimant || lease.until <= now) return { taken: { holder: claimant, until: now + ttlMs } };
  return { heldForMs: lease.until - now };
}

/** The limit that refuses one more open subscription. */
export type SeatRefusal = 'SUBSCRIPTIONS_PER_TOKEN' | 'MAX_SUBSCRIPTIONS';

/**
 * Open subscriptions counted per token and in all, and the cap one more would pass, the whole rule
 * of SUBSCRIPTIONS_PER_TOKEN and MAX_SUBSCRIPTIONS: a process counts its own (hub.ts) and a group's
 * primary its workers' (worker-share.ts); Redis runs the same rule as one Lua script (SEAT in
 * redis-share.ts).
 */
export class SeatCounts {
  readonly #perToken = new Map<string, number>();
  #all = 0;

  /** The cap one more subscription of `tokenKey` would pass, if any. */
  refusal(tokenKey: string, limits: { readonly perToken: number; readonly max: number }): SeatRefusal | undefined {
    if (this.#all >= limits.max) return 'MAX_SUBSCRIPTIONS';
    if ((this.#perToken.get(tokenKey) ?? 0) >= limits.perToken) return 'SUBSCRIPTIONS_PER_TOKEN';
    return undefined;
  }

  add(tokenKey: string): void {
    this.#perToken.set(tokenKey, (this.#perToken.get(tokenKey) ?? 0) + 1);
    this.#all += 1;
  }

  remove(tokenKey: string): void {
    const left = (this.#perToken.get(tokenKey) ?? 1) - 1;
    if (left > 0) this.#perToken.set(tokenKey, left);
    else this.#perToken.delete(tokenKey);
    this.#all -= 1;
  }
}

/** An open subscription counted in the shared store; released when it ends. */
export interface Seat {
  release(): void;
}

/**
 * Open subscriptions counted across the workers of an instance (the primary counts) or across the
 * replicas on one Redis, so that SUBSCRIPTIONS_PER_TOKEN and MAX_SUBSCRIPTIONS bound them all
 * together. A store that does not answer within its timeout answers `undefined`: the process's own
 * counts decide alone meanwhile (each process still holds to both limits).
 */
export interface SharedSeats {
  take(tokenKey: string, limits: { readonly perToken: number; readonly max: number }): Promise<Seat | SeatRefusal | undefined>;
}

/**
 * Which replica polls each feed, and how its outcomes reach the others. Alone (no shared store),
 * every poller polls for itself; with Redis (redis-share.ts), one replica holds a feed's lease and
 * polls, the others receive its outcomes.
 */
export interface FeedShare {
  /**
   * Whether this replica polls `key` now: `true` when it took or renewed the lease for `ttlMs`; else
   * how long another replica's lease has left, so that this one asks again when it runs out.
   */
  lead(key: string, ttlMs: number): Promise<true | LeaseHeld>;
  /** Hands a poll's outcome to the other replicas' pollers of `key`. */
  publish(key: string, outcome: PollOutcome): void;
  /** Outcomes of `key` the replica holding its lease published, until the returned stop. */
  listen(key: string, receive: (outcome: PollOutcome) => void): () => void;
  /** This replica's poller of `key` stopped: its lease, if it holds it, goes at once. */
  release(key: string): void;
  close(): Promise<void>;
  /** With a shared store, the open subscriptions counted across every process on it. */
  readonly seats?: SharedSeats;
}

/** One replica alone: it polls every feed itself. */
export const ALONE: FeedShare = {
  lead: () => Promise.resolve(true as const),
  publish: () => undefined,
  listen: () => () => undefined,
  release: () => undefined,
  close: () => Promise.resolve(),
};
