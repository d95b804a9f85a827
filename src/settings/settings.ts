import { z } from 'zod';
import { BREAKER_KEYS } from '../schema/areas.ts';
import { readSandboxSetting, SANDBOX_SETTINGS, SandboxSettingError, type SandboxSettingName } from './sandbox-settings.ts';

// Every environment variable the gateway reads, defined once: how its text is read and checked, its
// default, what it means, where it is documented and where its value goes in the Config object
// (src/settings/config.ts adds the values derived from several settings, and the checks across settings).
// `npm run settings:docs` writes the settings tables of docs/ from this table.

/** The tables of docs/configuration.md, in the order they appear there. */
export const GROUPS = [
  'first',
  'platform-calls',
  'paging',
  'request-limits',
  'schema-exposure',
  'browser-clients',
  'execution',
  'client-connections',
  'operations',
  'embedded-sandbox',
  'scaling',
  'rate-limit',
  'platform-protection',
] as const;
export type Group = (typeof GROUPS)[number];

/**
 * What a default computed from the environment is computed from: whether NODE_ENV is production,
 * and the other settings as read, before any computed default is applied.
 */
interface Basis {
  readonly production: boolean;
  readonly values: Readonly<Record<string, unknown>>;
}

/** A default that depends on the environment, and how the docs show it. */
interface Computed<T> {
  readonly computed: (basis: Basis) => T;
  readonly shown: string;
}

type Literal = string | number | boolean;

interface Common {
  readonly group: Group;
  /** The meaning column of the docs (Markdown, one line). */
  readonly doc: string;
  /** Reads the variable's text when it is set. */
  readonly schema: z.ZodType;
  /**
   * Where the value goes in the Config object, as a dotted path (`upstream.maxSockets`). A setting
   * without one is read by src/settings/config.ts into a value it derives from several (CORS, rate limit …).
   */
  readonly config?: string;
}

/** One variable. Its default column in the docs follows from its default, or is `shown` when it has none. */
export type Definition = Common &
  (
    | {
        /** The value when unset, as the schema would read it from its text. */
        readonly default: Literal;
        /** Shown after the default in the docs, in parentheses (e.g. the value in kB). */
        readonly note?: string;
        readonly shown?: never;
        readonly readsUnset?: never;
      }
    | { readonly default: Computed<unknown>; readonly note?: never; readonly shown?: never; readonly readsUnset?: never }
    | {
        readonly default?: never;
        readonly note?: never;
        /** What an unset variable means (it reads as undefined, or as the schema's own default). */
        readonly shown: string;
        /** The schema reads an unset variable itself (the sandbox's settings, whose defaults are the sandbox's). */
        readonly readsUnset?: true;
      }
  );

/**
 * A number as an operator writes one: decimal digits, a sign and a fraction at most. Number() alone
 * would also read `0x10` as 16, `1e3` as 1000 or `Infinity`, and start a gateway on a value nobody wrote.
 * One schema for every such setting: each zod schema built costs start-up time (about 7 ms for
 * the fifty-odd settings when each built its own).
 */
const DECIMAL_TEXT = z
  .string()
  .trim()
  .regex(/^[+-]?\d+(\.\d+)?$/, 'Invalid input: expected a number in decimal digits')
  .transform(Number);
const decimal = (number: z.ZodNumber) => DECIMAL_TEXT.pipe(number);
const int = (min: number, max: number) => decimal(z.number().int().min(min).max(max));
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const httpUrl = z.url({ protocol: /^https?$/ });

/** A SANDBOX_* variable, read through the sandbox's own definition (./sandbox-settings.ts): one reading for both. */
const sandboxSetting = <N extends SandboxSettingName>(name: N) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      try {
        return readSandboxSetting(name, text);
      } catch (error) {
        if (!(error instanceof SandboxSettingError)) throw error;
        ctx.addIssue({ code: 'custom', message: error.message });
        return z.NEVER;
      }
    });

/** The default column of a sandbox setting: the sandbox's own default. */
const sandboxDefault = (name: SandboxSettingName) => {
  const definition: object = SANDBOX_SETTINGS[name];
  return 'default' in definition ? `\`${String(definition.default)}\`` : '(none)';
};

const onUnlessProduction: Computed<boolean> = { computed: ({ production }) => !production, shown: 'on unless production' };

/** Platform calls one GraphQL request may make (MAX_PLATFORM_CALLS_PER_REQUEST); docs/security.md says how it was chosen. */
const DEFAULT_MAX_PLATFORM_CALLS_PER_REQUEST = 200;

/** How many calls of one platform route may be in flight and wait: settings left unset are sized from the socket pool. */
export interface RouteLimits {
  /** Calls of one route (breaker key) in flight at once: half the pool by default, so a hung route leaves the other half to the rest. */
  maxInFlight: number;
  /** Calls of one route waiting for a slot; past it they are refused with UPSTREAM_BUSY. */
  queue: number;
}

export function routeLimits(maxSockets: number, maxInFlight?: number, queue?: number): RouteLimits {
  return { maxInFlight: maxInFlight ?? Math.max(1, Math.floor(maxSockets / 2)), queue: queue ?? 4 * maxSockets };
}

