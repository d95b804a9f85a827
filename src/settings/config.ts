import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { checkTrustedProxies } from '../request/client-address.ts';
import { sameRedisByName, sharedRedis, type Lookup } from './redis-servers.ts';
import { configFrom, schema, SETTINGS, tracesEndpoint, withComputedDefaults } from './settings.ts';

// Every setting comes from the environment, is validated once at start-up and is
// then immutable. A bad value stops start-up with a message naming the variable.
// The variables, their defaults and their meaning are defined in ./settings.ts.

/** The route limits' defaults for a socket pool (src/platform/policy-chain.ts uses them when given no configuration). */
export { routeLimits } from './settings.ts';

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

/** Longest refill of a whole bucket: a bucket's key is kept at most this long after its last use. */
const MAX_RATE_LIMIT_REFILL_SECONDS = 86_400;

/** The bucket: RATE_LIMIT_BURST platform calls refilled at RATE_LIMIT_PER_SECOND (src/budgets/bucket.ts); the burst defaults to one second's worth. */
function rateLimitBucket(perSecond: number, burst: number | undefined): { perSecond: number; burst: number } | string {
  const points = burst ?? Math.ceil(perSecond);
  if (points / perSecond > MAX_RATE_LIMIT_REFILL_SECONDS) return `RATE_LIMIT_BURST ÷ RATE_LIMIT_PER_SECOND must not exceed ${MAX_RATE_LIMIT_REFILL_SECONDS} s (one day)`;
  return { perSecond, burst: points };
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
  const rateLimit = e.RATE_LIMIT_PER_SECOND === undefined ? undefined : rateLimitBucket(e.RATE_LIMIT_PER_SECOND, e.RATE_LIMIT_BURST);
  if (typeof rateLimit === 'string') {
    ctx.addIssue({ code: 'custom', path: ['RATE_LIMIT_BURST'], message: rateLimit });
    return z.NEVER;
  }
  // Persisted queries may be evicted under memory pressure; a budget must never be (a spent one would refill).
  // Compared by host, port and database, not as text; start-up also compares the hosts' addresses.
  if (e.RATE_LIMIT_REDIS_URL !== undefined && e.REDIS_URL !== undefined && sameRedisByName(e.RATE_LIMIT_REDIS_URL, e.REDIS_URL)) {
    ctx.addIssue({ code: 'custom', path: ['RATE_LIMIT_REDIS_URL'], message: REDIS_OF_ITS_OWN });
    return z.NEVER;
  }
  if (e.AUTH_FAILURE_LIMIT_BURST / (e.AUTH_FAILURE_LIMIT_PER_MINUTE / 60) > MAX_RATE_LIMIT_REFILL_SECONDS) {
    ctx.addIssue({ code: 'custom', path: ['AUTH_FAILURE_LIMIT_BURST'], message: `AUTH_FAILURE_LIMIT_BURST ÷ (AUTH_FAILURE_LIMIT_PER_MINUTE ÷ 60) must not exceed ${MAX_RATE_LIMIT_REFILL_SECONDS} s (one day)` });
    return z.NEVER;
  }
  const trustedProxies = listed(e.TRUSTED_PROXIES);
  const badProxies = checkTrustedProxies(trustedProxies);
  if (badProxies !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['TRUSTED_PROXIES'], message: `not an address or CIDR list: ${badProxies}` });
    return z.NEVER;
  }
  if (e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS) {
    ctx.addIssue({ code: 'custom', path: ['HEADERS_TIMEOUT_MS'], message: `must not exceed REQUEST_TIMEOUT_MS (${e.REQUEST_TIMEOUT_MS})` });
    return z.NEVER;
  }
  // Published documents alone are enough: an app's deploy publishes them before its clients arrive.
  if (e.TRUSTED_DOCUMENTS_ONLY && !e.TRUSTED_DOCUMENTS && e.ADMIN_TOKEN === undefined) {
    ctx.addIssue({ code: 'custom', path: ['TRUSTED_DOCUMENTS_ONLY'], message: 'needs TRUSTED_DOCUMENTS=<manifest file>' });
    return z.NEVER;
  }
  const cors: CorsConfig = {
    origins: origins.map((origin) => origin.toLowerCase()),
    allowLoopbackOrigins: !production,
    credentials: e.CORS_CREDENTIALS,
    maxAgeSeconds: e.CORS_MAX_AGE_SECONDS,
  };
  // The settings with a `config` path in ./settings.ts are placed there; these are derived from several.
  return configFrom(e, {
    /** Platform base URL; absent means "serve over the embedded sandbox". */
    upstreamUrl: e.UPSTREAM_URL?.replace(/\/+$/, ''),
    /** Where spans go when `tracing.exporter` is `otlp` (with `none`, no tracing code is loaded at all). */
    tracing: { endpoint: e.OTEL_TRACES_EXPORTER === 'otlp' ? (tracesEndpoint(e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, e.OTEL_EXPORTER_OTLP_ENDPOINT) ?? 'http://localhost:4318/v1/traces') : undefined },
    /** Which browser origins may call the gateway (see src/http/web-client-headers.ts). */
    cors,
    /** Trusted documents: a Relay persisted-query manifest (id → document); `only` refuses anything not in it. */
    trustedDocuments: e.TRUSTED_DOCUMENTS ? { file: e.TRUSTED_DOCUMENTS, only: e.TRUSTED_DOCUMENTS_ONLY } : undefined,
    /** Trusted documents published at run time on the admin listener (ADMIN_TOKEN set); `only` as for the file. */
    publishedDocuments: e.ADMIN_TOKEN !== undefined ? { only: e.TRUSTED_DOCUMENTS_ONLY } : undefined,
    /** Worker processes sharing the port: `auto` is one per CPU this process may use, cgroup limits included. */
    scaling: { workers: e.WORKERS === 'auto' ? availableParallelism() : Number(e.WORKERS) },
    /** Per-caller budget of platform calls (absent: off); shared through RATE_LIMIT_REDIS_URL when set. */
    rateLimit,
    /** Where budgets and address failure counts are kept: Redis shared by every instance, else memory. */
    budgetStore: { redisUrl: e.RATE_LIMIT_REDIS_URL, timeoutMs: e.RATE_LIMIT_STORE_TIMEOUT_MS },
    /** Proxies whose `X-Forwarded-For` entry names the client (src/request/client-address.ts). */
    trustedProxies,
  });
});

export type Config = z.output<typeof configSchema>;

/** Why RATE_LIMIT_REDIS_URL may not name REDIS_URL's database. */
const REDIS_OF_ITS_OWN = 'must be a Redis of its own (maxmemory-policy noeviction), not REDIS_URL: persisted queries would evict budgets';

/**
 * The configuration's check that needs name resolution: RATE_LIMIT_REDIS_URL and REDIS_URL reaching
 * one database through two host names. Run once at start-up; throws ConfigError.
 */
export async function checkRedisAddresses(config: Config, resolve?: Lookup): Promise<void> {
  const { redisUrl } = config;
  const budgets = config.budgetStore.redisUrl;
  if (redisUrl === undefined || budgets === undefined) return;
  const shared = await sharedRedis(budgets, redisUrl, resolve);
  if (shared !== undefined) throw new ConfigError(`Invalid configuration:\n  RATE_LIMIT_REDIS_URL: ${REDIS_OF_ITS_OWN} (both reach ${shared})`);
}

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
  // No admin listener: in-process gateways would otherwise all take ADMIN_PORT's 9090; a test that wants one sets ADMIN_PORT=0.
  return loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PORT: '0', ADMIN_PORT: 'off', ...overrides });
}
