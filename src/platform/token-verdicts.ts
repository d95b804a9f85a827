import { systemClock, type Clock } from './clock.ts';

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
 *   probe in turn; while no probe has settled for PROBE_PATIENCE_MS since the newest one started,
 *   one more waiting call goes as a further probe (preferably to a route no probe is waiting on),
 *   and the others keep waiting, on whichever probe settles first;
 * - a GET identical to one in flight joins it (PolicyChain's shared reads) without waiting: it costs
 *   the platform nothing.
 * Both lists are bounded (oldest forgotten first) and expire, so nothing a caller sends can grow them
 * without end, and a token the platform starts or stops accepting is seen again soon.
 */
const ACCEPTED_TOKEN_TTL_MS = 10 * 60_000;
const REFUSED_TOKEN_TTL_MS = 60_000;
const MAX_REMEMBERED_TOKENS = 100_000;

/**
 * How long after the newest probe started, none having settled, one more waiting call goes as a
 * further probe. A hung route must not hold every field of the request behind its call: the extra
 * probe, sent to another route and accepted, releases the rest. Longer than a slow platform takes to
 * refuse a token (a made-up token's calls go one at a time even when each answer takes 700 ms), and
 * one probe more per patience is all a platform that never answers can cost.
 */
const PROBE_PATIENCE_MS = 1_000;

export type TokenVerdict = 'accepted' | 'refused' | 'unknown';

/** A call waiting for a probe's outcome: woken to probe itself, or to read the token's verdict again. */
interface Waiter {
  readonly route: string;
  wake(probe: boolean): void;
}

/** An unknown token's calls in flight and waiting. */
interface Gate {
  /** The route of each probe in flight (one entry per probe). */
  readonly probing: string[];
  /** Oldest first. */
  readonly waiters: Waiter[];
  /** Stops the patience timer of the newest probe. */
  patience: AbortController | undefined;
  /** Patience ran out while no call waited: the next call to arrive probes at once. */
  overdue: boolean;
}

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
  /** Token key → its probes in flight and the calls waiting on them; gone once neither is left. */
  readonly #gates = new Map<string, Gate>();
  readonly #clock: Clock;
  readonly #patienceMs: number;

  /**
   * `clock` tells the time the lists expire by and waits out the patience (`patienceMs`,
   * PROBE_PATIENCE_MS unless told), so a test drives both without real waiting.
   */
  constructor(options: { maxTokens?: number; clock?: Clock; patienceMs?: number } = {}) {
    const max = options.maxTokens ?? MAX_REMEMBERED_TOKENS;
    this.#accepted = new ExpiringSet(ACCEPTED_TOKEN_TTL_MS, max);
    this.#refused = new ExpiringSet(REFUSED_TOKEN_TTL_MS, max);
    this.#clock = options.clock ?? systemClock;
    this.#patienceMs = options.patienceMs ?? PROBE_PATIENCE_MS;
  }

  verdict(key: string): TokenVerdict {
    const now = this.#clock.now();
    if (this.#accepted.has(key, now)) return 'accepted';
    if (this.#refused.has(key, now)) return 'refused';
    return 'unknown';
  }

  /** Remembered tokens and probes in flight, for tests and diagnostics. */
  get sizes(): { accepted: number; refused: number; probes: number } {
    let probes = 0;
    for (const gate of this.#gates.values()) probes += gate.probing.length;
    return { accepted: this.#accepted.size, refused: this.#refused.size, probes };
  }

  /**
   * Waits until a call with this token to `route` may be sent: at once for an accepted token; for an
   * unknown one, when no probe is in flight or the call is chosen as a further probe (the call is then
   * a probe: `report` must follow, with the same route). Resolves to 'refused' when the token is
   * refused, without sending anything; rejects with the signal's reason when the call is stopped.
   */
  async admit(key: string, signal?: AbortSignal, route = ''): Promise<'go' | 'probe' | 'refused'> {
    for (;;) {
      const verdict = this.verdict(key);
      if (verdict === 'accepted') return 'go';
      if (verdict === 'refused') return 'refused';
      let gate = this.#gates.get(key);
      if (gate === undefined) {
        gate = { probing: [], waiters: [], patience: undefined, overdue: false };
        this.#gates.set(key, gate);
      }
      if (gate.probing.length === 0 || gate.overdue) {
        this.#startProbe(key, gate, route);
        return 'probe';
      }
      if (await this.#wait(key, gate, route, signal)) return 'probe';
    }
  }

  /** What a call with this token showed; a probe's report settles the calls waiting on it. */
  report(key: string, outcome: TokenVerdict, probe: boolean, route = ''): void {
    const now = this.#clock.now();
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
    const gate = this.#gates.get(key);
    if (gate === undefined) return;
    if (probe) {
      const at = gate.probing.indexOf(route);
      if (at >= 0) gate.probing.splice(at, 1);
    }
    if (this.verdict(key) !== 'unknown') {
      // Accepted or refused: every waiting call reads the verdict again.
      for (const waiter of gate.waiters.splice(0)) waiter.wake(false);
    } else if ((probe && outcome === 'unknown') || gate.probing.length === 0) {
      // The probe showed nothing of the token: the next waiting call probes in its place.
      this.#promote(key, gate);
    }
    this.#forgetIfIdle(key, gate);
  }

  #startProbe(key: string, gate: Gate, route: string): void {
    gate.probing.push(route);
    gate.overdue = false;
    gate.patience?.abort();
    const patience = new AbortController();
    gate.patience = patience;
    void this.#clock.sleep(this.#patienceMs, patience.signal).then(() => {
      if (patience.signal.aborted || this.#gates.get(key) !== gate) return;
      gate.patience = undefined;
      if (gate.waiters.length > 0) this.#promote(key, gate);
      else gate.overdue = true;
    });
  }

  /** One waiting call goes as a further probe: the oldest whose route no probe in flight is on, else the oldest. */
  #promote(key: string, gate: Gate): void {
    if (gate.waiters.length === 0) return;
    const elsewhere = gate.waiters.findIndex((waiter) => !gate.probing.includes(waiter.route));
    const [waiter] = gate.waiters.splice(Math.max(0, elsewhere), 1);
    this.#startProbe(key, gate, waiter!.route);
    waiter!.wake(true);
  }

  #forgetIfIdle(key: string, gate: Gate): void {
    if (gate.probing.length > 0 || gate.waiters.length > 0) return;
    gate.patience?.abort();
    if (this.#gates.get(key) === gate) this.#gates.delete(key);
  }

  /** True when the call was chosen to probe, false when it should read the verdict again. */
  #wait(key: string, gate: Gate, route: string, signal: AbortSignal | undefined): Promise<boolean> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const abort = () => {
        const at = gate.waiters.indexOf(waiter);
        if (at >= 0) gate.waiters.splice(at, 1);
        this.#forgetIfIdle(key, gate);
        reject(signal!.reason as Error);
      };
      const waiter: Waiter = {
        route,
        wake: (probe) => {
          signal?.removeEventListener('abort', abort);
          resolve(probe);
        },
      };
      gate.waiters.push(waiter);
      signal?.addEventListener('abort', abort, { once: true });
    });
  }
}