/** OpenTelemetry's own conventions: a traces endpoint is used as is, a base endpoint gets /v1/traces. */
export function tracesEndpoint(traces: string | undefined, base: string | undefined): string | undefined {
  return traces ?? (base && `${base.replace(/\/+$/, '')}/v1/traces`);
}

/** UPSTREAM_MAX_SOCKETS when unset; the route limits' defaults are sized from it. */
const DEFAULT_MAX_SOCKETS = 64;
const maxSockets = ({ values }: Basis) => values.UPSTREAM_MAX_SOCKETS as number;
const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * The settings. Within a group, rows appear in the docs in this order; the order of the groups is
 * GROUPS'. A bad value is reported in this order too.
 */
export const SETTINGS = {
  // First settings
  UPSTREAM_URL: {
    group: 'first', schema: httpUrl, shown: '(none: embedded sandbox)',
    doc: 'platform base URL; without it `npm start` serves over the embedded sandbox ([sandbox.md](sandbox.md))',
  },
  PORT: { group: 'first', config: 'port', schema: int(0, 65535), default: 4000, doc: 'gateway port (`0`: any free port)' },
  HOST: { group: 'first', config: 'host', schema: z.string().min(1), default: '127.0.0.1', doc: 'interface to listen on (`0.0.0.0` in containers)' },
  NODE_ENV: {
    group: 'first', config: 'env', schema: z.enum(['development', 'production', 'test']), default: 'development',
    doc: '`production` turns off introspection and the playground, masks internal errors and lets only `CORS_ORIGINS` call from a browser',
  },
  LOG_LEVEL: {
    group: 'first', config: 'logLevel', schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), default: 'info',
    doc: 'pino level (`silent` … `trace`)',
  },
  CORS_ORIGINS: {
    group: 'first', schema: z.string(), shown: '(none)',
    doc: 'comma-separated browser origins allowed to call the gateway (`https://app.example.com`); outside production any `http://localhost:*` and `http://127.0.0.1:*` origin is allowed as well ([web-clients.md](web-clients.md))',
  },
  TRUSTED_DOCUMENTS: {
    group: 'first', schema: z.string().min(1), shown: '(none)',
    doc: 'trusted-documents manifest (id → document, as `npm run relay` writes it; [web-clients.md](web-clients.md))',
  },
  REDIS_URL: {
    group: 'first', config: 'redisUrl', schema: z.url({ protocol: /^rediss?$/ }), shown: '(none: in-memory per instance)',
    doc: 'Redis shared by instances as the persisted-query store (`redis://` or `rediss://`) and, with `ADMIN_TOKEN`, the store of published trusted documents; may evict (`allkeys-lru`), or with `ADMIN_TOKEN` `volatile-lru`, which never evicts the published documents (they carry no expiry). Budgets use `RATE_LIMIT_REDIS_URL`',
  },
  REQUEST_DEADLINE_MS: {
    group: 'first', config: 'requestDeadlineMs', schema: int(100, 300_000), default: 8_000,
    doc: 'longest a GraphQL request spends on platform calls, retries included; then its unfinished fields answer `UPSTREAM_TIMEOUT`',
  },
  METRICS: { group: 'first', config: 'metrics', schema: bool, default: true, doc: 'serve `GET /metrics` ([operations.md](operations.md))' },
  OTEL_TRACES_EXPORTER: {
    group: 'first', config: 'tracing.exporter', schema: z.enum(['otlp', 'console', 'none']),
    default: {
      computed: ({ values }) => (tracesEndpoint(text(values.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), text(values.OTEL_EXPORTER_OTLP_ENDPOINT)) ? 'otlp' : 'none'),
      shown: '`otlp` with an endpoint, else `none`',
    } satisfies Computed<'otlp' | 'none'>,
    doc: '`otlp`, `console` or `none` (no tracing code is loaded)',
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    group: 'first', schema: httpUrl, shown: '(none: tracing off)', doc: 'OTLP/HTTP collector base URL (`/v1/traces` is added)',
  },
  PLAYGROUND: {
    group: 'first', config: 'playground', schema: bool, default: onUnlessProduction, doc: 'serve the offline GraphiQL playground on `GET /graphql` ([playground.md](playground.md))',
  },

  // Platform calls: timeouts, retries, circuit breakers
  UPSTREAM_CONNECT_TIMEOUT_MS: { group: 'platform-calls', config: 'upstream.connectTimeoutMs', schema: int(1, 60_000), default: 1_000, doc: 'TCP connect (and DNS/TLS) timeout per attempt' },
  UPSTREAM_RESPONSE_TIMEOUT_MS: { group: 'platform-calls', config: 'upstream.responseTimeoutMs', schema: int(1, 120_000), default: 5_000, doc: 'time to the first response byte per attempt' },
  UPSTREAM_REQUEST_TIMEOUT_MS: { group: 'platform-calls', config: 'upstream.requestTimeoutMs', schema: int(1, 300_000), default: 10_000, doc: 'whole attempt, body included (bounds trickling bodies)' },
  UPSTREAM_MAX_SOCKETS: {
    group: 'platform-calls', config: 'upstream.maxSockets', schema: int(1, 10_000), default: DEFAULT_MAX_SOCKETS,
    doc: 'keep-alive socket pool size to the platform; idle connections are kept up to the same number; one route uses at most `UPSTREAM_ROUTE_MAX_IN_FLIGHT` of them ([platform protection](#platform-protection))',
  },
  UPSTREAM_RETRY_LIMIT: { group: 'platform-calls', config: 'upstream.retryLimit', schema: int(0, 5), default: 2, doc: 'retries of a GET (never a PUT) on network errors, 429, 502, 503, 504' },
  UPSTREAM_RETRY_BASE_MS: { group: 'platform-calls', config: 'upstream.retryBaseMs', schema: int(1, 10_000), default: 100, doc: 'backoff base: attempt n waits a jittered 50–100 % of base × 2ⁿ⁻¹' },
  UPSTREAM_RETRY_AFTER_CAP_MS: { group: 'platform-calls', config: 'upstream.retryAfterCapMs', schema: int(0, 60_000), default: 2_000, doc: 'a longer `Retry-After` is not waited for: the error is returned' },
  UPSTREAM_BREAKER_THRESHOLD: {
    group: 'platform-calls', config: 'upstream.breakerThreshold', schema: int(1, 1_000), default: 5,
    doc: 'consecutive 5xx/network failures/timeouts of one platform route that open that route\'s circuit (a timed-out attempt counts at once, before any retry; see [operations.md](operations.md))',
  },
  UPSTREAM_BREAKER_COOLDOWN_MS: {
    group: 'platform-calls', config: 'upstream.breakerCooldownMs', schema: int(100, 600_000), default: 10_000, doc: 'how long an open route\'s circuit fails fast before one probe call is let through',
  },
  DOCUMENT_LOADER_CONCURRENCY: { group: 'platform-calls', config: 'documentLoaderConcurrency', schema: int(1, 100), default: 8, doc: 'parallel document GETs per GraphQL request' },

  // Paging
  PAGE_SIZE_DEFAULT: { group: 'paging', config: 'paging.defaultSize', schema: int(1, 1_000), default: 20, doc: 'connection page size without `first`/`last`' },
  PAGE_SIZE_MAX: { group: 'paging', config: 'paging.maxSize', schema: int(1, 1_000), default: 100, doc: 'largest `first`/`last` of any connection; past it `BAD_USER_INPUT` on that field' },
  UPSTREAM_MAX_PAGE_SIZE: {
    group: 'paging', config: 'upstream.maxPageSize', schema: int(1, 1_000), default: 100,
    doc: 'largest `size` sent upstream; lowered per list when an envelope shows a silent cap, and the only way to tell the gateway a cap on bare-array LinX answers ([paging.md](paging.md))',
  },
  CURSOR_SECRET: {
    group: 'paging', config: 'paging.cursorSecret', schema: z.string().min(32, 'must be at least 32 characters'), shown: '(none: a random key per instance)',
    doc: 'secret the keys that seal anchored cursors are derived from; give every replica the same one so that a cursor works on all of them and after a restart. A cursor sealed under another secret (or, without it, by another instance or an earlier run) is refused with `extensions.reason` `CURSOR_OTHER_KEYS` ([security.md](security.md#cursors)); production start-up warns without it',
  },
  CURSOR_SECRET_PREVIOUS: {
    group: 'paging', config: 'paging.cursorSecretPrevious', schema: z.string().min(32, 'must be at least 32 characters'), shown: '(none)',
    doc: 'while `CURSOR_SECRET` is rotated: the secret it replaces. Cursors sealed under it still open; new ones are sealed under `CURSOR_SECRET` ([scaling.md](scaling.md#rotating-cursor_secret))',
  },

  // Request limits
  MAX_BODY_BYTES: {
    group: 'request-limits', config: 'limits.bodyBytes', schema: int(1_024, 10_485_760), default: 102_400, note: '100 kB',
    doc: 'size of the JSON request body; past it HTTP 413, `PAYLOAD_TOO_LARGE`',
  },
  MAX_QUERY_TOKENS: {
    group: 'request-limits', config: 'limits.tokens', schema: int(10, 100_000), default: 1_000,
    doc: 'lexical tokens of the document; parsing stops at the first token over the limit, before any validation; past it HTTP 400, `GRAPHQL_PARSE_FAILED`',
  },
  MAX_QUERY_DEPTH: {
    group: 'request-limits', config: 'limits.depth', schema: int(1, 100), default: 8,
    doc: 'field nesting (fragments and inline fragments add no level; `__schema` is not counted); past it HTTP 400, `GRAPHQL_VALIDATION_FAILED`',
  },
  MAX_QUERY_ALIASES: {
    group: 'request-limits', config: 'limits.aliases', schema: int(0, 1_000), default: 15,
    doc: 'aliased fields per operation (`__typename` aliases are free); past it HTTP 400, `GRAPHQL_VALIDATION_FAILED`',
  },
  MAX_QUERY_DIRECTIVES: {
    group: 'request-limits', config: 'limits.directives', schema: int(0, 1_000), default: 50, doc: 'directive uses per operation; past it HTTP 400, `GRAPHQL_VALIDATION_FAILED`',
  },
  MAX_QUERY_COST: {
    group: 'request-limits', config: 'limits.cost', schema: int(1, 100_000_000), default: 50_000,
    doc: 'static cost: object 2, scalar 1, ×1.5 per level, × the page size of every connection on the path, × the number of representations of `_entities`; plus 20 000 for each `last` without `before` on a list that may not report its length (below, "Backward walks"); past it HTTP 400, `GRAPHQL_VALIDATION_FAILED`',
  },
  MAX_ENTITY_REPRESENTATIONS: {
    group: 'request-limits', config: 'maxEntityRepresentations', schema: int(1, 10_000), default: 25,
    doc: 'federation representations per request, summed over every `_entities` field (aliases and fragments included), whether sent as a variable, left to a variable’s default or written in the query; past it HTTP 400, `GRAPHQL_VALIDATION_FAILED`',
  },
  ALLOW_BATCHED_REQUESTS: {
    group: 'request-limits', config: 'allowBatchedRequests', schema: bool, default: false, doc: 'accept a JSON array of operations in one request; `false` refuses one with HTTP 400, `BAD_REQUEST`',
  },
  MAX_BATCH_SIZE: {
    group: 'request-limits', config: 'limits.batchSize', schema: int(1, 100), default: 10, doc: 'operations in one batch, when batching is allowed; past it HTTP 400, `BAD_REQUEST`',
  },
  MAX_ECHOED_CHARS: {
    group: 'request-limits', config: 'echoChars', schema: int(16, 10_000), default: 64,
    doc: 'longest client text repeated in an error message or extension, a log line (`operationName`, quoted values), a span name or a metric label; longer text is cut and ends in `…`',
  },

  // Schema exposure and error detail
  INTROSPECTION: {
    group: 'schema-exposure', config: 'introspection', schema: bool, default: onUnlessProduction,
    doc: 'allow schema introspection; off, `__schema`/`__type` are refused with `GRAPHQL_VALIDATION_FAILED` and a message naming `INTROSPECTION` (`__typename` works)',
  },
  FIELD_SUGGESTIONS: {
    group: 'schema-exposure', config: 'fieldSuggestions', schema: bool, default: onUnlessProduction,
    doc: 'keep graphql-js\'s "Did you mean …" hints in error messages; off, they are cut from every message (fields, arguments, enum values), so a caller cannot rebuild the schema without introspection',
  },
  STACK_TRACES: {
    group: 'schema-exposure', config: 'stackTraces', schema: bool, default: false, doc: 'send `extensions.stacktrace` with errors (development only; refused in production)',
  },

  // Browser clients, trusted documents and persisted queries
  CORS_CREDENTIALS: {
    group: 'browser-clients', schema: bool, default: false, doc: 'send `Access-Control-Allow-Credentials: true` (cookies; a bearer token needs none)',
  },
  CORS_MAX_AGE_SECONDS: { group: 'browser-clients', schema: int(0, 86_400), default: 600, doc: 'how long a browser reuses a preflight answer' },
  TRUSTED_DOCUMENTS_ONLY: {
    group: 'browser-clients', schema: bool,
    default: {
      computed: ({ production, values }) => production && values.TRUSTED_DOCUMENTS !== undefined,
      shown: 'on in production when `TRUSTED_DOCUMENTS` is set',
    } satisfies Computed<boolean>,
    doc: 'run only trusted documents (the manifest\'s and, with `ADMIN_TOKEN`, those published), sent by id; needs `TRUSTED_DOCUMENTS` or `ADMIN_TOKEN`',
  },
  PERSISTED_QUERIES: {
    group: 'browser-clients', config: 'persistedQueries.enabled', schema: bool, default: true,
    doc: 'accept automatic persisted queries (`extensions.persistedQuery`); `false` answers `PERSISTED_QUERY_NOT_SUPPORTED`',
  },
  PERSISTED_QUERY_TTL_SECONDS: {
    group: 'browser-clients', config: 'persistedQueries.ttlSeconds', schema: int(0, 30 * 86_400), default: 86_400, doc: 'how long a registration lives; `0` keeps it until evicted',
  },
  PERSISTED_QUERY_STORE_TIMEOUT_MS: {
    group: 'browser-clients', config: 'persistedQueries.storeTimeoutMs', schema: int(1, 10_000), default: 250, doc: 'longest wait for Redis per lookup or write; then it counts as a miss',
  },

  // Execution
  COMPILED_EXECUTION: {
    group: 'execution', config: 'compiledExecution.enabled', schema: bool, default: true,
    doc: 'execute each validated document compiled by graphql-jit (answers identical to graphql-js\'; see [benchmark.md](benchmark.md)); `false` interprets with graphql-js',
  },
  COMPILED_QUERY_CACHE_SIZE: {
    group: 'execution', config: 'compiledExecution.cacheSize', schema: int(1, 100_000), default: 250, doc: 'compiled documents kept (least recently used evicted first)',
  },
  COMPILED_QUERY_CACHE_BYTES: {
    group: 'execution', config: 'compiledExecution.cacheBytes', schema: int(1_024, 1_073_741_824), default: 33_554_432, note: '32 MiB',
    doc: 'estimated heap of the compiled documents kept, priced from each document\'s text: 4 KiB plus 768 bytes per character (at or above every entry measured, 3–200 KiB for page queries and the playground\'s examples) ([benchmark.md](benchmark.md#compiled-documents-and-memory)); least recently used evicted first, and a document priced above the whole budget (about 43 000 characters at the default) runs on graphql-js',
  },
  COMPILED_QUERY_MIN_USES: {
    group: 'execution', config: 'compiledExecution.minUses', schema: int(1, 1_000), default: 10,
    doc: 'a document is compiled on its Nth execution, counted among the 4 096 most recent documents not compiled yet; until then graphql-js interprets it, so a document sent a few times never costs a compile (`1` compiles every document at once); graphql-jit itself is loaded when the first document reaches this count',
  },

  COMPILED_QUERY_COMPILES_PER_MINUTE: {
    group: 'execution', config: 'compiledExecution.compilesPerMinute', schema: int(1, 60_000), default: 120,
    doc: 'documents compiled per minute at most, refilled evenly (2 a second by default), as many at once after a quiet minute; a document that reaches `COMPILED_QUERY_MIN_USES` while none is left is interpreted until a later use finds one, so new documents sent often enough to compile cannot spend more compile time or generated code than this ([benchmark.md](benchmark.md#compiled-documents-and-memory))',
  },

  // Client connections
  SUBSCRIPTION_POLL_MS: {
    group: 'client-connections', config: 'subscriptions.pollMs', schema: int(250, 3_600_000), default: 5_000,
    doc: 'how often each shared subscription poller reads the platform ([subscriptions.md](subscriptions.md)); every poll is drawn from the caller\'s budget',
  },
  SUBSCRIPTIONS_PER_TOKEN: {
    group: 'client-connections', config: 'subscriptions.perToken', schema: int(1, 10_000), default: 20,
    doc: 'open subscriptions per bearer token, over every transport, every worker of the instance and, with `REDIS_URL`, every replica on it; the next is refused with `RATE_LIMITED` and `limit: SUBSCRIPTIONS_PER_TOKEN`',
  },
  MAX_SUBSCRIPTIONS: {
    group: 'client-connections', config: 'subscriptions.max', schema: int(1, 1_000_000), default: 10_000,
    doc: 'open subscriptions, every token together, over every worker of the instance and, with `REDIS_URL`, every replica on it; the next is refused with `RATE_LIMITED` and `limit: MAX_SUBSCRIPTIONS`',
  },
  SUBSCRIPTION_STORE_TIMEOUT_MS: {
    group: 'client-connections', config: 'subscriptions.storeTimeoutMs', schema: int(10, 10_000), default: 250,
    doc: 'longest a feed waits for `REDIS_URL`\'s Redis (with `WORKERS` and no Redis, for the primary) to say which replica polls it; then this replica polls the feed itself for that interval, so a hanging Redis delays a feed by at most this ([subscriptions.md](subscriptions.md#across-replicas))',
  },
  SUBSCRIPTION_BUFFER_BYTES: {
    group: 'client-connections', config: 'subscriptions.bufferBytes', schema: int(1_048_576, 17_179_869_184), default: 268_435_456, note: '256 MiB',
    doc: 'bytes every subscriber\'s waiting events and stream buffer may hold together in one process; past it the subscribers holding most (the slowest readers) are dropped first, each with `RATE_LIMITED` and `limit: SUBSCRIPTION_BUFFER_BYTES`, until the rest hold 90 % of it. The default fits 10 000 streams each with a full 16 KiB write buffer and a waiting event ([subscriptions.md](subscriptions.md#bounds))',
  },
  HEADERS_TIMEOUT_MS: {
    group: 'client-connections', config: 'connections.headersTimeoutMs', schema: int(100, 600_000), default: 10_000,
    doc: 'longest a client may take to send a request\'s headers; then it is answered `408` and its connection closed (at most `REQUEST_TIMEOUT_MS`)',
  },
  REQUEST_TIMEOUT_MS: {
    group: 'client-connections', config: 'connections.requestTimeoutMs', schema: int(100, 600_000), default: 30_000,
    doc: 'longest a client may take to send a whole request, body included, from its first byte (a body trickled a byte at a time is cut); then it is answered `408` and its connection closed',
  },
  MAX_CONNECTIONS: {
    group: 'client-connections', config: 'connections.maxConnections', schema: int(1, 1_000_000), default: 4_096,
    doc: 'most client connections open at once; a connection beyond it is closed as it is accepted, with a `warn` line (at most one every 10 s)',
  },

  // Operations: shutdown, metrics, readiness, tracing
  SHUTDOWN_TIMEOUT_MS: {
    group: 'operations', config: 'shutdownTimeoutMs', schema: int(0, 120_000), default: 10_000, doc: 'longest drain of in-flight requests on SIGTERM; busy connections are then cut',
  },
  METRICS_MAX_OPERATIONS: {
    group: 'operations', config: 'metricsMaxOperations', schema: int(1, 10_000), default: 200, doc: 'distinct operation names with their own series in `/metrics`; later names count as `other`',
  },
  ADMIN_PORT: {
    group: 'operations', config: 'admin.port', schema: z.union([z.literal('off'), int(0, 65535)]), default: 9090,
    doc: 'port of the admin listener, which serves `/healthz`, `/readyz` and `/metrics` outside `MAX_CONNECTIONS`, the rate limit and the request checks; with it, `/metrics` is not served on `PORT` in production (`0`: any free port; `off`: no admin listener, all three on `PORT`) ([operations.md](operations.md#the-admin-listener))',
  },
  ADMIN_TOKEN: {
    group: 'operations', config: 'admin.token', schema: z.string().trim().min(32, 'must be at least 32 characters'), shown: '(none: admin writes refused)',
    doc: 'bearer token of the admin listener\'s writes: with it, an app\'s trusted documents are published and retired at run time (`PUT` and `DELETE /trusted-documents/{app}`, `npm run trust`), kept in `REDIS_URL`\'s Redis for every replica (without it, in the instance\'s memory) and served beside `TRUSTED_DOCUMENTS`\'; give every replica the same one ([web-clients.md](web-clients.md#publishing-trusted-documents))',
  },
  ADMIN_HOST: {
    group: 'operations', config: 'admin.host', schema: z.string().min(1), default: '127.0.0.1',
    doc: 'interface of the admin listener: loopback, so metrics are never exposed by accident (`0.0.0.0` in containers, for probes and scrapes from outside)',
  },
  READY_PROBE_TIMEOUT_MS: { group: 'operations', config: 'readiness.probeTimeoutMs', schema: int(1, 30_000), default: 500, doc: 'TCP connect timeout of the readiness probe of `UPSTREAM_URL`' },
  READY_CACHE_MS: { group: 'operations', config: 'readiness.cacheMs', schema: int(0, 60_000), default: 2_000, doc: 'how long a readiness probe result is reused (`0`: probe on every poll)' },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: { group: 'operations', schema: httpUrl, shown: '(none)', doc: 'full traces URL, used as is (overrides the base URL)' },
  OTEL_SERVICE_NAME: { group: 'operations', config: 'tracing.serviceName', schema: z.string().min(1), default: 'platform-gateway', doc: '`service.name` of the spans' },

  // Embedded sandbox
  SANDBOX_PORT: {
    group: 'embedded-sandbox', config: 'sandboxPort', schema: sandboxSetting('SANDBOX_PORT'), readsUnset: true, shown: sandboxDefault('SANDBOX_PORT'),
    doc: 'API port of the embedded sandbox (`0`: any free port; a taken port falls back to a free one)',
  },
  SANDBOX_CONTENT_PORT: {
    group: 'embedded-sandbox', config: 'sandboxContentPort', schema: sandboxSetting('SANDBOX_CONTENT_PORT'), readsUnset: true, shown: sandboxDefault('SANDBOX_CONTENT_PORT'),
    doc: 'content-URL port of that sandbox',
  },
  SANDBOX_LIVE: {
    group: 'embedded-sandbox', config: 'sandbox.live', schema: sandboxSetting('SANDBOX_LIVE'), readsUnset: true, shown: sandboxDefault('SANDBOX_LIVE'),
    doc: 'that sandbox\'s records change on their own: exceptions arrive and change status, LinX batches move on, acceptances arrive, documents get scanned ([sandbox.md](sandbox.md#live-mode)); unset, `npm start` turns it on once the gateway listens',
  },
  SANDBOX_LIVE_INTERVAL_MS: {
    group: 'embedded-sandbox', config: 'sandbox.liveIntervalMs', schema: sandboxSetting('SANDBOX_LIVE_INTERVAL_MS'), readsUnset: true, shown: sandboxDefault('SANDBOX_LIVE_INTERVAL_MS'),
    doc: 'time between two live steps of that sandbox',
  },
  SANDBOX_MAX_PAGE_SIZE: {
    group: 'embedded-sandbox', config: 'sandbox.maxPageSize', schema: sandboxSetting('SANDBOX_MAX_PAGE_SIZE'), readsUnset: true, shown: sandboxDefault('SANDBOX_MAX_PAGE_SIZE'),
    doc: 'that sandbox serves larger page sizes silently at this size, as Spring Data does',
  },

  // Scaling: worker processes per instance, and the pre-stop delay a load balancer needs.
  WORKERS: {
    group: 'scaling', schema: z.string().trim().regex(/^(auto|[1-9]\d{0,2})$/, 'must be auto or a whole number from 1 to 999'), default: '1',
    doc: 'gateway worker processes sharing the port; `auto`: one per CPU the process may use (`os.availableParallelism()`, which honours cgroup CPU limits); `1` runs the gateway in the started process alone, as before ([scaling.md](scaling.md#workers))',
  },
  SHUTDOWN_DELAY_MS: {
    group: 'scaling', config: 'scaling.shutdownDelayMs', schema: int(0, 60_000), default: 0,
    doc: 'on SIGTERM, how long the gateway keeps serving while `/readyz` already answers 503, before its listener closes: set it above the load balancer\'s time to notice (HAProxy: `fall` × check interval), e.g. `5000` ([scaling.md](scaling.md#replicas-behind-a-load-balancer))',
  },
  WORKER_HEARTBEAT_TIMEOUT_MS: {
    group: 'scaling', config: 'scaling.heartbeatTimeoutMs', schema: int(1_000, 600_000), default: 10_000,
    doc: 'a gateway event loop that has not turned (a heartbeat every fifth of this) for this long is stuck: with `WORKERS` > 1 the worker is killed (SIGKILL) and replaced, counted in `gateway_worker_hangs_total` ([scaling.md](scaling.md#hung-workers)); with one process the admin port\'s `/healthz` answers 503 ([operations.md](operations.md#liveness-under-load))',
  },

  // Per-caller budgets of platform calls, and the limit on refused tokens (src/budgets/)
  RATE_LIMIT_PER_SECOND: {
    group: 'rate-limit', schema: decimal(z.number().min(0.001).max(1_000_000)), shown: '(none: no limit)',
    doc: 'platform calls per second one caller (one bearer token, however the header spells it; one client address without one) may average: its bucket refills at this rate; fractions allowed (`0.5`); recommended `20`',
  },
  RATE_LIMIT_BURST: {
    group: 'rate-limit', schema: int(1, 1_000_000), shown: '`RATE_LIMIT_PER_SECOND` rounded up',
    doc: 'platform calls one caller\'s bucket holds when full: what it may spend at once; a request estimated to need more is refused with `COST_EXCEEDS_BURST`; at most one day\'s refill; recommended `200` (`MAX_PLATFORM_CALLS_PER_REQUEST`)',
  },
  RATE_LIMIT_REDIS_URL: {
    group: 'rate-limit', schema: z.url({ protocol: /^rediss?$/ }), shown: '(none: in memory per instance)',
    doc: 'Redis holding the budgets and the address failure counts, shared by every instance; a server of its own that never evicts (`maxmemory-policy noeviction`), not `REDIS_URL`\'s',
  },
  RATE_LIMIT_STORE_TIMEOUT_MS: {
    group: 'rate-limit', schema: int(1, 10_000), default: 100,
    doc: 'longest a request waits for the budgets\' Redis (or, with `WORKERS`, the primary); then it is counted in this instance\'s memory, and Redis is not asked again until it answers a probe',
  },
  AUTH_FAILURE_LIMIT_PER_MINUTE: {
    group: 'rate-limit', config: 'authFailures.perMinute', schema: decimal(z.number().min(0.01).max(1_000_000)), default: 30,
    doc: 'requests with tokens the platform has not accepted yet that one client address may send per minute, on average; past it they are refused with `429 RATE_LIMITED` and no platform call, while tokens already accepted keep working',
  },
  AUTH_FAILURE_LIMIT_BURST: {
    group: 'rate-limit', config: 'authFailures.burst', schema: int(1, 1_000_000), default: 10,
    doc: 'such requests one client address may send at once',
  },
  TRUSTED_PROXIES: {
    group: 'rate-limit', schema: z.string(), shown: '(none)',
    doc: 'comma-separated addresses or CIDRs (`10.0.0.0/8`, `127.0.0.1`) of proxies in front of the gateway: a request from one of them is from the address it names last in `X-Forwarded-For`; from anyone else that header is ignored',
  },

  // Platform protection: per-route bounds on calls in flight, identical reads shared, a call budget per request.
  UPSTREAM_ROUTE_MAX_IN_FLIGHT: {
    group: 'platform-protection', config: 'platformProtection.route.maxInFlight', schema: int(1, 10_000),
    default: { computed: (basis) => routeLimits(maxSockets(basis)).maxInFlight, shown: `half of \`UPSTREAM_MAX_SOCKETS\` (${routeLimits(DEFAULT_MAX_SOCKETS).maxInFlight})` } satisfies Computed<number>,
    doc: `platform calls of one route (breaker key: ${BREAKER_KEYS.map((key) => `\`${key}\``).join(', ')}) in flight at once, across every request of the process; a route whose calls hang holds at most this many sockets; further calls wait in the route's queue`,
  },
  UPSTREAM_ROUTE_QUEUE: {
    group: 'platform-protection', config: 'platformProtection.route.queue', schema: int(0, 1_000_000),
    default: { computed: (basis) => routeLimits(maxSockets(basis)).queue, shown: `4 × \`UPSTREAM_MAX_SOCKETS\` (${routeLimits(DEFAULT_MAX_SOCKETS).queue})` } satisfies Computed<number>,
    doc: 'calls of one route waiting for a slot; past it a call is refused at once with `UPSTREAM_BUSY`, nothing sent. A waiting call leaves at its request\'s deadline or when its caller hangs up',
  },
  UPSTREAM_SHARE_READS: {
    group: 'platform-protection', config: 'platformProtection.shareReads', schema: bool, default: true,
    doc: 'identical GETs (same `Authorization`, path and query) of concurrent requests share one platform call while it is in flight; `false`: every request makes its own',
  },
  MAX_PLATFORM_CALLS_PER_REQUEST: {
    group: 'platform-protection', config: 'platformProtection.maxCallsPerRequest', schema: int(1, 100_000), default: DEFAULT_MAX_PLATFORM_CALLS_PER_REQUEST,
    doc: 'platform calls one GraphQL request may make (identical GETs within the request count once; a call shared with another request counts for each); further calls fail with `BAD_USER_INPUT` (`extensions.limit` names this variable, `extensions.max` its value), and fields already answered or needing no further call still answer',
  },
} as const satisfies Record<string, Definition>;

