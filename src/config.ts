import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { configFrom, schema, SETTINGS, tracesEndpoint, withComputedDefaults } from './settings.ts';

// Every setting comes from the environment, is validated once at start-up and is
// then immutable. A bad value stops start-up with a message naming the variable.
// The variables, their defaults and their meaning are defined in ./settings.ts.

/** The route limits' defaults for a socket pool (src/platform/http.ts uses them when given no configuration). */
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
  // The settings with a `config` path in ./settings.ts are placed there; these are derived from several.
  return configFrom(e, {
    /** Platform base URL; absent means "serve over the embedded sandbox". */
    upstreamUrl: e.UPSTREAM_URL?.replace(/\/+$/, ''),
    /** Where spans go when `tracing.exporter` is `otlp` (with `none`, no tracing code is loaded at all). */
    tracing: { endpoint: e.OTEL_TRACES_EXPORTER === 'otlp' ? (tracesEndpoint(e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, e.OTEL_EXPORTER_OTLP_ENDPOINT) ?? 'http://localhost:4318/v1/traces') : undefined },
    /** Which browser origins may call the gateway (see src/hardening/cors.ts). */
    cors,
    /** Trusted documents: a Relay persisted-query manifest (id → document); `only` refuses anything not in it. */
    trustedDocuments: e.TRUSTED_DOCUMENTS ? { file: e.TRUSTED_DOCUMENTS, only: e.TRUSTED_DOCUMENTS_ONLY } : undefined,
    /** Worker processes sharing the port: `auto` is one per CPU this process may use, cgroup limits included. */
    scaling: { workers: e.WORKERS === 'auto' ? availableParallelism() : Number(e.WORKERS) },
    /** Per-caller request budget (absent: off); shared through REDIS_URL when set. */
    rateLimit: rateLimit && { ...rateLimit, storeTimeoutMs: e.RATE_LIMIT_STORE_TIMEOUT_MS },
  });
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
  // No admin listener: in-process gateways would otherwise all take ADMIN_PORT's 9090; a test that wants one sets ADMIN_PORT=0.
  return loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PORT: '0', ADMIN_PORT: 'off', ...overrides });
}
