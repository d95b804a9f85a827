import type { Logger } from 'pino';
import { ErrorCode } from '../errors.ts';
import type { UpstreamObserver } from '../platform/policy-chain.ts';

/** Codes that mean the platform (or the way to it) failed, as opposed to the caller's request being refused. */
const PLATFORM_FAILURES = new Set<string>([ErrorCode.UPSTREAM_ERROR, ErrorCode.UPSTREAM_TIMEOUT, ErrorCode.RATE_LIMITED, ErrorCode.UPSTREAM_BUSY]);

/**
 * Logs failed platform calls. Only what identifies the call goes into the line
 * (request id, route, status, code): never headers, so never the caller's token.
 * A refusal the caller caused (401, 403, 404, 4xx validation) is routine and
 * already visible in the request's own line, so it is logged at debug.
 */
export function upstreamLogObserver(logger: Logger): UpstreamObserver {
  return (event) => {
    if (event.errorCode === undefined) return;
    const fields = {
      requestId: event.requestId,
      route: event.route,
      method: event.method,
      status: event.status,
      errorCode: event.errorCode,
      retries: event.retries,
      durationMs: Math.round(event.durationMs * 10) / 10,
    };
    if (PLATFORM_FAILURES.has(event.errorCode)) logger.warn(fields, 'upstream call failed');
    else logger.debug(fields, 'upstream call refused');
  };
}
