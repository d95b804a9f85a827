import { RequestError } from 'got';
import { routeLimits, type Config } from '../config.ts';
import type { BreakerState } from './breaker.ts';
import { systemClock, type Clock } from './clock.ts';
import { currentRequestId } from '../request/scope.ts';
import { errorFromResponse, failureOf } from './error-mapping.ts';
import { RouteGuards } from './route-guard.ts';
import { SharedReads } from './shared-reads.ts';
import { PlatformTransport } from './transport.ts';
import type { Answer, UpstreamCallEvent, UpstreamObserver, UpstreamRequest, UpstreamResponse, UpstreamSpan, UpstreamTracer } from './upstream-call.ts';

export type { UpstreamCallEvent, UpstreamObserver, UpstreamRequest, UpstreamResponse, UpstreamSpan, UpstreamTracer } from './upstream-call.ts';

/** What the platform protection settings are; see Config['platformProtection']. */
export interface ProtectionSettings {
  route: { maxInFlight: number; queue: number };
  shareReads: boolean;
}

const ONE = (): number => 1;

/**
 * The platform seam, created once per process (per-request state lives in PlatformClient). A call
 * goes through four stages, one module each (docs/platform.md):
 *
 *   shared reads (shared-reads.ts)   an identical GET of another request in flight is joined
 *   route guard  (route-guard.ts)    the route's breaker and bulkhead let the call go, or refuse it
 *   transport    (transport.ts)      got sends it, retrying reads; the only code that talks HTTP
 *   failure mapping (error-mapping.ts) a non-2xx answer or a failure becomes a public code
 *
 * and every call is reported to the observers and its span. The route guard's per-request half,
 * the calls budget (CallBudget), is applied by PlatformClient before a call reaches send().
 */
export class PlatformHttp {
  private readonly transport: PlatformTransport;
  private readonly routes: RouteGuards;
  private readonly reads: SharedReads;
  private readonly observers: UpstreamObserver[] = [];
  private tracer: UpstreamTracer | undefined;

  constructor(baseUrl: string, settings: Config['upstream'], protection?: ProtectionSettings, clock: Clock = systemClock) {
    const { route, shareReads } = protection ?? { route: routeLimits(settings.maxSockets), shareReads: true };
    this.transport = new PlatformTransport(baseUrl, settings, clock);
    this.routes = new RouteGuards(
      { breaker: { threshold: settings.breakerThreshold, cooldownMs: settings.breakerCooldownMs }, route, responseTimeoutMs: settings.responseTimeoutMs },
      clock,
    );
    this.reads = new SharedReads(shareReads);
  }

  /** The most severe state of any route's breaker ('open' when at least one is open), for metrics. */
  get breakerState(): BreakerState {
    return this.routes.breakerState;
  }

  /** Routes whose breaker is not closed (open or half-open), for readiness. */
  breakerStates(): Record<string, Exclude<BreakerState, 'closed'>> {
    return this.routes.breakerStates();
  }

  /** Called on every transition of any route's breaker. */
  onBreakerStateChange(listener: (state: BreakerState, route: string) => void): void {
    this.routes.onBreakerStateChange(listener);
  }

  observe(observer: UpstreamObserver): void {
    this.observers.push(observer);
  }

  /** Starts a span for every call and sends its `traceparent` upstream (only when tracing is on). */
  traceWith(tracer: UpstreamTracer): void {
    this.tracer = tracer;
  }

  /** Calls in flight and waiting for a slot, per breaker key (routes not used yet are absent), for metrics. */
  routeLoad(): { route: string; inFlight: number; queued: number }[] {
    return this.routes.routeLoad();
  }

  /** Shared reads in flight and the callers waiting on them, for tests and diagnostics. */
  sharedReads(): { calls: number; callers: number } {
    return this.reads.counts();
  }

  /** Whether a GET with these credentials and path would join a call in flight (and so cost the platform nothing). */
  joinsRead(credential: string, pathAndQuery: string): boolean {
    return this.reads.joins(credential, pathAndQuery);
  }

  /** Whether identical GETs of concurrent requests share a call (UPSTREAM_SHARE_READS). */
  get sharesReads(): boolean {
    return this.reads.enabled;
  }

  /** What identifies a caller's credentials in the shared-read keys: a keyed hash, never the token. */
  credentialKey(authorization: string): string {
    return this.reads.credentialKey(authorization);
  }

  /**
   * Sends one request for the request being handled (src/request/scope.ts), whose id its event, span and
   * `x-request-id` carry; resolves with a 2xx answer or rejects with a PlatformError. Failures are
   * mapped here, in the caller's own scope, so each caller of a shared read gets its own error and event.
   */
  async send(request: UpstreamRequest): Promise<UpstreamResponse> {
    const started = performance.now();
    const requestId = currentRequestId();
    const span = this.tracer?.startUpstream(requestId, request.route, request.method);
    const traceparent = span?.traceparent;
    let retries = 0;
    let status = 0;
    let shared = false;
    try {
      // A call queued behind others (a loader's concurrency limit) may start after its request was stopped.
      if (request.signal?.aborted) throw request.signal.reason;
      let answer: Answer;
      if (request.method === 'GET' && this.reads.enabled) {
        const key = `${request.credential ?? this.reads.credentialKey(request.authorization)} ${request.pathAndQuery}`;
        const read = this.reads.inFlight(key);
        shared = read !== undefined;
        answer = await this.reads.wait(read ?? this.reads.start(key, (signal, callers) => this.exchange(request, signal, callers, traceparent)), request.signal);
      } else {
        answer = await this.exchange(request, request.signal, ONE, traceparent);
      }
      status = answer.status;
      retries = answer.retries;
      if (status < 200 || status >= 300) {
        throw errorFromResponse(
          { status, body: answer.body, contentType: answer.headers['content-type'], retryAfter: answer.headers['retry-after'] },
          request.authorization,
        );
      }
      this.emit(request, requestId, started, status, retries, shared, span);
      return { status, body: answer.body };
    } catch (error) {
      if (error instanceof RequestError) retries = error.request?.retryCount ?? retries;
      const mapped = failureOf(error, request.signal, status);
      this.emit(request, requestId, started, status, retries, shared, span, String(mapped.extensions.code));
      throw mapped;
    }
  }

  /** The call through the route guard and the transport, stopped by `signal`. */
  private exchange(request: UpstreamRequest, signal: AbortSignal | undefined, callers: () => number, traceparent: string | undefined): Promise<Answer> {
    return this.routes.through(request.route, signal, callers, (attemptTimedOut) => this.transport.call(request, signal, traceparent, attemptTimedOut));
  }

  private emit(request: UpstreamRequest, requestId: string | undefined, started: number, status: number, retries: number, shared: boolean, span: UpstreamSpan | undefined, errorCode?: string) {
    if (this.observers.length === 0 && span === undefined) return;
    const event: UpstreamCallEvent = {
      route: request.route,
      method: request.method,
      status,
      durationMs: performance.now() - started,
      retries,
      requestId,
      errorCode,
    };
    if (shared) event.shared = true;
    span?.end(event);
    for (const observer of this.observers) observer(event);
  }

  /** Open sockets to the platform (active + idle), for leak checks and metrics. */
  socketCounts(): { active: number; idle: number } {
    return this.transport.socketCounts();
  }

  close(): void {
    this.transport.close();
  }
}
