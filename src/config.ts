import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { schema, SETTINGS, tracesEndpoint, withComputedDefaults } from './settings.ts';

// Every setting comes from the environment, is validated once at start-up and is
// then immutable. A bad value stops start-up with a message naming the variable.
// The variables, their defaults and their meaning are defined in ./settings.ts.

export { routeLimits, type RouteLimits } from './settings.ts';

export interface CorsConfig {
  /** Origins allowed exactly, e.g. https://app.example.com. */
  origins: string[];
  /** Any http://localhost:<port> and http://127.0.0.1:<port> (development default). */
  allowLoopbackOrigins: boolean;
  /** Access-Control-Allow-Credentials: only for cookie-carrying clients; a bearer token needs none. */
  credentials: boolean;
  /** How long a browser may reuse a preflight answer. */
  maxAgeSeconds: number;
}

/** `scheme://host[:port]` exactly as a browser sends it in `Origin`: no path, no trailing slash. */
const ORIGIN = /^https?:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

const listed = (text: string | undefined) => (text ?? '').split(',').map((origin) => origin.trim()).filter((origin) => origin !== '');

/** Longest budget window: the in-memory limiter keeps one timer per caller for that long. */
const MAX_RATE_LIMIT_WINDOW_SECONDS = 86_400;

/**
 * The budget as rate-limiter-flexible counts it: `burst` requests per window of
 * burst ÷ rate seconds (see src/hardening/rate-limit.ts). The burst defaults to
 * one second's worth; a window under a second cannot be kept by Redis' expiry.
 */
function rateLimitWindow(perSecond: number, burst: number | undefined): { perSecond: number; burst: number; windowSeconds: number } | string {
  const points = burst ?? Math.ceil(perSecond);
  const windowSeconds = points / perSecond;
  if (windowSeconds < 1) return `must be at least RATE_LIMIT_PER_SECOND (${perSecond}): the burst is at least one second's worth of requests`;
  if (windowSeconds > MAX_RATE_LIMIT_WINDOW_SECONDS) return `RATE_LIMIT_BURST ÷ RATE_LIMIT_PER_SECOND must not exceed ${MAX_RATE_LIMIT_WINDOW_SECONDS} s (one day)`;
  return { perSecond, burst: points, windowSeconds };
}

/**
 * The environment as the gateway uses it. The checks that involve several
 * variables are issues of this step, reported like any other bad value.
 */
