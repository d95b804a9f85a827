/**
 * What this process has learned of tokens from the platform's answers, by token key (a hash): a
 * token the platform answered with anything but 401 is **accepted**; one it answered 401 is
 * **refused**. A made-up token must cost the platform at most one refused call:
 * - a token not known accepted makes its calls one at a time: the first goes alone (the probe) and
 *   the others wait for its outcome, in this request and in any other carrying the same token;
 * - a 401 for a token accepted until now makes it unknown again (its next call probes), not refused;
 * - once refused, every call of that token fails as UNAUTHENTICATED without being sent, for
 *   REFUSED_TOKEN_TTL_MS;
 * - a probe whose outcome says nothing of the token (a 5xx, a timeout) lets the next waiting call
 *   probe in turn, and a probe slower than PROBE_PATIENCE_MS lets the waiting calls go;
 * - a GET identical to one in flight joins it (PlatformHttp's shared reads) without waiting: it costs
 *   the platform nothing.
 * Both lists are bounded (oldest forgotten first) and expire, so nothing a caller sends can grow them
 * without end, and a token the platform starts or stops accepting is seen again soon.
 */
const ACCEPTED_TOKEN_TTL_MS = 10 * 60_000;
const REFUSED_TOKEN_TTL_MS = 60_000;
const MAX_REMEMBERED_TOKENS = 100_000;

/**
 * How long the calls waiting on a probe wait before going anyway: a platform refuses a token in
 * milliseconds, and one too slow to answer a probe in time would otherwise hold every field of the
 * request behind one call (a hung route must not take the healthy ones with it).
 */
const PROBE_PATIENCE_MS = 250;

export type TokenVerdict = 'accepted' | 'refused' | 'unknown';

/** A Map in insertion order whose entries expire and whose size is capped (the oldest go first). */
class ExpiringSet {
  readonly #expiries = new Map<string, number>();
  readonly #ttlMs: number;
  readonly #max: number;

  constructor(ttlMs: number, max: number) {
    this.#ttlMs = ttlMs;
    this.#max = max;
  }

  has(key: string, now: number): boolean {
    const expiry = this.#expiries.get(key);
    if (expiry === undefined) return false;
    if (expiry > now) return true;
    this.#expiries.delete(key);
    return false;
  }

  /** Whether the key expires more than half its lifetime from now (re-adding it would change little). */
  fresh(key: string, now: number): boolean {
    const expiry = this.#expiries.get(key);
    return expiry !== undefined && expiry - now > this.#ttlMs / 2;
  }

  add(key: string, now: number): void {
    this.#expiries.delete(key);
    if (this.#expiries.size >= this.#max) this.#expiries.delete(this.#expiries.keys().next().value!);
    this.#expiries.set(key, now + this.#ttlMs);
  }

  delete(key: string): void {
    this.#expiries.delete(key);
  }

  get size(): number {
    return this.#expiries.size;
  }
}

export class TokenVerdicts {
  readonly #accepted: ExpiringSet;
  readonly #refused: ExpiringSet;
  /** Token key → its probe in flight: settled once the probe's outcome is reported. */
  readonly #probes = new Map<string, { done: Promise<void>; settle: () => void }>();
  readonly #clock: () => number;

  constructor(options: { maxTokens?: number; clock?: () => number } = {}) {
    const max = options.maxTokens ?? MAX_REMEMBERED_TOKENS;
    this.#accepted = new ExpiringSet(ACCEPTED_TOKEN_TTL_MS, max);
    this.#refused = new ExpiringSet(REFUSED_TOKEN_TTL_MS, max);
    this.#clock = options.clock ?? Date.now;
  }

  verdict(key: string): TokenVerdict {
    const now = this.#clock();
    if (this.#accepted.has(key, now)) return 'accepted';
    if (this.#refused.has(key, now)) return 'refused';
    return 'unknown';
  }

  /** Remembered tokens, for tests and diagnostics. */
  get sizes(): { accepted: number; refused: number; probes: number } {
    return { accepted: this.#accepted.size, refused: this.#refused.size, probes: this.#probes.size };
  }

  /**
   * Waits until a call with this token may be sent: at once for an accepted token; for an unknown one,
   * when no probe is in flight (the call is then the probe: `report` must follow). Resolves to
   * 'refused' when the token is refused, without sending anything.
   */
  async admit(key: string, signal?: AbortSignal): Promise<'go' | 'probe' | 'refused'> {
    for (;;) {
      const verdict = this.verdict(key);
      if (verdict === 'accepted') return 'go';
      if (verdict === 'refused') return 'refused';
      const probe = this.#probes.get(key);
      if (probe === undefined) {
        let settle!: () => void;
        const done = new Promise<void>((resolve) => (settle = resolve));
        this.#probes.set(key, { done, settle });
        return 'probe';
      }
      if (!(await waitOrAbort(probe.done, signal, PROBE_PATIENCE_MS))) return 'go';
    }
  }

  /** What a call with this token showed; a probe's report lets the calls waiting on it go. */
  report(key: string, outcome: TokenVerdict, probe: boolean): void {
    const now = this.#clock();
    if (outcome === 'accepted') {
      this.#refused.delete(key);
      // Every accepted call reports: a token re-added at most every half lifetime keeps its place
      // among the newest without moving in the map on each call.
      if (!this.#accepted.fresh(key, now)) this.#accepted.add(key, now);
    } else if (outcome === 'refused') {
      // A token accepted until now (one 401 of one route, or a token that just expired) becomes
      // unknown: its next call probes alone, and a second 401 refuses it.
      if (this.#accepted.has(key, now)) this.#accepted.delete(key);
      else this.#refused.add(key, now);
    }
    if (!probe) return;
    const inFlight = this.#probes.get(key);
    this.#probes.delete(key);
    inFlight?.settle();
  }
}

/** True once the probe settled, false when patience ran out first; rejects when the request is stopped. */
function waitOrAbort(promise: Promise<void>, signal: AbortSignal | undefined, patienceMs: number): Promise<boolean> {
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve(false);
    }, patienceMs);
    signal?.addEventListener('abort', abort, { once: true });
    void promise.then(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      resolve(true);
    });
  });
}
