import { tokenKey } from '../request/caller-token.ts';
import type { TokenVerdict, TokenVerdicts } from '../budgets/token-verdicts.ts';
import { ErrorCode } from '../errors.ts';
import { CircuitOpen, RouteBreakers, breakerKey, type BreakerState, type RouteBreaker } from './breaker.ts';
import { Bulkhead } from './bulkhead.ts';
import { RequestDeadlineExceeded } from '../request/deadline.ts';
import type { Clock } from './clock.ts';
import { transportError } from './error-mapping.ts';
import { PlatformError } from './platform-error.ts';
import type { Answer } from './upstream-call.ts';

/** A route's breaker and its bound on calls in flight; one per breaker key. */
interface Guard {
  breaker: RouteBreaker;
  bulkhead: Bulkhead;
}

export interface RouteGuardSettings {
  breaker: { threshold: number; cooldownMs: number };
  route: { maxInFlight: number; queue: number };
  /** A call the request deadline stopped after waiting this long is evidence against the platform (the response timeout). */
  responseTimeoutMs: number;
}

/**
 * The route guard stage, across every request of the process: per platform route a circuit
 * breaker and a bulkhead (a bound on calls in flight and waiting), so a hung route can neither
 * hold every socket nor keep its breaker closed. It decides whether a call may go and tells the
 * breaker what each call showed of the platform's health.
 */
export class RouteGuards {
  private readonly breakers: RouteBreakers;
  private readonly settings: RouteGuardSettings;
  private readonly clock: Clock;
  /** Route name → its guard, so a call's lookup is one Map read. */
  private readonly guards = new Map<string, Guard>();
  /** Breaker key → its bulkhead. Route names are fixed in code, so both maps are bounded. */
  private readonly bulkheads = new Map<string, Bulkhead>();

  constructor(settings: RouteGuardSettings, clock: Clock) {
    this.settings = settings;
    this.clock = clock;
    this.breakers = new RouteBreakers(settings.breaker, clock);
  }

  /** The most severe state of any route's breaker ('open' when at least one is open), for metrics. */
  get breakerState(): BreakerState {
    return this.breakers.worst();
  }

  /** Routes whose breaker is not closed (open or half-open), for readiness. */
  breakerStates(): Record<string, Exclude<BreakerState, 'closed'>> {
    return this.breakers.notClosed();
  }

  /** Called on every transition of any route's breaker. */
  onBreakerStateChange(listener: (state: BreakerState, route: string) => void): void {
    this.breakers.onStateChange(listener);
  }

  /** Calls in flight and waiting for a slot, per breaker key (routes not used yet are absent), for metrics. */
  routeLoad(): { route: string; inFlight: number; queued: number }[] {
    return [...this.bulkheads].map(([route, bulkhead]) => ({ route, inFlight: bulkhead.inFlight, queued: bulkhead.queued }));
  }

  private guard(route: string): Guard {
    let guard = this.guards.get(route);
    if (guard === undefined) {
      const key = breakerKey(route);
      let bulkhead = this.bulkheads.get(key);
      if (bulkhead === undefined) {
        bulkhead = new Bulkhead(this.settings.route.maxInFlight, this.settings.route.queue);
        this.bulkheads.set(key, bulkhead);
      }
      guard = { breaker: this.breakers.for(route), bulkhead };
      this.guards.set(route, guard);
    }
    return guard;
  }

  /**
   * One platform call through its route's breaker and bulkhead: `call` is made once both let it
   * go, and is handed what a timed-out attempt must ask before it is retried. Resolves with
   * whatever the platform answered; rejects with CircuitOpen, RouteBusy, the signal's reason or
   * the call's error, which the failure mapping turns into a public code.
   */
  async through(route: string, signal: AbortSignal | undefined, callers: () => number, call: (attemptTimedOut: () => boolean) => Promise<Answer>): Promise<Answer> {
    const { breaker, bulkhead } = this.guard(route);
    // An open breaker refuses before the queue: waiting for a slot only to be refused would waste the wait.
    if (breaker.refusing()) throw new CircuitOpen();
    const queued = bulkhead.acquire(signal);
    if (queued !== undefined) await queued;
    try {
      if (signal?.aborted) throw signal.reason;
      if (!breaker.admit()) throw new CircuitOpen();
      return await this.judged(breaker, signal, callers, call);
    } finally {
      bulkhead.release();
    }
  }