type SettingName = keyof typeof SETTINGS;
type Settings = typeof SETTINGS;

/** The zod type of one variable: its reading, with its literal default, or optional. */
type Reader<D extends Definition> = D extends { readsUnset: true }
  ? D['schema']
  : D extends { default: Literal }
    ? z.ZodDefault<D['schema']>
    : z.ZodOptional<D['schema']>;

/** Each variable's value, its default applied (undefined only for a setting without one). */
type Values = {
  -readonly [N in SettingName]: Settings[N] extends { default: Computed<infer C> }
    ? Exclude<z.output<Settings[N]['schema']>, undefined> | C
    : z.output<Reader<Settings[N]>>;
};

function reader(definition: Definition): z.ZodType {
  if (definition.readsUnset) return definition.schema;
  const given = definition.default;
  if (given === undefined || typeof given === 'object') return definition.schema.optional();
  // A literal default is the value itself, as the schema would read it from its text.
  return (definition.schema as z.ZodType<unknown>).default(given);
}

/** Reads every variable as the definitions say, each one alone: no computed default yet. */
export const schema = z.object(
  Object.fromEntries(Object.entries(SETTINGS).map(([name, definition]) => [name, reader(definition)])) as {
    -readonly [N in SettingName]: Reader<Settings[N]>;
  },
);

