import { routeLimits, type Config } from '../settings/config.ts';
import { RouteBreakers, type BreakerState } from './breaker.ts';
import { systemClock, type Clock } from './clock.ts';
import { platformPolicies, type PolicyParts } from './policies/index.ts';
import { RouteBulkheads } from './policies/bulkhead.ts';
import type { Reporting } from './policies/report.ts';
import { compose, type Next, type Policy } from './policy.ts';
import { SharedReads } from './shared-reads.ts';
import { PlatformTransport } from './transport.ts';
import type { UpstreamObserver, UpstreamRequest, UpstreamResponse, UpstreamTracer } from './upstream-call.ts';

export type { UpstreamCallEvent, UpstreamObserver, UpstreamRequest, UpstreamResponse, UpstreamSpan, UpstreamTracer } from './upstream-call.ts';

/** What the platform protection settings are; see Config['platformProtection']. */
export interface ProtectionSettings {
  route: { maxInFlight: number; queue: number };
  shareReads: boolean;
}

export interface PolicyChainOptions {
  /** Changes the list of policies (policies/index.ts), say to add one; the default list otherwise. */
  policies?: (defaults: Policy[], parts: PolicyParts) => Policy[];
}

const ONE = (): number => 1;

/**
 * The platform seam's chain of policies, created once per process (per-request state lives in
 * PlatformClient and its RequestCalls). `send()` takes a call through the ordered list
 * (policies/index.ts, which is the one place the order is written); the HTTP itself is the
 * transport's (transport.ts).
 */
export class PolicyChain {
  private readonly parts: PolicyParts;
  private readonly way: Next;
  /** The names of the policies in order, for tests and diagnostics. */
  readonly policyNames: readonly string[];

  constructor(baseUrl: string, settings: Config['upstream'], protection?: ProtectionSettings, clock: Clock = systemClock, options: PolicyChainOptions = {}) {
    const { route, shareReads } = protection ?? { route: routeLimits(settings.maxSockets), shareReads: true };
    const reporting: Reporting = { observers: [], tracer: undefined };
    this.parts = {
      reads: new SharedReads(shareReads),
      breakers: new RouteBreakers({ threshold: settings.breakerThreshold, cooldownMs: settings.breakerCooldownMs }, clock),
      bulkheads: new RouteBulkheads(route),
      transport: new PlatformTransport(baseUrl, settings),
      reporting,
      retry: { limit: settings.retryLimit, baseMs: settings.retryBaseMs, retryAfterCapMs: settings.retryAfterCapMs },
      responseTimeoutMs: settings.responseTimeoutMs,
      clock,
    };
    const defaults = platformPolicies(this.parts);
    const policies = options.policies?.(defaults, this.parts) ?? defaults;
    this.policyNames = policies.map((policy) => policy.name);
    this.way = compose(policies);
  }

  /** The most severe state of any route's breaker ('open' when at least one is open), for metrics. */
  get breakerState(): BreakerState {
    return this.parts.breakers.worst();
  }

  /** Routes whose breaker is not closed (open or half-open), for readiness. */
  breakerStates(): Record<string, Exclude<BreakerState, 'closed'>> {
    return this.parts.breakers.notClosed();
  }

  /** Called on every transition of any route's breaker. */
  onBreakerStateChange(listener: (state: BreakerState, route: string) => void): void {
    this.parts.breakers.onStateChange(listener);
  }

  observe(observer: UpstreamObserver): void {
    this.parts.reporting.observers.push(observer);
  }

  /** Starts a span for every call and sends its `traceparent` upstream (only when tracing is on). */
  traceWith(tracer: UpstreamTracer): void {
    this.parts.reporting.tracer = tracer;
  }

  /** Calls in flight and waiting for a slot, per breaker key (routes not used yet are absent), for metrics. */
  routeLoad(): { route: string; inFlight: number; queued: number }[] {
    return this.parts.bulkheads.load();
  }

  /** Shared reads in flight and the callers waiting on them, for tests and diagnostics. */
  sharedReads(): { calls: number; callers: number } {
    return this.parts.reads.counts();
  }

  /** Whether identical GETs of concurrent requests share a call (UPSTREAM_SHARE_READS). */
  get sharesReads(): boolean {
    return this.parts.reads.enabled;
  }

  /**
   * Sends one call for the request being handled (src/request/scope.ts), whose id its event, span and
   * `x-request-id` carry, through the policies; resolves with a 2xx answer or rejects with a
   * PlatformError, each caller of a shared read its own.
   */
  async send(request: UpstreamRequest): Promise<UpstreamResponse> {
    const answer = await this.way({ ...request, headers: {}, callers: ONE });
    return { status: answer.status, body: answer.body };
  }

  /** Open sockets to the platform (active + idle), for leak checks and metrics. */
  socketCounts(): { active: number; idle: number } {
    return this.parts.transport.socketCounts();
  }

  close(): void {
    this.parts.transport.close();
  }
}
