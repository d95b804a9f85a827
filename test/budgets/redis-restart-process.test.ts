import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient } from '@redis/client';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { postJson } from '../support/graphql-client.ts';
import { hasRedisServer, startRedisServer, type RedisServer } from '../support/redis-server.ts';

// Three replicas of the real process on one budget Redis that is killed and started again empty on
// the same port: a caller whose budget was spent before does not get a full bucket back. The refill
// is one call per 100 s, so every count below is whole however long a step takes.

const describeRedis = hasRedisServer || process.env.CI ? describe : describe.skip;

let sandbox: Sandbox;
let redis: RedisServer;
let replicas: { origin: string; process: GatewayProcess }[] = [];

/** Resolves once Redis holds `count` connections besides this one: the replicas' (they reconnect on their own). */
async function connections(url: string, count: number): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    for (;;) {
      if ((await client.clientList()).length >= count + 1) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    client.destroy();
  }
}

describeRedis('three replicas, their budget Redis restarted empty', () => {
  beforeAll(async () => {
    [sandbox, redis] = await Promise.all([startSandbox(), startRedisServer(['--maxmemory-policy', 'noeviction'])]);
    const env = { UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'error', ADMIN_PORT: '0', RATE_LIMIT_REDIS_URL: redis.url, RATE_LIMIT_PER_SECOND: '0.01', RATE_LIMIT_BURST: '10', RATE_LIMIT_STORE_TIMEOUT_MS: '500' };
    replicas = await Promise.all([1, 2, 3].map(() => startProductionGateway(env)));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.process.stop()));
    await Promise.all([redis?.stop(), sandbox?.close()]);
  });

  it('keep a spent budget spent: the empty Redis is filled from what the replicas last read', async () => {
    const acme = sandbox.tokens.find((t) => t.businessAccountName.toLowerCase().includes('acme'))!.token;
    const send = async (i: number) => (await postJson(`${replicas[i % 3]!.origin}/graphql`, { query: '{ exceptions(first: 1) { totalCount } }' }, { authorization: `Bearer ${acme}` })).status;
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push(await send(i));
    expect(statuses).toEqual([...Array<number>(10).fill(200), 429]);

    const { url } = redis;
    await redis.stop();
    // The later --port wins: the same address as before.
    redis = { ...(await startRedisServer(['--maxmemory-policy', 'noeviction', '--port', new URL(url).port])), url };
    await connections(url, 3);

    const after: number[] = [];
    for (let i = 0; i < 6; i++) after.push(await send(i));
    expect(after).toEqual(Array<number>(6).fill(429));
  }, 60_000);
});
