import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { clip } from '../client-text.ts';
import { pagingFactsFor } from '../connections/paging-facts.ts';
import type { PlatformHttp, UpstreamCallEvent } from '../platform/http.ts';
import type { RequestSummary } from './request-summary.ts';

/** Numeric value of `upstream_breaker_state`: alerting rules compare against these. */
export const BREAKER_STATE_VALUE = { closed: 0, 'half-open': 1, open: 2, isolated: 2 } as const;

/**
 * Operation names come from clients, so the label set is capped
 * (METRICS_MAX_OPERATIONS, default below) and so is each label's length
 * (MAX_ECHOED_CHARS): a client sending a fresh or a huge name per request must
 * grow neither the registry nor the /metrics page without bound.
 */
export const MAX_OPERATION_LABELS = 200;
export const OVERFLOW_OPERATION_LABEL = 'other';

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
  close(): void;
}

/** Metrics of one gateway instance, fed by the request plugin and the platform seam's observer. */
export function createMetrics(http: PlatformHttp, limits: MetricsLimits = { maxOperations: MAX_OPERATION_LABELS, labelChars: 64 }): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

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

  // Paging: how anchored cursors were found again, and the page-size cap learned per list. Labels
  // come from code only: list names of the area descriptors and the fixed set of anchor outcomes.
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
    collect() {
      // Only the caps in force: a learned cap expires (src/connections/page-cap.ts).
      this.reset();
      for (const [list, size] of paging.pageCaps()) this.set({ list }, size);
    },
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
    registry,
    recordRequest(summary) {
      const operation = operationLabel(summary.operationLabel);
      requests.inc({ operation, outcome: clip(summary.errorCodes[0] ?? 'ok', limits.labelChars) });
      requestDuration.observe({ operation }, summary.durationMs / 1000);
    },
    recordRefusal(code) {
      requests.inc({ operation: 'unresolved', outcome: clip(code, limits.labelChars) });
    },
    recordUpstream(event) {
      upstreamRequests.inc({ route: event.route, method: event.method, status: String(event.status) });
      upstreamDuration.observe({ route: event.route }, event.durationMs / 1000);
      if (event.retries > 0) upstreamRetries.inc({ route: event.route }, event.retries);
    },
    close() {
      stopObservingAnchors();
      registry.clear();
    },
  };
}
