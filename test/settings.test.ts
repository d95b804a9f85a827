import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { configFrom, routeLimits, schema, SETTINGS, shownDefault, tracesEndpoint, withComputedDefaults, type Definition } from '../src/settings/settings.ts';

// The registry at unit level: how each kind of setting reads its text and what it refuses, with the
// messages loadConfig puts after the variable's name. test/config.test.ts covers loadConfig itself
// (the cross-setting checks, the sandbox's messages, the computed defaults as Config values).

/** What the registry's schema makes of one variable set alone: its value, or `NAME: message` for each refusal. */
function read(name: string, text: string): unknown {
  const parsed = schema.safeParse({ [name]: text });
  if (parsed.success) return (parsed.data as Record<string, unknown>)[name];
  return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

const values = (env: Record<string, string> = {}) => withComputedDefaults(schema.parse(env));

describe('reading a setting', () => {
  it('reads a whole number within its bounds, both bounds included', () => {
    expect(['0', '65535', '8080'].map((text) => read('PORT', text))).toEqual([0, 65535, 8080]);
    expect(read('PORT', '65536')).toEqual(['PORT: Too big: expected number to be <=65535']);
    expect(read('PORT', '-1')).toEqual(['PORT: Too small: expected number to be >=0']);
    expect(read('REQUEST_DEADLINE_MS', '99')).toEqual(['REQUEST_DEADLINE_MS: Too small: expected number to be >=100']);
  });

  it('refuses a fraction or a word where a whole number goes', () => {
    expect(read('MAX_QUERY_DEPTH', '1.5')).toEqual(['MAX_QUERY_DEPTH: Invalid input: expected int, received number']);
    expect(read('MAX_QUERY_DEPTH', 'eight')).toEqual(['MAX_QUERY_DEPTH: Invalid input: expected a number in decimal digits']);
  });

  it('reads numbers in decimal digits only: the other ways JavaScript reads a number are refused, not converted', () => {
    for (const text of ['0x10', '1e3', '0b1', '0o7', 'Infinity', '1_000', '.5', '5.']) {
      expect([text, read('PORT', text)]).toEqual([text, ['PORT: Invalid input: expected a number in decimal digits']]);
      expect([text, read('RATE_LIMIT_PER_SECOND', text)]).toEqual([text, ['RATE_LIMIT_PER_SECOND: Invalid input: expected a number in decimal digits']]);
    }
    expect([read('PORT', ' 8080 '), read('PORT', '+80'), read('PORT', '007'), read('RATE_LIMIT_PER_SECOND', '2.50')]).toEqual([8080, 80, 7, 2.5]);
  });

  it('reads a rate as any number within its bounds', () => {
    expect([read('RATE_LIMIT_PER_SECOND', '0.5'), read('RATE_LIMIT_PER_SECOND', '0.001'), read('AUTH_FAILURE_LIMIT_PER_MINUTE', '0.01')]).toEqual([0.5, 0.001, 0.01]);
    expect(read('RATE_LIMIT_PER_SECOND', '0.0009')).toEqual(['RATE_LIMIT_PER_SECOND: Too small: expected number to be >=0.001']);
    expect(read('RATE_LIMIT_PER_SECOND', '1000001')).toEqual(['RATE_LIMIT_PER_SECOND: Too big: expected number to be <=1000000']);
  });

  it('reads a switch from true/false or 1/0 exactly as spelt, nothing else', () => {
    expect(['true', '1', 'false', '0'].map((text) => read('STACK_TRACES', text))).toEqual([true, true, false, false]);
    for (const text of ['TRUE', 'yes', ' true', 'on']) {
      expect(read('STACK_TRACES', text)).toEqual(['STACK_TRACES: Invalid option: expected one of "0"|"1"|"true"|"false"']);
    }
  });

  it('reads a choice among listed words, case included', () => {
    expect(read('LOG_LEVEL', 'silent')).toBe('silent');
    expect(read('NODE_ENV', 'Production')).toEqual(['NODE_ENV: Invalid option: expected one of "development"|"production"|"test"']);
    expect(read('OTEL_TRACES_EXPORTER', 'zipkin')).toEqual(['OTEL_TRACES_EXPORTER: Invalid option: expected one of "otlp"|"console"|"none"']);
  });

  it('reads the platform and trace endpoints as http(s) URLs, and the Redis ones as redis(s) URLs, as given', () => {
    expect([read('UPSTREAM_URL', 'https://platform.example.com/api/'), read('OTEL_EXPORTER_OTLP_ENDPOINT', 'http://collector:4318')]).toEqual([
      'https://platform.example.com/api/',
      'http://collector:4318',
    ]);
    expect([read('REDIS_URL', 'rediss://user:pw@cache:6380/2'), read('RATE_LIMIT_REDIS_URL', 'redis://cache:6379')]).toEqual(['rediss://user:pw@cache:6380/2', 'redis://cache:6379']);
    expect(read('UPSTREAM_URL', 'ftp://platform')).toEqual(['UPSTREAM_URL: Invalid URL']);
    expect(read('UPSTREAM_URL', 'platform:8080')).toEqual(['UPSTREAM_URL: Invalid URL']);
    expect(read('RATE_LIMIT_REDIS_URL', 'https://cache')).toEqual(['RATE_LIMIT_REDIS_URL: Invalid URL']);
  });

  it('refuses a cursor secret shorter than 32 characters with its own message', () => {
    const secret = 's'.repeat(32);
    expect([read('CURSOR_SECRET', secret), read('CURSOR_SECRET_PREVIOUS', secret)]).toEqual([secret, secret]);
    expect(read('CURSOR_SECRET', secret.slice(1))).toEqual(['CURSOR_SECRET: must be at least 32 characters']);
    expect(read('CURSOR_SECRET_PREVIOUS', secret.slice(1))).toEqual(['CURSOR_SECRET_PREVIOUS: must be at least 32 characters']);
  });

  it('refuses an empty host name', () => {
    expect(read('ADMIN_HOST', '')).toEqual(['ADMIN_HOST: Too small: expected string to have >=1 characters']);
  });

  it('reads WORKERS as auto or 1 to 999 written plainly, spaces around ignored, and keeps it as text', () => {
    expect(['auto', '1', ' 4 ', '999'].map((text) => read('WORKERS', text))).toEqual(['auto', '1', '4', '999']);
    for (const text of ['0', '1000', '04', 'AUTO', '2.0']) {
      expect(read('WORKERS', text)).toEqual(['WORKERS: must be auto or a whole number from 1 to 999']);
    }
  });

  it('reads ADMIN_PORT as off or a port number', () => {
    expect([read('ADMIN_PORT', 'off'), read('ADMIN_PORT', '0'), read('ADMIN_PORT', '9091')]).toEqual(['off', 0, 9091]);
    expect(read('ADMIN_PORT', 'on')).toEqual(['ADMIN_PORT: Invalid input']);
  });

  it("reads the embedded sandbox's settings through the sandbox's own reading, its defaults included", () => {
    expect([read('SANDBOX_PORT', '5010'), read('SANDBOX_LIVE', 'true')]).toEqual([5010, true]);
    expect(read('SANDBOX_PORT', '70000')).toEqual(['SANDBOX_PORT: must be a port number between 0 and 65535, got "70000"']);
    const unset = schema.parse({});
    expect([unset.SANDBOX_PORT, unset.SANDBOX_CONTENT_PORT, unset.SANDBOX_LIVE, unset.SANDBOX_LIVE_INTERVAL_MS, unset.SANDBOX_MAX_PAGE_SIZE]).toEqual([4010, 4011, false, 3000, undefined]);
  });

  it('reports every bad variable at once, in the order of the registry', () => {
    const parsed = schema.safeParse({ WORKERS: '0', PORT: 'x', METRICS: 'yes' });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((issue) => issue.path.join('.'))).toEqual(['PORT', 'METRICS', 'WORKERS']);
  });
});

