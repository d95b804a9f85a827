import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig, testConfig } from '../../src/config.ts';
import { ConfigError as SandboxConfigError, optionsFromEnv } from '../../sandbox/env.ts';

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
