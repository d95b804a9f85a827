/**
 * A token bucket kept as GCRA (the generic cell rate algorithm): per key one number, the
 * theoretical arrival time (TAT), the instant at which the bucket would be full again. A bucket of
 * `burst` tokens refilled at `perSecond` is full when TAT ≤ now and holds
 * (now + burst × interval − TAT) ÷ interval tokens otherwise. Taking `cost` tokens moves TAT forward
 * by cost × interval; it is allowed while TAT stays within burst × interval of now. The refill is
 * continuous: half a second after a spent burst at 10/s, five tokens are back.
 *
 * The same arithmetic runs in memory (below) and in Redis (redis-buckets.ts), so a caller sees one
 * behaviour whichever store counts it.
 */
export interface BucketPolicy {
  /** Names the policy in keys and in the `RateLimit` headers. */
  readonly name: string;
  /** Tokens added per second. */
  readonly perSecond: number;
  /** Tokens the bucket holds when full. */
  readonly burst: number;
}

/** What a bucket says after an operation, as the caller is shown it. */
export interface BucketState {
  /** Whether the operation was applied (a refused take changes nothing). */
  allowed: boolean;
  /** Whole tokens left. */
  available: number;
  /** Milliseconds until `cost` tokens are there (0 when allowed). */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again. */
  fullInMs: number;
}

export function intervalMs(policy: BucketPolicy): number {
  return 1_000 / policy.perSecond;
}

export function toleranceMs(policy: BucketPolicy): number {
  return policy.burst * intervalMs(policy);
}

/** The state shown for a bucket whose TAT is `tat` at `now`. */
export function stateOf(policy: BucketPolicy, tat: number, now: number, allowed: boolean, retryAfterMs = 0): BucketState {
  const interval = intervalMs(policy);
  const ahead = Math.max(0, tat - now);
  // A small epsilon: 10 tokens at 5/s after exactly two seconds is 10, not 9.999….
  const available = Math.min(policy.burst, Math.max(0, Math.floor((toleranceMs(policy) - ahead) / interval + 1e-9)));
  return { allowed, available, retryAfterMs: Math.max(0, retryAfterMs), fullInMs: ahead };
}

/**
 * Takes `cost` tokens if the bucket holds them; returns the new TAT, or undefined (and the wait)
 * when it does not. `stored` is the key's TAT, undefined for a full bucket.
 */
export function take(policy: BucketPolicy, stored: number | undefined, cost: number, now: number): { tat: number | undefined; state: BucketState } {
  const tat = Math.max(stored ?? now, now);
  const next = tat + cost * intervalMs(policy);
  const over = next - now - toleranceMs(policy);
  if (over > 1e-6) return { tat: undefined, state: stateOf(policy, tat, now, false, over) };
  return { tat: next, state: stateOf(policy, next, now, true) };
}

/**
 * Charges `delta` more tokens (or refunds −delta) without a check: what a request cost beyond (or
 * below) what it was charged up front. A charge may leave the bucket in debt, so the caller waits
 * longer; a refund never fills it beyond full.
 */
export function adjust(policy: BucketPolicy, stored: number | undefined, delta: number, now: number): { tat: number; state: BucketState } {
  const next = Math.max(Math.max(stored ?? now, now) + delta * intervalMs(policy), now);
  return { tat: next, state: stateOf(policy, next, now, true) };
}

/** Buckets kept in memory at most (per process, or in the primary for its workers): about 10 MB. */
export const MAX_BUCKETS = 100_000;

/** The operations a store of buckets offers; every one resolves, whatever the store's health. */
export interface BucketStore {
  take(policy: BucketPolicy, key: string, cost: number): Promise<BucketState>;
  adjust(policy: BucketPolicy, key: string, delta: number): Promise<BucketState>;
  close(): Promise<void>;
}

/**
 * Buckets in this process's memory, at most `maxKeys` of them. A bucket that is full again is the
 * same as no bucket, so its entry is dropped whenever it is met; entries are kept in the order of
 * their last change, so the oldest come first. Past `maxKeys`, the full buckets at the front go, and
 * if that frees nothing, the bucket changed longest ago: it is forgotten (as if full) only when more
 * than `maxKeys` callers are spending at once.
 */
export class MemoryBuckets implements BucketStore {
  readonly #tats = new Map<string, number>();
  readonly #maxKeys: number;
  readonly #clock: () => number;

  constructor(maxKeys: number, clock: () => number = Date.now) {
    this.#maxKeys = maxKeys;
    this.#clock = clock;
  }

  get size(): number {
    return this.#tats.size;
  }

  takeNow(policy: BucketPolicy, key: string, cost: number): BucketState {
    const now = this.#clock();
    const id = `${policy.name}:${key}`;
    const { tat, state } = take(policy, this.#tats.get(id), cost, now);
    if (tat !== undefined) this.#store(id, tat, now);
    return state;
  }

  adjustNow(policy: BucketPolicy, key: string, delta: number): BucketState {
    const now = this.#clock();
    const id = `${policy.name}:${key}`;
    const { tat, state } = adjust(policy, this.#tats.get(id), delta, now);
    this.#store(id, tat, now);
    return state;
  }

  /** The bucket's TAT in this clock's terms; undefined for a full bucket. */
  tatOf(policy: BucketPolicy, key: string): number | undefined {
    return this.#tats.get(`${policy.name}:${key}`);
  }

  /** Sets a bucket to the state a shared store reported (its TAT in this clock's terms). */
  mirror(policy: BucketPolicy, key: string, tat: number): void {
    this.#store(`${policy.name}:${key}`, tat, this.#clock());
  }

  async take(policy: BucketPolicy, key: string, cost: number): Promise<BucketState> {
    return this.takeNow(policy, key, cost);
  }

  async adjust(policy: BucketPolicy, key: string, delta: number): Promise<BucketState> {
    return this.adjustNow(policy, key, delta);
  }

  async close(): Promise<void> {
    this.#tats.clear();
  }

  #store(id: string, tat: number, now: number): void {
    this.#tats.delete(id);
    if (tat <= now) return;
    if (this.#tats.size >= this.#maxKeys) this.#makeRoom(now);
    this.#tats.set(id, tat);
  }

  #makeRoom(now: number): void {
    for (const [id, tat] of this.#tats) {
      if (tat > now) break;
      this.#tats.delete(id);
    }
    if (this.#tats.size >= this.#maxKeys) this.#tats.delete(this.#tats.keys().next().value!);
  }
}