describe('defaults', () => {
  it('are the literal defaults as values, and nothing for a setting without one or with a computed one, before those are computed', () => {
    const unset = schema.parse({});
    expect([unset.PORT, unset.HOST, unset.METRICS, unset.ALLOW_BATCHED_REQUESTS, unset.ADMIN_PORT, unset.WORKERS, unset.MAX_BODY_BYTES, unset.AUTH_FAILURE_LIMIT_PER_MINUTE]).toEqual([
      4000,
      '127.0.0.1',
      true,
      false,
      9090,
      '1',
      102_400,
      30,
    ]);
    expect([unset.UPSTREAM_URL, unset.CURSOR_SECRET, unset.RATE_LIMIT_PER_SECOND, unset.RATE_LIMIT_BURST, unset.TRUSTED_PROXIES]).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect([unset.PLAYGROUND, unset.INTROSPECTION, unset.TRUSTED_DOCUMENTS_ONLY, unset.OTEL_TRACES_EXPORTER, unset.UPSTREAM_ROUTE_QUEUE]).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('are each what the setting reads from the default written as text', () => {
    const unset = schema.parse({}) as Record<string, unknown>;
    const differing = (Object.entries(SETTINGS) as [string, Definition][])
      .filter(([, definition]) => typeof definition.default !== 'object' && definition.default !== undefined)
      .filter(([name, definition]) => read(name, String(definition.default)) !== unset[name]);
    expect(differing).toEqual([]);
  });

  it('computed from the environment fill only what is unset, from the values as read, and leave those alone', () => {
    const production = schema.parse({ NODE_ENV: 'production', PLAYGROUND: 'true', TRUSTED_DOCUMENTS: 'manifest.json', UPSTREAM_MAX_SOCKETS: '9', UPSTREAM_ROUTE_QUEUE: '0' });
    const before = { ...production };
    const resolved = withComputedDefaults(production);
    expect([resolved.PLAYGROUND, resolved.INTROSPECTION, resolved.FIELD_SUGGESTIONS, resolved.TRUSTED_DOCUMENTS_ONLY]).toEqual([true, false, false, true]);
    expect([resolved.UPSTREAM_ROUTE_MAX_IN_FLIGHT, resolved.UPSTREAM_ROUTE_QUEUE, resolved.OTEL_TRACES_EXPORTER]).toEqual([4, 0, 'none']);
    expect(production).toEqual(before);
    expect(values({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/t' }).OTEL_TRACES_EXPORTER).toBe('otlp');
    expect([values({ TRUSTED_DOCUMENTS: 'manifest.json' }).TRUSTED_DOCUMENTS_ONLY, values({ NODE_ENV: 'test' }).PLAYGROUND]).toEqual([false, true]);
  });
});

describe('shownDefault', () => {
  const base = { group: 'first', doc: 'd', schema: z.string() } as const;

  it('shows a literal default as code, with its note in parentheses', () => {
    expect(shownDefault({ ...base, default: 4000 })).toBe('`4000`');
    expect(shownDefault({ ...base, default: false })).toBe('`false`');
    expect(shownDefault({ ...base, default: 102_400, note: '100 kB' })).toBe('`102400` (100 kB)');
  });

  it('shows what a computed default or an unset variable means as written', () => {
    expect(shownDefault({ ...base, default: { computed: () => 1, shown: 'on unless production' } })).toBe('on unless production');
    expect(shownDefault({ ...base, shown: '(none)' })).toBe('(none)');
  });

  it('shows the route limits sized from the default socket pool, and the sandbox settings with their own defaults', () => {
    expect([shownDefault(SETTINGS.UPSTREAM_ROUTE_MAX_IN_FLIGHT), shownDefault(SETTINGS.UPSTREAM_ROUTE_QUEUE)]).toEqual([
      'half of `UPSTREAM_MAX_SOCKETS` (32)',
      '4 × `UPSTREAM_MAX_SOCKETS` (256)',
    ]);
    expect([shownDefault(SETTINGS.SANDBOX_PORT), shownDefault(SETTINGS.SANDBOX_MAX_PAGE_SIZE)]).toEqual(['`4010`', '(none)']);
  });
});

describe('routeLimits', () => {
  it('gives half the pool in flight (at least one) and four times the pool waiting, unless given, 0 included', () => {
    expect([routeLimits(64), routeLimits(3), routeLimits(1)]).toEqual([
      { maxInFlight: 32, queue: 256 },
      { maxInFlight: 1, queue: 12 },
      { maxInFlight: 1, queue: 4 },
    ]);
    expect(routeLimits(64, 0, 0)).toEqual({ maxInFlight: 0, queue: 0 });
  });
});

describe('tracesEndpoint', () => {
  it('takes a traces endpoint as it is, else the base endpoint with /v1/traces, else none', () => {
    expect(tracesEndpoint('http://traces:4318/custom', 'http://collector:4318')).toBe('http://traces:4318/custom');
    expect(tracesEndpoint(undefined, 'http://collector:4318//')).toBe('http://collector:4318/v1/traces');
    expect(tracesEndpoint(undefined, undefined)).toBeUndefined();
  });
});

describe('configFrom', () => {
  it('places every setting with a config path at it, and no other', () => {
    const config = configFrom(values({ UPSTREAM_MAX_SOCKETS: '12', CORS_MAX_AGE_SECONDS: '60', SANDBOX_LIVE: 'true' }), {}) as Record<string, unknown>;
    expect(config.upstream).toEqual({
      connectTimeoutMs: 1_000,
      responseTimeoutMs: 5_000,
      requestTimeoutMs: 10_000,
      maxSockets: 12,
      retryLimit: 2,
      retryBaseMs: 100,
      retryAfterCapMs: 2_000,
      breakerThreshold: 5,
      breakerCooldownMs: 10_000,
      maxPageSize: 100,
    });
    expect(config.platformProtection).toEqual({ route: { maxInFlight: 6, queue: 48 }, shareReads: true, maxCallsPerRequest: 200 });
    expect(config.sandbox).toEqual({ live: true, liveIntervalMs: 3000, maxPageSize: undefined });
    // Settings without a path (CORS_MAX_AGE_SECONDS, WORKERS …) are src/settings/config.ts's to derive.
    expect(JSON.stringify(config)).not.toContain('"maxAgeSeconds"');
    expect(Object.keys(config)).not.toContain('workers');
  });

  it('gives each setting a path of its own: none repeats or lies inside another', () => {
    const paths = (Object.values(SETTINGS) as Definition[]).flatMap((definition) => (definition.config === undefined ? [] : [definition.config]));
    const clashes = paths.filter((path, index) => paths.some((other, at) => at !== index && (other === path || other.startsWith(`${path}.`))));
    expect(clashes).toEqual([]);
  });

  it('merges the derived values in, beside the placed ones at every level', () => {
    const config = configFrom(values(), { cors: { origins: [] }, scaling: { workers: 3 }, tracing: { endpoint: undefined } }) as Record<string, unknown>;
    expect(config.cors).toEqual({ origins: [] });
    expect(config.scaling).toEqual({ shutdownDelayMs: 0, heartbeatTimeoutMs: 10_000, workers: 3 });
    expect(config.tracing).toEqual({ exporter: 'none', serviceName: 'platform-gateway', endpoint: undefined });
  });

  it('refuses a derived value at a path a setting gives, even one whose value is unset', () => {
    expect(() => configFrom(values(), { upstream: { maxSockets: 1 } })).toThrow(
      new Error("config.upstream.maxSockets is given both by a setting's `config` path and by src/settings/config.ts"),
    );
    expect(() => configFrom(values(), { redisUrl: 'redis://cache:6379' })).toThrow(new Error("config.redisUrl is given both by a setting's `config` path and by src/settings/config.ts"));
    expect(() => configFrom(values(), { platformProtection: { route: 5 } })).toThrow(
      new Error("config.platformProtection.route is given both by a setting's `config` path and by src/settings/config.ts"),
    );
  });
});