/** The object a dotted path makes: `a.b` and V give `{ a: { b: V } }`. */
type Nest<P extends string, V> = P extends `${infer Head}.${infer Rest}` ? { [K in Head]: Nest<Rest, V> } : { [K in P]: V };
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** An intersection of nested objects as one plain object type, at every level. */
export type Merged<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]: Merged<T[K]> } : T;

/** The part of the Config object the settings with a `config` path give, each at its path. */
type Placed = UnionToIntersection<
  { [N in SettingName]: Settings[N] extends { config: infer P extends string } ? Nest<P, Values[N]> : never }[SettingName]
>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `derived` added to `into`, nested objects merged; a path both give is a mistake in the definitions. */
function merge(into: Record<string, unknown>, derived: Record<string, unknown>, at = ''): void {
  for (const [key, value] of Object.entries(derived)) {
    const existing = into[key];
    if (existing === undefined && !(key in into)) into[key] = value;
    else if (isObject(existing) && isObject(value)) merge(existing, value, `${at}${key}.`);
    else throw new Error(`config.${at}${key} is given both by a setting's \`config\` path and by src/settings/config.ts`);
  }
}

/**
 * The Config object: every setting with a `config` path placed at it, and the values src/settings/config.ts
 * derives from the others (`derived`) merged in.
 */