const configSchema = schema.transform((read, ctx) => {
  const e = withComputedDefaults(read);
  if (e.PAGE_SIZE_DEFAULT > e.PAGE_SIZE_MAX) {
    ctx.addIssue({ code: 'custom', path: ['PAGE_SIZE_DEFAULT'], message: `must not exceed PAGE_SIZE_MAX (${e.PAGE_SIZE_MAX})` });
    return z.NEVER;
  }
  const production = e.NODE_ENV === 'production';
  const origins = listed(e.CORS_ORIGINS);
  const badOrigins = origins.filter((origin) => !ORIGIN.test(origin));
  if (badOrigins.length > 0) {
    ctx.addIssue({ code: 'custom', path: ['CORS_ORIGINS'], message: `not an origin (scheme://host[:port], no path): ${badOrigins.join(', ')}` });
    return z.NEVER;
  }
  if (e.STACK_TRACES && production) {
    ctx.addIssue({ code: 'custom', path: ['STACK_TRACES'], message: 'stack traces are never sent in production (NODE_ENV=production)' });
    return z.NEVER;
  }
  if (e.RATE_LIMIT_BURST !== undefined && e.RATE_LIMIT_PER_SECOND === undefined) {
    ctx.addIssue({ code: 'custom', path: ['RATE_LIMIT_BURST'], message: 'needs RATE_LIMIT_PER_SECOND (the limit is off without it)' });
    return z.NEVER;
  }
  const rateLimit = e.RATE_LIMIT_PER_SECOND === undefined ? undefined : rateLimitWindow(e.RATE_LIMIT_PER_SECOND, e.RATE_LIMIT_BURST);
  if (typeof rateLimit === 'string') {
    ctx.addIssue({ code: 'custom', path: ['RATE_LIMIT_BURST'], message: rateLimit });
    return z.NEVER;
  }
  if (e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS) {
    ctx.addIssue({ code: 'custom', path: ['HEADERS_TIMEOUT_MS'], message: `must not exceed REQUEST_TIMEOUT_MS (${e.REQUEST_TIMEOUT_MS})` });
    return z.NEVER;
  }
  if (e.TRUSTED_DOCUMENTS_ONLY && !e.TRUSTED_DOCUMENTS) {
    ctx.addIssue({ code: 'custom', path: ['TRUSTED_DOCUMENTS_ONLY'], message: 'needs TRUSTED_DOCUMENTS=<manifest file>' });
    return z.NEVER;
  }
  const cors: CorsConfig = {
    origins: origins.map((origin) => origin.toLowerCase()),
    allowLoopbackOrigins: !production,
    credentials: e.CORS_CREDENTIALS,
    maxAgeSeconds: e.CORS_MAX_AGE_SECONDS,
  };
  const exporter = e.OTEL_TRACES_EXPORTER;
  return {
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    /** Platform base URL; absent means "serve over the embedded sandbox". */
    upstreamUrl: e.UPSTREAM_URL?.replace(/\/+$/, ''),
    upstream: {
      connectTimeoutMs: e.UPSTREAM_CONNECT_TIMEOUT_MS,
      responseTimeoutMs: e.UPSTREAM_RESPONSE_TIMEOUT_MS,
      requestTimeoutMs: e.UPSTREAM_REQUEST_TIMEOUT_MS,
      maxSockets: e.UPSTREAM_MAX_SOCKETS,
      retryLimit: e.UPSTREAM_RETRY_LIMIT,
      retryBaseMs: e.UPSTREAM_RETRY_BASE_MS,
      retryAfterCapMs: e.UPSTREAM_RETRY_AFTER_CAP_MS,
      breakerThreshold: e.UPSTREAM_BREAKER_THRESHOLD,
      breakerCooldownMs: e.UPSTREAM_BREAKER_COOLDOWN_MS,
      maxPageSize: e.UPSTREAM_MAX_PAGE_SIZE,
    },
    /**
     * Longest a GraphQL request may spend on platform calls, retries and their waits included; then its
     * unfinished calls stop and their fields answer UPSTREAM_TIMEOUT.
     */
    requestDeadlineMs: e.REQUEST_DEADLINE_MS,
    /** Most federation representations (`_entities`) one request may ask for; each can cost platform calls. */
    maxEntityRepresentations: e.MAX_ENTITY_REPRESENTATIONS,
    documentLoaderConcurrency: e.DOCUMENT_LOADER_CONCURRENCY,
    paging: { defaultSize: e.PAGE_SIZE_DEFAULT, maxSize: e.PAGE_SIZE_MAX },
    logLevel: e.LOG_LEVEL,
    playground: e.PLAYGROUND,
    introspection: e.INTROSPECTION,
    /**
     * Ports of the embedded sandbox `npm start` runs when no UPSTREAM_URL is set (API and content
     * host); 0 = any free port. The defaults are `npm run sandbox`'s, so its documented URLs work.
     */
    sandboxPort: e.SANDBOX_PORT,
    sandboxContentPort: e.SANDBOX_CONTENT_PORT,
    /** The embedded sandbox's live exceptions and silent page-size cap (sandbox/index.ts SandboxOptions). */
    sandbox: { live: e.SANDBOX_LIVE, liveIntervalMs: e.SANDBOX_LIVE_INTERVAL_MS, maxPageSize: e.SANDBOX_MAX_PAGE_SIZE },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    /** Serve GET /metrics. */
    metrics: e.METRICS,
    /** Distinct operation names /metrics keeps a series for; later names are counted as `other`. */
    metricsMaxOperations: e.METRICS_MAX_OPERATIONS,
    /** Longest client-supplied text repeated in an error message, a log line or a metric label; longer text is cut. */
    echoChars: e.MAX_ECHOED_CHARS,
    readiness: { probeTimeoutMs: e.READY_PROBE_TIMEOUT_MS, cacheMs: e.READY_CACHE_MS },
    /** `none`: no tracing code is loaded at all. */
    tracing: {
      exporter,
      endpoint: exporter === 'otlp' ? (tracesEndpoint(e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, e.OTEL_EXPORTER_OTLP_ENDPOINT) ?? 'http://localhost:4318/v1/traces') : undefined,
      serviceName: e.OTEL_SERVICE_NAME,
    },
    /** Shared store of persisted queries; absent means an in-memory store per instance. */
    redisUrl: e.REDIS_URL,
    /** Abuse limits, all enforced before execution (see src/hardening/). */
    limits: {
      depth: e.MAX_QUERY_DEPTH,
      aliases: e.MAX_QUERY_ALIASES,
      directives: e.MAX_QUERY_DIRECTIVES,
      tokens: e.MAX_QUERY_TOKENS,
      cost: e.MAX_QUERY_COST,
      bodyBytes: e.MAX_BODY_BYTES,
      batchSize: e.MAX_BATCH_SIZE,
    },
    /** Accept a JSON array of operations in one request. */
    allowBatchedRequests: e.ALLOW_BATCHED_REQUESTS,
    /** Keep graphql-js's "Did you mean …" hints in error messages. */
    fieldSuggestions: e.FIELD_SUGGESTIONS,
    /** Automatic persisted queries; `ttlSeconds` 0 keeps entries until evicted. */
    persistedQueries: {
      enabled: e.PERSISTED_QUERIES,
      ttlSeconds: e.PERSISTED_QUERY_TTL_SECONDS,
      storeTimeoutMs: e.PERSISTED_QUERY_STORE_TIMEOUT_MS,
    },
    /** Which browser origins may call the gateway (see src/hardening/cors.ts). */
    cors,
    /** Trusted documents: a Relay persisted-query manifest (id → document); `only` refuses anything not in it. */
    trustedDocuments: e.TRUSTED_DOCUMENTS ? { file: e.TRUSTED_DOCUMENTS, only: e.TRUSTED_DOCUMENTS_ONLY } : undefined,
    /** Send stack traces of errors to clients (never in production). */
    stackTraces: e.STACK_TRACES,
    /** Execute validated documents compiled by graphql-jit (cached per document) instead of interpreted by graphql-js. */
    compiledExecution: {
      enabled: e.COMPILED_EXECUTION,
      cacheSize: e.COMPILED_QUERY_CACHE_SIZE,
      /** Estimated heap of the compiled documents kept (generated code, not document text). */
      cacheBytes: e.COMPILED_QUERY_CACHE_BYTES,
      /** Executions among recent ones before a document is compiled; until then graphql-js interprets it. */
      minUses: e.COMPILED_QUERY_MIN_USES,
    },
    /**
     * Worker processes sharing the port (1: the gateway runs in this process alone; `auto`: one per CPU
     * this process may use, cgroup limits included), and how long a stopping process keeps serving
     * while answering /readyz with 503, so a load balancer takes it out of rotation before it closes.
     */
    scaling: { workers: e.WORKERS === 'auto' ? availableParallelism() : Number(e.WORKERS), shutdownDelayMs: e.SHUTDOWN_DELAY_MS },
    /** Per-caller request budget (absent: off); shared through REDIS_URL when set. */
    rateLimit: rateLimit && { ...rateLimit, storeTimeoutMs: e.RATE_LIMIT_STORE_TIMEOUT_MS },
    /**
     * Client connections: the headers must arrive within `headersTimeoutMs` and the whole request (headers and
     * body) within `requestTimeoutMs` of its first byte, else it is answered 408 and its connection closed;
     * connections beyond `maxConnections` are closed as they are accepted.
     */
    connections: { headersTimeoutMs: e.HEADERS_TIMEOUT_MS, requestTimeoutMs: e.REQUEST_TIMEOUT_MS, maxConnections: e.MAX_CONNECTIONS },
    /** What the gateway does to protect the platform (src/platform/http.ts, client.ts). */
    platformProtection: {
      route: { maxInFlight: e.UPSTREAM_ROUTE_MAX_IN_FLIGHT, queue: e.UPSTREAM_ROUTE_QUEUE },
      /** Identical GETs of concurrent requests (same token, path and query) share one call while it is in flight. */
      shareReads: e.UPSTREAM_SHARE_READS,
      maxCallsPerRequest: e.MAX_PLATFORM_CALLS_PER_REQUEST,
    },
  };
});

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads and validates the configuration; throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const relevant = Object.fromEntries(
    Object.keys(SETTINGS).map((key) => [key, env[key] === '' ? undefined : env[key]]),
  );
  const parsed = configSchema.safeParse(relevant);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return parsed.data;
}

/** A configuration for in-process use (tests, benchmark): defaults plus overrides. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PORT: '0', ...overrides });
}
