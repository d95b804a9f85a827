import type { IncomingMessage } from 'node:http';

/**
 * What the front door's admission (src/budgets/) learned of one HTTP request: whose budget pays
 * and how its token fared. Set once by the admission stage (`admit`, scope.ts), read by the
 * request's context (every operation of a batch) and its platform client. It lives here, with the
 * rest of the request's identity, so the context reads it without importing the budgets.
 */
export interface Admission {
  /** `token:<hash>` or `address:<address>` (TRUSTED_PROXIES applied, an IPv6 address by its /64): whose bucket pays. */
  readonly callerKey: string;
  readonly caller: 'token' | 'address';
  /** The bearer token's key (tokenKey of caller-token.ts), computed once for the request's platform client too. */
  readonly tokenKey: string | undefined;
  /** Whether the platform refused this request's token (401). */
  refusedByPlatform: boolean;
  /** Attempts the platform was sent for this request so far (its context sets it; none before). */
  callsSent?: () => number;
  /**
   * Set where the request spent its address's refused-token unit (a token the platform has not
   * accepted yet): the polls made for its subscriptions (src/subscriptions/), which outlast its
   * answer. The unit is decided once none is pending: a poll started for a subscription whose
   * client has since left still counts.
   */
  polls?: PollWatch;
  /**
   * The request's budget (src/budgets/ledger.ts), made here once when a budget is set
   * (RATE_LIMIT_PER_SECOND): its platform client draws every attempt from it, and the cost plugin
   * reserves, refunds and reads it. It is the one object that holds them; nothing reassigns it.
   */
  readonly budget?: CallLedger;
}

/**
 * A request's budget as its platform calls see it: `draw()` is asked once for every attempt about
 * to be sent, retries included, and throws (CallNotSent) when the attempt may not go, or the
 * attempt's signal's reason when it fired while the draw waited. It answers without a promise
 * while the reservation covers it. Declared here, below the seam and the budgets, so both read it.
 */
export interface CallLedger {
  draw(signal?: AbortSignal): Promise<void> | undefined;
  /** The same caller's budget for another operation of the request's batch: nothing reserved or drawn yet. */
  forOperation(): CallLedger;
}

/** The polls made for a request's subscriptions, each pending until the platform answered it, and the attempts they sent. */
export interface PollWatch {
  readonly pending: Set<Promise<void>>;
  sent: number;
}

/** What the admission needs of the connection a request came on: whether it has closed, and when it does. */
export interface Connection {
  readonly closed: boolean;
  once(event: 'close', listener: () => void): unknown;
}

/** The admission's refusal, for a transport to answer as it can (an HTTP status, a WebSocket close code). */
export interface AdmissionRefusal {
  status: number;
  retryAfter: number;
  message: string;
  extensions: Record<string, unknown>;
}

/**
 * The admission of one request (or WebSocket connection) on `connection` (src/budgets/): undefined
 * at once when it may go on (the common case, without a promise), else a promise of its refusal or
 * of undefined once the refused-token limit has answered. It records the request's Admission in
 * its scope either way.
 */
export type AdmitCaller = (req: IncomingMessage, connection: Connection) => undefined | Promise<AdmissionRefusal | undefined>;
