import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient } from '@redis/client';
import type { Logger } from 'pino';
import { MemoryBuckets, type BucketPolicy } from '../../src/budgets/bucket.ts';
import { RedisBuckets } from '../../src/budgets/redis-buckets.ts';
import { hasRedisServer, startRedisServer, type RedisServer } from '../support/redis-server.ts';
import { closedPort } from '../platform/support.ts';

// The store's own operations against a real redis-server (test/support/redis-server.ts). A refill of
// one token per 100 s keeps the counts whole however long a command takes; what a frozen Redis does
// or an unreachable one does is tested on the whole gateway (budgets-process.test.ts): an unreachable
// Redis holds start-up for STARTUP_WAIT_MS.

const describeRedis = hasRedisServer || process.env.CI ? describe : describe.skip;
const POLICY: BucketPolicy = { name: 'calls', perSecond: 0.01, burst: 10 };

describeRedis('RedisBuckets', () => {
  let redis: RedisServer;
  const stores: RedisBuckets[] = [];
  let failures: number;
  let keys = 0;
  /** A fresh bucket key per test: the tests share one Redis. */
  let key: string;

  beforeAll(async () => {
    redis = await startRedisServer(['--maxmemory-policy', 'volatile-lru']);
  });
  afterAll(() => redis.stop());
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  async function connect(url = redis.url, fallback = new MemoryBuckets(100)): Promise<RedisBuckets> {
    failures = 0;
    key = `caller-${++keys}`;
    const logger = { warn: () => undefined } as unknown as Logger;
    const store = await RedisBuckets.connect({ url, timeoutMs: 2_000 }, fallback, logger, { recordStoreFailure: () => void failures++ });
    stores.push(store);
    return store;
  }

  it('takes from one budget shared by every store on the same Redis', async () => {
    const [a, b] = [await connect(), await connect()];
    key = 'shared';
    expect(await a.take(POLICY, key, 3)).toMatchObject({ allowed: true, available: 7, retryAfterMs: 0 });
    expect(await b.take(POLICY, key, 4)).toMatchObject({ allowed: true, available: 3, retryAfterMs: 0 });
    expect(failures).toBe(0);
  });

  it('refuses a take the bucket cannot pay, changing nothing, and tells the wait', async () => {
    const store = await connect();
    await store.take(POLICY, key, 8);
    const refused = await store.take(POLICY, key, 5);
    expect(refused).toMatchObject({ allowed: false, available: 2 });
    // Three tokens short at 100 s each, less the moments since the first take.
    expect(refused.retryAfterMs).toBeGreaterThan(299_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(300_000);
    expect(await store.take(POLICY, key, 2)).toMatchObject({ allowed: true, available: 0 });
  });

  it('refunds without filling beyond full, and charges into debt without a check', async () => {
    const store = await connect();
    await store.take(POLICY, key, 4);
    expect(await store.adjust(POLICY, key, -10)).toMatchObject({ allowed: true, available: 10, fullInMs: 0 });
    expect(await store.adjust(POLICY, key, 15)).toMatchObject({ allowed: true, available: 0 });
    expect(await store.take(POLICY, key, 1)).toMatchObject({ allowed: false, available: 0 });
  });

  it('keeps the shared state in memory too, to go on from should Redis fail', async () => {
    const fallback = new MemoryBuckets(100);
    const store = await connect(redis.url, fallback);
    await store.take(POLICY, key, 6);
    expect(fallback.takeNow(POLICY, key, 0)).toMatchObject({ allowed: true, available: 4 });
  });

  it('loads its script again when Redis has forgotten it', async () => {
    const store = await connect();
    await store.take(POLICY, key, 1);
    const admin = createClient({ url: redis.url });
    await admin.connect();
    await admin.scriptFlush();
    await admin.close();
    expect(await store.take(POLICY, key, 1)).toMatchObject({ allowed: true, available: 8 });
    expect(failures).toBe(0);
  });

  it("tells Redis' eviction policy", async () => {
    expect(await (await connect()).evictionPolicy()).toBe('volatile-lru');
  });

  it('does not read a bucket a Redis restarted empty has lost as full: the state this instance last read stands', async () => {
    const store = await connect();
    await store.take(POLICY, key, 8);
    const admin = createClient({ url: redis.url });
    await admin.connect();
    // What a restart without persistence leaves: no keys, no scripts.
    await admin.flushAll();
    await admin.scriptFlush();
    expect(await store.take(POLICY, key, 5)).toMatchObject({ allowed: false, available: 2 });
    expect(await store.take(POLICY, key, 2)).toMatchObject({ allowed: true, available: 0 });
    // Redis holds the bucket again, as spent.
    expect(Number(await admin.get(`gateway-budget:${POLICY.name}:${key}`))).toBeGreaterThan(Date.now() + 900_000);
    await admin.close();
    expect(failures).toBe(0);
  });
});

describeRedis('RedisBuckets of several replicas, while Redis is gone', () => {
  it('admit each only its share of the burst, so that together they admit no more than it', async () => {
    const own = await startRedisServer();
    const logger = { warn: () => undefined } as unknown as Logger;
    const connect = () => RedisBuckets.connect({ url: own.url, timeoutMs: 300 }, new MemoryBuckets(100), logger);
    const [a, b] = [await connect(), await connect()];
    try {
      // Both live: each reads two replicas.
      expect([await a.countReplicas(), await b.countReplicas()]).toEqual([2, 2]);
      await own.stop();
      // Counted alone, each call costs two of the bucket: 5 calls of a burst of 10 each.
      expect(await a.take(POLICY, 'alone', 6)).toMatchObject({ allowed: false });
      expect(await a.take(POLICY, 'alone', 5)).toMatchObject({ allowed: true, available: 0 });
      expect(await b.take(POLICY, 'alone', 5)).toMatchObject({ allowed: true, available: 0 });
      expect(await b.take(POLICY, 'alone', 1)).toMatchObject({ allowed: false });
      // The count read last stands while Redis is gone.
      expect(await a.countReplicas()).toBe(2);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describeRedis('RedisBuckets of fresh replicas that reached Redis but could not count one another', () => {
  it('admit no burst of a bucket they never read while Redis hangs, only its refill', async () => {
    // A Redis that refuses CLIENT LIST (as some managed services do): the replicas never learn how many they are.
    const own = await startRedisServer(['--user', 'default', 'on', 'nopass', '~*', '&*', '+@all', '-client|list']);
    const logger = { warn: () => undefined } as unknown as Logger;
    const stores = await Promise.all([1, 2, 3].map(() => RedisBuckets.connect({ url: own.url, timeoutMs: 50 }, new MemoryBuckets(100), logger)));
    try {
      expect(await Promise.all(stores.map((store) => store.countReplicas()))).toEqual([1, 1, 1]);
      own.child.kill('SIGSTOP');
      let admitted = 0;
      for (let n = 0; n < 20; n++) for (const store of stores) if ((await store.take(POLICY, 'a fresh caller', 1)).allowed) admitted++;
      // The shared bucket would admit 10 in all; each replica alone admitted 10 of its own. Its refill
      // (one call in 100 s) is all each gets now.
      expect(admitted).toBe(0);
    } finally {
      own.child.kill('SIGCONT');
      await Promise.all(stores.map((store) => store.close()));
      await own.stop();
    }
  });
});

describe('RedisBuckets of a replica that never reached Redis', () => {
  it('counts alone with a burst of its own, as documented', async () => {
    const store = await RedisBuckets.connect({ url: `redis://127.0.0.1:${await closedPort()}`, timeoutMs: 50 }, new MemoryBuckets(100), { warn: () => undefined } as unknown as Logger);
    try {
      let admitted = 0;
      for (let n = 0; n < 20; n++) if ((await store.take(POLICY, 'a caller', 1)).allowed) admitted++;
      expect(admitted).toBe(10);
    } finally {
      await store.close();
    }
  });
});
