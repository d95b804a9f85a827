import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { clip } from '../client-text.ts';
import { pagingFactsFor } from '../connections/paging-facts.ts';
import type { PolicyChain, UpstreamCallEvent } from '../platform/policy-chain.ts';
import type { RequestSummary } from './request-summary.ts';
import type { SubscriptionObserver, Transport } from '../subscriptions/index.ts';

/** Numeric value of `upstream_breaker_state`: alerting rules compare against these. */
const BREAKER_STATE_VALUE = { closed: 0, 'half-open': 1, open: 2, isolated: 2 } as const;

/**
 * Operation names come from clients, so the label set is capped
 * (METRICS_MAX_OPERATIONS, default below) and so is each label's length
 * (MAX_ECHOED_CHARS): a client sending a fresh or a huge name per request must
 * grow neither the registry nor the /metrics page without bound.
 */
export const MAX_OPERATION_LABELS = 200;
const OVERFLOW_OPERATION_LABEL = 'other';

export interface MetricsLimits {
  /** Distinct operation names kept as labels; later ones are counted as `other`. */
  maxOperations: number;
  /** Longest label value; longer client-supplied values are cut. */
  labelChars: number;
}

const UPSTREAM_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface GatewayMetrics {
  /** This gateway's own registry: several gateways in one process never share series. */
  registry: Registry;
  recordRequest(summary: RequestSummary): void;
  /** A request refused before it reached the GraphQL pipeline: counted as `unresolved`, with no duration. */
  recordRefusal(code: string): void;
  recordUpstream(event: UpstreamCallEvent): void;
  /** A request refused by the per-caller rate limit, keyed by its token or (without one) its address. */
  recordRateLimited(caller: RateLimitedCaller): void;
  /** The shared rate-limit store failed or did not answer in time: the request was counted in memory. */
  recordRateLimitStoreFailure(): void;
  /** One platform attempt paid from a caller's budget. */
  recordBudgetDraw(): void;
  close(): void;
  /** A request refused by the trusted-documents check (TRUSTED_DOCUMENTS), by its error code. */
  recordTrustedDocumentRefusal(code: string): void;
  /** Open subscriptions and their shared pollers, polls and events (src/subscriptions/). */
  subscriptions: SubscriptionObserver;
}

/** How a refused request was keyed: its token's budget, its address's budget (no token), or its address's refused-token limit. */
export type RateLimitedCaller = 'token' | 'address' | 'auth-failures';

/** Metrics of one gateway instance, fed by the request plugin and the platform seam's observer. */
export function createMetrics(http: PolicyChain, limits: MetricsLimits = { maxOperations: MAX_OPERATION_LABELS, labelChars: 64 }): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = requestMetrics(registry, limits);
  const upstream = upstreamMetrics(registry, http);
  const stopPaging = pagingMetrics(registry, http);
  const refusals = refusalMetrics(registry);
  return {
    registry,
    ...requests,
    ...refusals,
    subscriptions: subscriptionMetrics(registry),
    recordUpstream: upstream,
    close() {
      stopPaging();
      registry.clear();
    },
  };
}

