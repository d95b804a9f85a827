import { ErrorCode } from '../errors.ts';
import { PlatformError } from '../platform/platform-error.ts';
import type { CallLedger } from '../platform/request-calls.ts';
import { CallNotSent } from '../platform/upstream-call.ts';
import type { BucketPolicy, BucketState, BucketStore } from './bucket.ts';

/**
 * Seconds to wait: a wait in milliseconds rounded up to whole seconds, for the gateway's own
 * `Retry-After` and `retryAfter`; never 0, which would invite an immediate retry. (Reading the
 * platform's `Retry-After` is src/platform/retry-after.ts's, a different function.)
 */
export function secondsToWait(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * One request's budget: the one object that holds its reservation, its draws and its refund. The
 * admission makes it (budgets/index.ts) and the request's platform client holds it from the start;
 * the cost plugin reserves the operation's estimate on it before the operation runs (`reserve`),
 * the bucket draw takes every attempt from it (policies/bucket-draw.ts), and the plugin closes it
 * for the answer (`close`). Each operation of a batch has one of its own (`forOperation`); a
 * subscription poll's is made with its client and reserves nothing.
 *
 * Each attempt sent draws one unit of the reservation, and past it one unit of the bucket at the
 * moment it goes, so no attempt reaches the platform unpaid whatever the estimate said. An attempt
 * the bucket cannot pay is not sent. At the end, what was reserved and not drawn is given back; an
 * attempt still in flight afterwards (a shared read another request waits on, retried) draws from
 * the bucket.
 */
export class RequestBudget implements CallLedger {
  readonly #store: BucketStore;
  readonly #policy: BucketPolicy;
  readonly #key: string;
  #reserved = 0;
  /** Units of the reservation drawn. */
  #drawn = 0;
  /** Units drawn from the bucket beyond the reservation. */
  #beyond = 0;
  #closed = false;

  /** Told of each attempt paid (the `budget_draws_total` metric). */
  readonly #onDraw: (() => void) | undefined;

  constructor(store: BucketStore, policy: BucketPolicy, callerKey: string, onDraw?: () => void) {
    this.#store = store;
    this.#policy = policy;
    this.#key = callerKey;
    this.#onDraw = onDraw;
  }

  /** The same caller's budget for another operation of the request's batch. */
  forOperation(): RequestBudget {
    return new RequestBudget(this.#store, this.#policy, this.#key, this.#onDraw);
  }

  /**
   * Reserves `units` from the caller's bucket in one atomic take, all or nothing, and resolves with
   * the bucket as the take left it (`allowed` false: nothing was taken). 0 reads the bucket back.
   */
  reserve(units: number): Promise<BucketState> {
    return this.#store.take(this.#policy, this.#key, units).then((state) => {
      if (state.allowed) this.#reserved += units;
      return state;
    });
  }

  /** Units drawn so far, reservation and beyond: the attempts paid for. */
  get drawn(): number {
    return this.#drawn + this.#beyond;
  }

  /**
   * Pays one attempt. One drawn past the reservation waits for the bucket's store: when `signal` fired
   * meanwhile (the deadline passed, the client hung up), the unit goes back and the draw throws the
   * signal's reason, so the attempt is neither sent nor paid.
   */
  draw(signal?: AbortSignal): Promise<void> | undefined {
    if (!this.#closed && this.#drawn < this.#reserved) {
      this.#drawn++;
      this.#onDraw?.();
      return undefined;
    }
    return this.#store.take(this.#policy, this.#key, 1).then((state) => {
      if (signal?.aborted) {
        if (state.allowed) void this.#store.adjust(this.#policy, this.#key, -1);
        throw signal.reason;
      }
      if (!state.allowed) {
        const retryAfter = secondsToWait(state.retryAfterMs);
        throw new CallNotSent(
          new PlatformError(ErrorCode.RATE_LIMITED, `Too many platform calls from this caller: this query needed more than its estimate and the budget is spent; retry after ${retryAfter} s`, {
            retryAfter,
          }),
        );
      }
      this.#beyond++;
      this.#onDraw?.();
    });
  }

  /**
   * Ends the operation: the reservation not drawn goes back to the bucket, all but one unit when
   * nothing was drawn (answering an operation is never free, or a caller could spin the gateway
   * on documents that reach no platform call). Resolves with the bucket as it is then, or undefined
   * when the bucket was not touched since the reservation (its state then is still the one to show).
   */
  close(): Promise<BucketState> | undefined {
    this.#closed = true;
    const kept = Math.max(this.#drawn, Math.min(1, this.#reserved));
    const refund = this.#reserved - kept;
    if (refund > 0) return this.#store.adjust(this.#policy, this.#key, -refund);
    // Drawn beyond the reservation: the bucket moved since, and is read back by a change of nothing.
    return this.#beyond > 0 ? this.#store.adjust(this.#policy, this.#key, 0) : undefined;
  }
}
