import { describe, expect, it } from '@jest/globals';
import { checkRedisAddresses, loadConfig } from '../src/settings/config.ts';
import { redisEndpoint, sameRedisByName, sharedRedis, type Lookup } from '../src/settings/redis-servers.ts';

// REDIS_URL and RATE_LIMIT_REDIS_URL compared by the server and database they reach, not as text.

const REFUSAL = 'RATE_LIMIT_REDIS_URL: must be a Redis of its own (maxmemory-policy noeviction), not REDIS_URL: persisted queries would evict budgets';

/** A resolver with fixed answers: cache and cache.internal are one server, budgets another. */
const names: Record<string, string[]> = { cache: ['10.0.0.5'], 'cache.internal': ['10.0.0.5'], budgets: ['10.0.0.6'], both: ['10.0.0.6', '10.0.0.5'] };
const resolve: Lookup = async (host) => {
  const addresses = names[host];
  if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses;
};

describe('redisEndpoint', () => {
  it('reads host, port and database, with the defaults node-redis uses', () => {
    expect(['redis://cache', 'rediss://user:pw@Cache.Internal:6380/2', 'redis://[::1]:7000/', 'redis://127.0.0.1:1'].map(redisEndpoint)).toEqual([
      { host: 'cache', port: 6379, database: 0 },
      { host: 'cache.internal', port: 6380, database: 2 },
      { host: '::1', port: 7000, database: 0 },
      { host: '127.0.0.1', port: 1, database: 0 },
    ]);
  });
});

describe('the two Redis settings, at configuration', () => {
  it('refuses one server and database however it is spelt: loopback names, default port and database, credentials', () => {
    for (const [redis, budgets] of [
      ['redis://127.0.0.1:1', 'redis://localhost:1/'],
      ['redis://cache', 'redis://cache:6379/0'],
      ['redis://CACHE:6379', 'rediss://user:secret@cache'],
      ['redis://[::1]:6379/3', 'redis://127.0.0.1/3'],
    ]) {
      expect(() => loadConfig({ REDIS_URL: redis, RATE_LIMIT_REDIS_URL: budgets })).toThrow(REFUSAL);
    }
  });

  it('accepts another port, another database or another host', () => {
    expect([
      ['redis://127.0.0.1:6379', 'redis://localhost:6380'],
      ['redis://cache:6379/0', 'redis://cache:6379/1'],
      ['redis://cache', 'redis://budgets'],
    ].map(([redis, budgets]) => loadConfig({ REDIS_URL: redis, RATE_LIMIT_REDIS_URL: budgets }).budgetStore.redisUrl)).toEqual(['redis://localhost:6380', 'redis://cache:6379/1', 'redis://budgets']);
  });
});

describe('the two Redis settings, resolved at start-up', () => {
  it('names the address both reach when two host names resolve to one server', async () => {
    expect(await sharedRedis('redis://cache:6379/1', 'redis://cache.internal/1', resolve)).toBe('10.0.0.5:6379, database 1');
    expect(await sharedRedis('redis://both', 'redis://cache', resolve)).toBe('10.0.0.5:6379, database 0');
    await expect(checkRedisAddresses(loadConfig({ REDIS_URL: 'redis://cache', RATE_LIMIT_REDIS_URL: 'redis://cache.internal' }), resolve)).rejects.toThrow(
      `Invalid configuration:\n  ${REFUSAL} (both reach 10.0.0.5:6379, database 0)`,
    );
  });

  it('accepts hosts that resolve apart, another port or database, a name that does not resolve, or one setting alone', async () => {
    expect(await Promise.all([
      sharedRedis('redis://cache', 'redis://budgets', resolve),
      sharedRedis('redis://cache', 'redis://cache.internal:6380', resolve),
      sharedRedis('redis://cache/0', 'redis://cache.internal/1', resolve),
      sharedRedis('redis://cache', 'redis://nowhere', resolve),
    ])).toEqual([undefined, undefined, undefined, undefined]);
    await expect(checkRedisAddresses(loadConfig({ REDIS_URL: 'redis://cache', RATE_LIMIT_REDIS_URL: 'redis://budgets' }), resolve)).resolves.toBeUndefined();
    await expect(checkRedisAddresses(loadConfig({ RATE_LIMIT_REDIS_URL: 'redis://cache' }), resolve)).resolves.toBeUndefined();
  });

  it('takes every loopback address for one host', () => {
    expect([sameRedisByName('redis://127.0.0.2', 'redis://[::1]'), sameRedisByName('redis://localhost', 'redis://10.0.0.5')]).toEqual([true, false]);
  });
});
