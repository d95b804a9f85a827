import { RequestError, TimeoutError } from 'got';
import type { Clock } from '../clock.ts';
import type { Policy } from '../policy.ts';
import { retryAfterMs } from '../retry-after.ts';
import { CallNotSent, type Answer } from '../upstream-call.ts';

/** Answers worth another attempt: overloaded or unreachable upstreams, not a failing handler (500). */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);
/** Answers whose `Retry-After` sets the wait (RFC 9110 names it for 503 and 429; 413 as got reads it). */
const RETRY_AFTER_STATUSES = new Set([413, 429, 503]);
/** Network failures worth another attempt. */
const RETRY_ERROR_CODES = new Set(['ETIMEDOUT', 'ECONNRESET', 'EADDRINUSE', 'ECONNREFUSED', 'EPIPE', 'ENOTFOUND', 'ENETUNREACH', 'EAI_AGAIN']);

export interface RetrySettings {
  /** Retries after the first attempt (UPSTREAM_RETRY_LIMIT). */
  limit: number;
  /** Back-off base (UPSTREAM_RETRY_BASE_MS): the n-th retry waits between half and all of base × 2^(n-1). */
  baseMs: number;
  /** Longest `Retry-After` waited for (UPSTREAM_RETRY_AFTER_CAP_MS); a longer one is not retried. */
  retryAfterCapMs: number;
}

/** Retries made before a call failed, as the failure's reporting reads them. */
const retriesOfFailure = new WeakMap<object, number>();

/** How many retries the call made before it failed with `error` (undefined: it did not pass this policy). */
export function retriesOf(error: unknown): number | undefined {
  return typeof error === 'object' && error !== null ? retriesOfFailure.get(error) : undefined;
}

/**
 * Retries of reads (a PUT reaches the platform exactly once), each attempt through the rest of the
 * list, so each is drawn from the caller's budget and sent as a call of its own: a 429/502/503/504
 * answer or a network failure is retried up to the limit, after the platform's `Retry-After` (not
 * over the cap, else not at all) or a jittered exponential back-off waited on the seam's clock. A
 * timed-out attempt is told to the breaker first (`attemptTimedOut`), and not retried once it
 * opened. A retry the budget does not pay for is not sent: the last attempt's outcome stands.
 */
export function retries(settings: RetrySettings, clock: Clock): Policy {
  return {
    name: 'retries',
    async send(call, next) {
      if (call.method !== 'GET' || settings.limit === 0) return next(call);
      let last: { answer: Answer } | { error: unknown } | undefined;
      for (let attempt = 0; ; attempt++) {
        let delay: number | undefined;
        try {
          const answer = await next(call);
          last = { answer: { ...answer, retries: attempt } };
          if (attempt < settings.limit && RETRY_STATUSES.has(answer.status)) {
            const asked = RETRY_AFTER_STATUSES.has(answer.status) ? retryAfterMs(answer.headers['retry-after'], Date.now()) : undefined;
            if (asked === undefined) delay = backOff(settings, attempt + 1);
            else if (asked <= settings.retryAfterCapMs) delay = asked;
          }
        } catch (error) {
          if (error instanceof CallNotSent && last !== undefined) break;
          last = { error };
          if (typeof error === 'object' && error !== null) retriesOfFailure.set(error, attempt);
          if (attempt < settings.limit && error instanceof RequestError && RETRY_ERROR_CODES.has(error.code)) {
            if (!(error instanceof TimeoutError) || call.attemptTimedOut?.() !== false) delay = backOff(settings, attempt + 1);
          }
        }
        if (delay === undefined) break;
        await clock.sleep(delay, call.signal);
        // A stopped call's wait ends at once; it is not retried.
        if (call.signal?.aborted) throw call.signal.reason;
      }
      if ('answer' in last) return last.answer;
      throw last.error;
    },
  };
}

/** Half to all of base × 2^(retry-1): jittered, so callers that failed together do not retry together. */
function backOff(settings: RetrySettings, retry: number): number {
  const ceiling = settings.baseMs * 2 ** (retry - 1);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}
