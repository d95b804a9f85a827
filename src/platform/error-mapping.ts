// The failure-mapping stage, the one place that maps upstream failures to the gateway's public
// error codes: a non-2xx answer by its status (errorFromResponse), a call with no usable answer by
// what stopped it (failureOf, transportError). A call the gateway refuses before sending it (no
// token, an id that cannot be a path segment) is not an upstream failure: client.ts codes it there,
// and the calls budget's refusal is policies/calls-budget.ts's.
import { RequestError, TimeoutError } from 'got';
import { ErrorCode } from '../errors.ts';
import { CircuitOpen } from './breaker.ts';
import { RouteBusy } from './bulkhead.ts';
import { RequestDeadlineExceeded } from '../request/deadline.ts';
import { parseErrorBody } from './error-body.ts';
import { retryAfterMs } from './retry-after.ts';
import { PlatformError, type UpstreamDetails } from './platform-error.ts';
import { tokenRedactor } from './token-redaction.ts';
import { CallNotSent } from './upstream-call.ts';

const reason: Partial<Record<ErrorCode, string>> = {
  UNAUTHENTICATED: 'The platform rejected the access token',
  FORBIDDEN: 'The access token is not allowed to do this',
  NOT_FOUND: 'Not found on the platform',
  BAD_USER_INPUT: 'The platform rejected the request',
  CONFLICT: 'The platform reported a conflict',
  RATE_LIMITED: 'The platform is rate limiting this caller',
  UPSTREAM_ERROR: 'The platform failed to answer',
};

export function codeForStatus(status: number): ErrorCode {
  if (status === 401) return ErrorCode.UNAUTHENTICATED;
  if (status === 403) return ErrorCode.FORBIDDEN;
  if (status === 404) return ErrorCode.NOT_FOUND;
  // 413/414/431: the request the caller's arguments produced was too large for the platform.
  if (status === 400 || status === 422 || status === 413 || status === 414 || status === 431) return ErrorCode.BAD_USER_INPUT;
  if (status === 409) return ErrorCode.CONFLICT;
  if (status === 429) return ErrorCode.RATE_LIMITED;
  return ErrorCode.UPSTREAM_ERROR;
}

/** Retry-After as whole seconds (retry-after.ts), when the platform sent a readable one. */
export function retryAfterSeconds(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const ms = retryAfterMs(header, now);
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}

/** Maps a non-2xx platform answer to the gateway's error; `authorization` is what was sent, to keep it out of the result. */
export function errorFromResponse(
  response: { status: number; body: string; contentType?: string; retryAfter?: string | string[] },
  authorization?: string,
): PlatformError {
  const code = codeForStatus(response.status);
  const parsed = parseErrorBody(response.body, response.contentType, tokenRedactor(authorization));
  const upstream: UpstreamDetails = { status: response.status };
  if (parsed.traceId) upstream.traceId = parsed.traceId;
  if (parsed.errorCode) upstream.errorCode = parsed.errorCode;
  // 5xx messages are the platform's internals: say what happened, not what it said.
  const detail = response.status < 500 && parsed.message ? `: ${parsed.message}` : '';
  const message = `${reason[code] ?? 'The platform failed'} (HTTP ${response.status})${detail}`;
  return new PlatformError(code, message, {
    upstream,
    retryAfter: code === ErrorCode.RATE_LIMITED ? (retryAfterSeconds(response.retryAfter) ?? 1) : undefined,
    fieldErrors: parsed.errors,
  });
}

/** Maps a call that produced no usable answer (network, timeout, open breaker, route busy, unusable body, caller gone). */
export function transportError(kind: 'timeout' | 'network' | 'breaker' | 'busy' | 'body' | 'cancelled', detail: string, status?: number): PlatformError {
  const upstream = status === undefined ? undefined : { status };
  switch (kind) {
    case 'timeout':
      return new PlatformError(ErrorCode.UPSTREAM_TIMEOUT, `The platform did not answer in time (${detail})`, { upstream });
    case 'breaker':
      return new PlatformError(ErrorCode.UPSTREAM_ERROR, 'The platform is failing; calls are paused for a short cool-down', { upstream });
    case 'busy':
      return new PlatformError(ErrorCode.UPSTREAM_BUSY, `The gateway is limiting calls to this platform route (${detail}); try again shortly`, { upstream });
    case 'cancelled':
      return new PlatformError(ErrorCode.CANCELLED, `The platform call was stopped (${detail})`, { upstream });
    case 'body':
      return new PlatformError(ErrorCode.UPSTREAM_ERROR, `The platform answered with an unusable body (${detail})`, { upstream });
    default:
      return new PlatformError(ErrorCode.UPSTREAM_ERROR, `The platform could not be reached (${detail})`, { upstream });
  }
}

/**
 * Maps whatever stopped a call: the caller's own signal first (its deadline or hang-up, whatever
 * the call was doing meanwhile), then the breaker's and the bulkhead's refusals, then got's errors. `status` is
 * the answer's, when one arrived before the failure.
 */
export function failureOf(error: unknown, signal: AbortSignal | undefined, status: number): PlatformError {
  if (error instanceof PlatformError) return error;
  if (error instanceof CallNotSent) return error.answer;
  if (signal?.aborted) {
    const reason: unknown = signal.reason;
    return reason instanceof RequestDeadlineExceeded ? transportError('timeout', reason.message) : transportError('cancelled', 'the caller closed the connection');
  }
  if (error instanceof CircuitOpen) return transportError('breaker', 'circuit open');
  if (error instanceof RouteBusy) return transportError('busy', error.message);
  if (error instanceof TimeoutError) return transportError('timeout', `${error.event} timeout`);
  if (error instanceof RequestError) return transportError('network', error.code ?? 'connection failed');
  return transportError('network', 'unexpected failure', status || undefined);
}