export function configFrom<D extends Record<string, unknown>>(values: Values, derived: D): Merged<Placed & D> {
  const config: Record<string, unknown> = {};
  for (const [name, definition] of Object.entries(SETTINGS) as Array<[SettingName, Definition]>) {
    if (definition.config === undefined) continue;
    const keys = definition.config.split('.');
    let at = config;
    for (const key of keys.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
    at[keys.at(-1)!] = values[name];
  }
  merge(config, derived);
  return config as Merged<Placed & D>;
}

/** The values read, each unset variable with a computed default given it. */
export function withComputedDefaults(values: z.output<typeof schema>): Values {
  const basis: Basis = { production: values.NODE_ENV === 'production', values };
  const resolved: Record<string, unknown> = { ...values };
  for (const [name, definition] of Object.entries(SETTINGS) as Array<[string, Definition]>) {
    const given = definition.default;
    if (typeof given === 'object' && resolved[name] === undefined) resolved[name] = given.computed(basis);
  }
  return resolved as Values;
}

/** The default column of the docs for a setting. */
export function shownDefault(definition: Definition): string {
  const given = definition.default;
  if (given === undefined) return definition.shown;
  if (typeof given === 'object') return given.shown;
  return `\`${String(given)}\`${definition.note ? ` (${definition.note})` : ''}`;
}
