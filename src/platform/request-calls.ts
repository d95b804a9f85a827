import type { TokenVerdicts } from './token-verdicts.ts';
import type { CallLedger } from '../request/admission.ts';
import { tokenKey } from '../request/caller-token.ts';

export type { CallLedger } from '../request/admission.ts';

export interface RequestCallsOptions {
  /** Platform calls the request may make (MAX_PLATFORM_CALLS_PER_REQUEST); further calls fail without being sent. */
  maxCalls: number;
  /** What the process knows of tokens: an unknown token's calls go one at a time, a refused one's not at all. */
  tokens: TokenVerdicts | undefined;
  /** The bearer token, without its scheme. */
  token: string | undefined;
  /** The token's key in `tokens`, when the caller already has it; else computed on the first call. */
  tokenKey: string | undefined;
  /** Told when the platform refuses the token (401). */
  onTokenRefused: (() => void) | undefined;
  /** The request's budget (its admission's, or a subscription poll's), when one is set (RATE_LIMIT_PER_SECOND). */
  ledger?: CallLedger;
}

/** The calls a request has made, shared by the per-operation views of one request (a batch's operations). */
export interface CallTally {
  /** Calls handed to the platform seam (joined shared reads included), for MAX_PLATFORM_CALLS_PER_REQUEST and logs. */
  calls: number;
  /** Attempts the platform was sent for the whole request, retries included. */
  sent: number;
}

/**
 * The per-request side of the platform policies (policies/): what the token gate, the calls
 * budget, the shared reads and the bucket draw need to know of the request a call belongs to. One
 * per GraphQL request (or per operation of a batch, sharing the request's tally), never shared
 * between requests.
 */
export class RequestCalls {
  readonly options: RequestCallsOptions;
  readonly tally: CallTally;
  /** The request's (or this operation's) budget, when one is set (RATE_LIMIT_PER_SECOND): fixed when made, never reassigned. */
  readonly ledger: CallLedger | undefined;
  /** Calls handed to the platform seam for this request or operation (joined shared reads included): its log line's `upstreamCalls`. */
  calls = 0;
  /** Attempts the platform was sent for this request or operation, retries included (`actualQueryCost`). */
  sent = 0;
  /**
   * Calls its connections planned after an answer showed a page-size cap the estimate did not know:
   * added to the estimate in `requestedQueryCost` (src/budgets/plugin.ts).
   */
  replanned = 0;
  #tokenKey: string | undefined;
  /** The credentials' key in the shared reads, computed on the first GET. */
  credential: string | undefined;

  constructor(options: RequestCallsOptions, tally: CallTally = { calls: 0, sent: 0 }, ledger: CallLedger | undefined = options.ledger) {
    this.options = options;
    this.tally = tally;
    this.ledger = ledger;
    this.#tokenKey = options.tokenKey;
  }

  /** One attempt is about to go to the platform, paid: the one place attempts are counted, for the operation and its request. */
  attemptSent(): void {
    this.sent++;
    this.tally.sent++;
  }

  /** The token's key in TokenVerdicts, computed once. */
  get tokenKey(): string | undefined {
    if (this.#tokenKey === undefined && this.options.token !== undefined) this.#tokenKey = tokenKey(this.options.token);
    return this.#tokenKey;
  }

  /** The same request's calls for another operation of its batch: its own budget and count of attempts, the request's tally. */
  forOperation(): RequestCalls {
    const view = new RequestCalls(this.options, this.tally, this.ledger?.forOperation());
    view.#tokenKey = this.#tokenKey;
    view.credential = this.credential;
    return view;
  }
}
