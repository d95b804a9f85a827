import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig, testConfig } from '../src/settings/config.ts';
import { ConfigError as SandboxConfigError, optionsFromEnv } from '../sandbox/env.ts';

describe('operations settings', () => {
  it('defaults: metrics on, readiness probe 500 ms cached 2 s, no tracing, no Redis', () => {
    const config = loadConfig({});
    expect([config.metrics, config.readiness, config.tracing.exporter, config.redisUrl, config.shutdownTimeoutMs]).toEqual([
      true,
      { probeTimeoutMs: 500, cacheMs: 2000 },
      'none',
      undefined,
      10_000,
    ]);
  });

  it('reads each variable', () => {
    const config = testConfig({ METRICS: 'false', READY_PROBE_TIMEOUT_MS: '250', READY_CACHE_MS: '0', REDIS_URL: 'rediss://user:pw@cache.internal:6380/2' });
    expect([config.metrics, config.readiness, config.redisUrl]).toEqual([false, { probeTimeoutMs: 250, cacheMs: 0 }, 'rediss://user:pw@cache.internal:6380/2']);
    expect(testConfig({ REDIS_URL: '' }).redisUrl).toBeUndefined();
  });

  it.each([
    ['METRICS', 'yes'],
    ['READY_PROBE_TIMEOUT_MS', '0'],
    ['READY_CACHE_MS', '-1'],
    ['REDIS_URL', 'http://cache:6379'],
    ['REDIS_URL', 'cache:6379'],
  ])('stops start-up on %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}:`));
  });
});

describe('settings that involve several variables', () => {
  it('refuses a default page size above the maximum, like any other bad value', () => {
    expect(() => loadConfig({ PAGE_SIZE_DEFAULT: '200' })).toThrow(new ConfigError('Invalid configuration:\n  PAGE_SIZE_DEFAULT: must not exceed PAGE_SIZE_MAX (100)'));
    expect(loadConfig({ PAGE_SIZE_DEFAULT: '200', PAGE_SIZE_MAX: '200' }).paging).toEqual({ defaultSize: 200, maxSize: 200 });
  });
});

describe('the embedded sandbox’s settings', () => {
  it('are read as `npm run sandbox` reads them, through one definition', () => {
    const env = { SANDBOX_PORT: '5010', SANDBOX_CONTENT_PORT: '5011', SANDBOX_LIVE: 'TRUE', SANDBOX_LIVE_INTERVAL_MS: '250', SANDBOX_MAX_PAGE_SIZE: '40' };
    const config = loadConfig(env);
    expect({ port: config.sandboxPort, contentPort: config.sandboxContentPort, ...config.sandbox }).toEqual({ port: 5010, contentPort: 5011, live: true, liveIntervalMs: 250, maxPageSize: 40 });
    expect(optionsFromEnv(env)).toMatchObject({ port: 5010, contentPort: 5011, live: true, liveIntervalMs: 250, maxPageSize: 40 });
  });

  it.each([
    ['SANDBOX_PORT', '70000'],
    ['SANDBOX_LIVE', 'yes'],
    ['SANDBOX_LIVE_INTERVAL_MS', '1.5'],
    ['SANDBOX_MAX_PAGE_SIZE', '0'],
  ])('refuse %s=%s with the sandbox’s own message', (name, value) => {
    let sandboxMessage = '';
    try {
      optionsFromEnv({ [name]: value });
    } catch (error) {
      expect(error).toBeInstanceOf(SandboxConfigError);
      sandboxMessage = (error as Error).message;
    }
    expect(sandboxMessage.startsWith(`${name} must be`)).toBe(true);
    expect(() => loadConfig({ [name]: value })).toThrow(new ConfigError(`Invalid configuration:\n  ${name}: ${sandboxMessage.slice(name.length + 1)}`));
  });
});

describe('defaults computed from the environment', () => {
  it('turn the playground, introspection and field suggestions off in production only', () => {
    const exposure = (env: Record<string, string>) => {
      const config = loadConfig(env);
      return [config.playground, config.introspection, config.fieldSuggestions, config.cors.allowLoopbackOrigins];
    };
    expect(exposure({})).toEqual([true, true, true, true]);
    expect(exposure({ NODE_ENV: 'production' })).toEqual([false, false, false, false]);
    expect(exposure({ NODE_ENV: 'production', PLAYGROUND: 'true', INTROSPECTION: '1', FIELD_SUGGESTIONS: 'true' })).toEqual([true, true, true, false]);
    expect(exposure({ PLAYGROUND: 'false', INTROSPECTION: '0', FIELD_SUGGESTIONS: 'false' })).toEqual([false, false, false, true]);
  });

  it('run only trusted documents in production when a manifest is set', () => {
    expect(loadConfig({ TRUSTED_DOCUMENTS: 'manifest.json' }).trustedDocuments).toEqual({ file: 'manifest.json', only: false });
    expect(loadConfig({ TRUSTED_DOCUMENTS: 'manifest.json', NODE_ENV: 'production' }).trustedDocuments).toEqual({ file: 'manifest.json', only: true });
    expect(loadConfig({ TRUSTED_DOCUMENTS: 'manifest.json', NODE_ENV: 'production', TRUSTED_DOCUMENTS_ONLY: 'false' }).trustedDocuments).toEqual({ file: 'manifest.json', only: false });
    expect(loadConfig({ NODE_ENV: 'production' }).trustedDocuments).toBeUndefined();
    expect(() => loadConfig({ TRUSTED_DOCUMENTS_ONLY: 'true' })).toThrow(new ConfigError('Invalid configuration:\n  TRUSTED_DOCUMENTS_ONLY: needs TRUSTED_DOCUMENTS=<manifest file>'));
  });

  it('size the route limits from the socket pool, unless set (0 included)', () => {
    expect(loadConfig({}).platformProtection.route).toEqual({ maxInFlight: 32, queue: 256 });
    expect(loadConfig({ UPSTREAM_MAX_SOCKETS: '10' }).platformProtection.route).toEqual({ maxInFlight: 5, queue: 40 });
    expect(loadConfig({ UPSTREAM_MAX_SOCKETS: '1' }).platformProtection.route).toEqual({ maxInFlight: 1, queue: 4 });
    expect(loadConfig({ UPSTREAM_MAX_SOCKETS: '10', UPSTREAM_ROUTE_MAX_IN_FLIGHT: '7', UPSTREAM_ROUTE_QUEUE: '0' }).platformProtection.route).toEqual({ maxInFlight: 7, queue: 0 });
  });

  it('export traces over OTLP when an endpoint is set', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({ exporter: 'otlp', endpoint: 'http://collector:4318/v1/traces', serviceName: 'platform-gateway' });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/t' }).tracing.endpoint).toBe('http://traces:4318/t');
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing.endpoint).toBe('http://localhost:4318/v1/traces');
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'console', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toEqual({ exporter: 'console', endpoint: undefined, serviceName: 'platform-gateway' });
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing.exporter).toBe('none');
  });
});
