import { currentRequestId } from '../../request/scope.ts';
import { errorFromResponse, failureOf } from '../error-mapping.ts';
import type { Policy } from '../policy.ts';
import type { UpstreamCallEvent, UpstreamObserver, UpstreamSpan, UpstreamTracer } from '../upstream-call.ts';
import { retriesOf } from './retries.ts';

/** Who hears of every call: the observers (logs, metrics) and the tracer (spans), set once the process starts. */
export interface Reporting {
  readonly observers: UpstreamObserver[];
  tracer: UpstreamTracer | undefined;
}

/**
 * Failure mapping and reporting, in the caller's own scope: the request id and span go upstream as
 * headers, a non-2xx answer or anything that stopped the call becomes the caller's own PlatformError
 * (error-mapping.ts: each caller of a shared read gets its own error and event), and every call,
 * answered or not, is reported once to the observers and its span.
 */
export function report(reporting: Reporting): Policy {
  return {
    name: 'report',
    async send(call, next) {
      const started = performance.now();
      const requestId = currentRequestId();
      const span = reporting.tracer?.startUpstream(requestId, call.route, call.method);
      // The request making the call: a shared read runs in the scope of the request that started it.
      if (requestId !== undefined) call.headers['x-request-id'] = requestId;
      if (span?.traceparent !== undefined) call.headers.traceparent = span.traceparent;
      let retries = 0;
      let status = 0;
      try {
        const answer = await next(call);
        status = answer.status;
        retries = answer.retries;
        if (status < 200 || status >= 300) {
          throw errorFromResponse({ status, body: answer.body, contentType: answer.headers['content-type'], retryAfter: answer.headers['retry-after'] }, call.authorization);
        }
        emit(reporting, call.route, call.method, requestId, started, status, retries, call.joined === true, span);
        return answer;
      } catch (error) {
        retries = retriesOf(error) ?? retries;
        const mapped = failureOf(error, call.signal, status);
        emit(reporting, call.route, call.method, requestId, started, status, retries, call.joined === true, span, String(mapped.extensions.code));
        throw mapped;
      }
    },
  };
}

function emit(
  reporting: Reporting,
  route: string,
  method: 'GET' | 'PUT',
  requestId: string | undefined,
  started: number,
  status: number,
  retries: number,
  shared: boolean,
  span: UpstreamSpan | undefined,
  errorCode?: string,
): void {
  if (reporting.observers.length === 0 && span === undefined) return;
  const event: UpstreamCallEvent = { route, method, status, durationMs: performance.now() - started, retries, requestId, errorCode };
  if (shared) event.shared = true;
  span?.end(event);
  for (const observer of reporting.observers) observer(event);
}