  /**
   * The call, with the breaker told what it shows of the platform's health. Evidence of failure: a 5xx
   * answer, a network error, an attempt that timed out (told at once, before any retry, and once per
   * call), and a call the request deadline stopped after it had waited a response timeout's worth.
   * A caller hanging up, or a deadline shorter than that, says nothing about the platform. A shared
   * call's failure counts once for each caller still waiting on it, so sharing never slows the
   * breaker down: those requests would each have made, and failed, the same call.
   */
  private async judged(breaker: RouteBreaker, signal: AbortSignal | undefined, callers: () => number, call: (attemptTimedOut: () => boolean) => Promise<Answer>): Promise<Answer> {
    const sent = this.clock.now();
    let told = false;
    const attemptTimedOut = (): boolean => {
      if (!told) {
        told = true;
        breaker.failed(callers());
      }
      // No retry once the breaker has opened (or this call was its probe): it would only wait again.
      return breaker.state === 'closed';
    };
    let answer: Answer;
    try {
      answer = await call(attemptTimedOut);
    } catch (error) {
      if (told) throw error;
      if (!signal?.aborted) breaker.failed(callers());
      else if (signal.reason instanceof RequestDeadlineExceeded && this.clock.now() - sent >= this.settings.responseTimeoutMs) breaker.failed();
      else breaker.released();
      throw error;
    }
    if (answer.status >= 500) {
      if (!told) breaker.failed(callers());
    } else {
      breaker.succeeded();
    }
    return answer;
  }
}

/** The variable that sets the per-request call budget; a refusal names it in `extensions.limit`. */
const CALL_LIMIT_VARIABLE = 'MAX_PLATFORM_CALLS_PER_REQUEST';

/** What a failed call shows of the token: a 401 refuses it, any other answer of the platform accepts it. */
function verdictOf(error: unknown): TokenVerdict {
  if (!(error instanceof PlatformError)) return 'unknown';
  const status = (error.extensions.upstream as { status?: number } | undefined)?.status;
  if (status === undefined || status >= 500) return 'unknown';
  return status === 401 ? 'refused' : 'accepted';
}

export interface CallBudgetOptions {
  /** Platform calls the request may make; further calls fail without being sent. */
  maxCalls: number;
  /** What the process knows of tokens: an unknown token's calls go one at a time, a refused one's not at all. */
  tokens: TokenVerdicts | undefined;
  /** The bearer token, without its scheme. */
  token: string | undefined;
  /** The token's key in `tokens`, when the caller already has it; else computed on the first call. */
  tokenKey: string | undefined;
  onTokenRefused: (() => void) | undefined;
  signal: AbortSignal | undefined;
}

/**
 * The route guard's per-request half: the calls one GraphQL request may make
 * (MAX_PLATFORM_CALLS_PER_REQUEST) and the gate of the token budget (TokenVerdicts).
 */
export class CallBudget {
  /** Upstream calls this request made (for logs and the benchmark). */
  calls = 0;
  private readonly options: CallBudgetOptions;
  private tokenKey: string | undefined;

  constructor(options: CallBudgetOptions) {
    this.options = options;
    this.tokenKey = options.tokenKey;
  }

  /** Counts a call about to be sent, or refuses it once the request has made all it may. */
  spend(): void {
    const { maxCalls } = this.options;
    if (this.calls >= maxCalls) {
      const error = new PlatformError(ErrorCode.BAD_USER_INPUT, `Query needs more than ${maxCalls} platform calls; at most ${maxCalls} are allowed per request`);
      Object.assign(error.extensions, { limit: CALL_LIMIT_VARIABLE, max: maxCalls });
      throw error;
    }
    this.calls++;
  }

  /**
   * Sends a call once the token may be used (TokenVerdicts): an unknown token's calls go one at a
   * time until the platform has answered one of them, and a refused token's are not sent at all.
   * A call that `joins` a shared read in flight costs the platform nothing and is not gated.
   */
  async admitted<T>(send: () => Promise<T>, joins: () => boolean = () => false): Promise<T> {
    const { tokens, signal } = this.options;
    if (tokens === undefined || joins()) return send();
    const key = (this.tokenKey ??= tokenKey(this.options.token!));
    let admission: Awaited<ReturnType<TokenVerdicts['admit']>>;
    try {
      admission = await tokens.admit(key, signal);
    } catch (reason) {
      // Stopped while waiting for the probe: answered as a call stopped in flight would be.
      throw reason instanceof RequestDeadlineExceeded ? transportError('timeout', reason.message) : transportError('cancelled', 'the caller closed the connection');
    }
    if (admission === 'refused') throw new PlatformError(ErrorCode.UNAUTHENTICATED, 'The platform rejected the access token (not sent: the platform refused this token moments ago)');
    const probe = admission === 'probe';
    let outcome: TokenVerdict = 'unknown';
    try {
      const result = await send();
      outcome = 'accepted';
      return result;
    } catch (error) {
      outcome = verdictOf(error);
      if (outcome === 'refused') this.options.onTokenRefused?.();
      throw error;
    } finally {
      tokens.report(key, outcome, probe);
    }
  }
}