/** GraphQL requests by operation and outcome, and their duration. */
function requestMetrics(registry: Registry, limits: MetricsLimits): Pick<GatewayMetrics, 'recordRequest' | 'recordRefusal'> {
  const requests = new Counter({
    name: 'graphql_requests_total',
    help: 'GraphQL requests by operation name and outcome (ok, or the code of the first error)',
    labelNames: ['operation', 'outcome'] as const,
    registers: [registry],
  });
  const requestDuration = new Histogram({
    name: 'graphql_request_duration_seconds',
    help: 'Time from the start of GraphQL processing to the response, by operation name',
    labelNames: ['operation'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  // Names are kept cut, so two long names with a common prefix share a series.
  const operations = new Set<string>();
  const operationLabel = (name: string): string => {
    const label = clip(name, limits.labelChars);
    if (operations.has(label)) return label;
    if (operations.size >= limits.maxOperations) return OVERFLOW_OPERATION_LABEL;
    operations.add(label);
    return label;
  };
  return {
    recordRequest(summary) {
      const operation = operationLabel(summary.operationLabel);
      requests.inc({ operation, outcome: clip(summary.errorCodes[0] ?? 'ok', limits.labelChars) });
      requestDuration.observe({ operation }, summary.durationMs / 1000);
    },
    recordRefusal(code) {
      requests.inc({ operation: 'unresolved', outcome: clip(code, limits.labelChars) });
    },
  };
}

/**
 * Platform calls (count, duration, retries, shared answers, refusals at a route's bound) and, read
 * at scrape time, the breakers' state, the sockets and each route's load. Route labels come from code only.
 */
function upstreamMetrics(registry: Registry, http: PolicyChain): GatewayMetrics['recordUpstream'] {
  const upstreamRequests = new Counter({
    name: 'upstream_requests_total',
    help: 'Calls to the platform (retries included in one call) by route, method and final status (0: no answer)',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const upstreamDuration = new Histogram({
    name: 'upstream_request_duration_seconds',
    help: 'Duration of platform calls by route, retries and backoff included',
    labelNames: ['route'] as const,
    buckets: UPSTREAM_BUCKETS,
    registers: [registry],
  });
  const upstreamRetries = new Counter({
    name: 'upstream_retries_total',
    help: 'Retried attempts of platform calls by route',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'upstream_breaker_state',
    help: 'Circuit breaker towards the platform: 0 closed, 1 half-open, 2 open',
    registers: [registry],
    // Across cluster workers: the most severe state, on the same scale (a sum would not be).
    aggregator: 'max',
    // Read at scrape time, so the value can never lag behind the breaker.
    collect() {
      this.set(BREAKER_STATE_VALUE[http.breakerState]);
    },
  });

  new Gauge({
    name: 'upstream_sockets',
    help: 'Keep-alive sockets to the platform: active (carrying a request) or idle (pooled)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const { active, idle } = http.socketCounts();
      this.set({ state: 'active' }, active);
      this.set({ state: 'idle' }, idle);
    },
  });

  const upstreamBusy = new Counter({
    name: 'upstream_busy_total',
    help: 'Platform calls refused with UPSTREAM_BUSY because their route had UPSTREAM_ROUTE_MAX_IN_FLIGHT calls in flight and UPSTREAM_ROUTE_QUEUE waiting',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const upstreamShared = new Counter({
    name: 'upstream_shared_calls_total',
    help: 'GETs answered by an identical call another request had in flight, instead of a call of their own',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'upstream_in_flight',
    help: 'Platform calls holding a slot of their route (breaker key), and calls waiting for one',
    labelNames: ['route', 'state'] as const,
    registers: [registry],
    collect() {
      for (const load of http.routeLoad()) {
        this.set({ route: load.route, state: 'active' }, load.inFlight);
        this.set({ route: load.route, state: 'queued' }, load.queued);
      }
    },
  });

  return (event) => {
    // A shared answer made no call of its own: the call is counted once, by the request that made it.
    if (event.shared) {
      upstreamShared.inc({ route: event.route });
      return;
    }
    if (event.errorCode === 'UPSTREAM_BUSY') upstreamBusy.inc({ route: event.route });
    upstreamRequests.inc({ route: event.route, method: event.method, status: String(event.status) });
    upstreamDuration.observe({ route: event.route }, event.durationMs / 1000);
    if (event.retries > 0) upstreamRetries.inc({ route: event.route }, event.retries);
  };
}

/** How anchored cursors were found again, and the page-size cap learned per list; returns what stops observing the anchors. */
function pagingMetrics(registry: Registry, http: PolicyChain): () => void {
  // Labels come from code only: list names of the area descriptors and the fixed set of anchor outcomes.
  const paging = pagingFactsFor(http);
  const cursorAnchors = new Counter({
    name: 'connection_cursor_anchors_total',
    help: 'Anchored cursors read, by list and how their record was found again (exact, moved, widened, sort-keys, offset, unverified)',
    labelNames: ['list', 'outcome'] as const,
    registers: [registry],
  });
  const stopObservingAnchors = paging.observeAnchors((event) => cursorAnchors.inc({ list: event.list, outcome: event.outcome }));
  new Gauge({
    name: 'upstream_page_size_cap',
    help: 'Page size the platform was seen to cap list requests at, by list (absent until a response shows a cap)',
    labelNames: ['list'] as const,
    registers: [registry],
    // Every worker learns the same platform cap; a sum would multiply it.
    aggregator: 'max',
    collect() {
      // Only the caps in force: a learned cap expires (src/connections/page-cap.ts).
      this.reset();
      for (const [list, size] of paging.pageCaps()) this.set({ list }, size);
    },
  });

  return stopObservingAnchors;
}

/** Refusals of the budgets and of the trusted-documents check, and failures of the budgets' shared store. Labels come from code only. */
function refusalMetrics(registry: Registry): Pick<GatewayMetrics, 'recordRateLimited' | 'recordRateLimitStoreFailure' | 'recordTrustedDocumentRefusal' | 'recordBudgetDraw'> {
  const draws = new Counter({
    name: 'budget_draws_total',
    help: 'Platform attempts paid from callers\' budgets (RATE_LIMIT_PER_SECOND), one per attempt sent, for queries and subscription polls alike',
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'rate_limited_total',
    help: 'Requests refused with HTTP 429: by the budget of their token (token) or of their address without one (address), or by their address\'s limit on tokens the platform has not accepted (auth-failures)',
    labelNames: ['caller'] as const,
    registers: [registry],
  });
  const rateLimitStoreFailures = new Counter({
    name: 'rate_limit_store_failures_total',
    help: 'Budget operations the shared store (Redis, or the primary of WORKERS) failed or did not answer within RATE_LIMIT_STORE_TIMEOUT_MS; each was counted by this instance in memory',
    registers: [registry],
  });
  // Trusted documents: the label is one of the few refusal codes the check answers, never client text.
  const trustedDocumentRefusals = new Counter({
    name: 'trusted_document_refusals_total',
    help: 'Requests refused by the trusted-documents check (TRUSTED_DOCUMENTS), by error code',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  return {
    recordRateLimited(caller) {
      rateLimited.inc({ caller });
    },
    recordRateLimitStoreFailure() {
      rateLimitStoreFailures.inc();
    },
    recordBudgetDraw() {
      draws.inc();
    },
    recordTrustedDocumentRefusal(code) {
      trustedDocumentRefusals.inc({ code });
    },
  };
}

/** Subscriptions: open ones by transport, the pollers they share, polls by outcome, events queued. Labels come from code only. */
function subscriptionMetrics(registry: Registry): SubscriptionObserver {
  const open = new Gauge({ name: 'subscriptions_open', help: 'Subscriptions open, by transport (sse, multipart, ws)', labelNames: ['transport'] as const, registers: [registry] });
  for (const transport of ['sse', 'multipart', 'ws'] as const satisfies readonly Transport[]) open.set({ transport }, 0);
  const pollers = new Gauge({ name: 'subscription_pollers', help: 'Pollers running: one per token, field and arguments, shared by its subscribers', registers: [registry] });
  const polls = new Counter({
    name: 'subscription_polls_total',
    help: 'Polls of the platform by subscription pollers, by outcome: ok, skipped (the caller\'s budget was spent; nothing lost) or failed; received: the outcome of a poll another replica made (REDIS_URL)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const events = new Counter({ name: 'subscription_events_total', help: 'Events queued for subscribers (one per subscriber and change)', registers: [registry] });
  const dropped = new Counter({ name: 'subscription_subscribers_dropped_total', help: 'Subscribers dropped for falling more than SUBSCRIBER_QUEUE events behind, or for holding most when the subscribers together held more than SUBSCRIPTION_BUFFER_BYTES (their stream ends with RATE_LIMITED)', registers: [registry] });
  const unreadable = new Counter({
    name: 'subscription_record_times_unreadable_total',
    help: 'Records a feed read whose time is not a date-time the platform contract allows, by field: they cannot be placed in the feed\'s order and are not sent (logged once per feed)',
    labelNames: ['field'] as const,
    registers: [registry],
  });
  return {
    subscriptionOpened: (transport) => open.inc({ transport }),
    subscriptionClosed: (transport) => open.dec({ transport }),
    pollersChanged: (count) => pollers.set(count),
    polled: (outcome) => polls.inc({ outcome }),
    eventsQueued: (count) => events.inc(count),
    subscriberDropped: () => dropped.inc(),
    recordTimesUnreadable: (field, count) => unreadable.inc({ field }, count),
  };
}

/** Supervision of cluster workers (WORKERS > 1), as the primary process sees it. */
interface WorkerSupervisionMetrics {
  /** The primary's own registry (its process metrics included), aggregated with the workers' by /metrics. */
  registry: Registry;
  /** A worker that exited unexpectedly was replaced. */
  recordRestart(): void;
  /** A worker sent no heartbeat for WORKER_HEARTBEAT_TIMEOUT_MS and was killed (its replacement is a restart). */
  recordHang(): void;
}

/** Metrics of the primary process of a worker group; `listening` is read at scrape time. */
export function createWorkerSupervisionMetrics(listening: () => number): WorkerSupervisionMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'gateway_workers',
    help: 'Worker processes of this instance that are serving (listening)',
    registers: [registry],
    collect() {
      this.set(listening());
    },
  });
  const restarts = new Counter({
    name: 'gateway_worker_restarts_total',
    help: 'Worker processes started again after one exited unexpectedly',
    registers: [registry],
  });
  const hangs = new Counter({
    name: 'gateway_worker_hangs_total',
    help: 'Worker processes killed because their event loop sent no heartbeat for WORKER_HEARTBEAT_TIMEOUT_MS',
    registers: [registry],
  });
  return {
    registry,
    recordRestart() {
      restarts.inc();
    },
    recordHang() {
      hangs.inc();
    },
  };
}
