import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient } from '@redis/client';
import { tokenKey } from '../../src/request/caller-token.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { postJson } from '../support/graphql-client.ts';
import { hasRedisServer, startRedisServer, type RedisServer } from '../support/redis-server.ts';

// Three replicas of the real process started together on one budget Redis: together they admit no
// more than the shared burst and what refilled, one replica's stalled event loop changes nothing,
// and Redis holds exactly one charge per admitted request. The store timeout is 500 ms: on a machine
// this loaded, a 100 ms one times out for real now and then, and a request the store did not answer
// is counted by its instance alone (docs/security.md says what that costs the bound).

const describeRedis = hasRedisServer || process.env.CI ? describe : describe.skip;

let sandbox: Sandbox;
let redis: RedisServer;
let client: ReturnType<typeof createClient>;
let replicas: { origin: string; process: GatewayProcess }[] = [];

describeRedis('three replicas, one budget Redis', () => {
  beforeAll(async () => {
    [sandbox, redis] = await Promise.all([startSandbox(), startRedisServer(['--maxmemory-policy', 'noeviction'])]);
    const env = { UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'warn', ADMIN_PORT: '0', RATE_LIMIT_REDIS_URL: redis.url, RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '10', RATE_LIMIT_STORE_TIMEOUT_MS: '500' };
    replicas = await Promise.all([1, 2, 3].map(() => startProductionGateway(env)));
    client = createClient({ url: redis.url });
    await client.connect();
  }, 60_000);
  afterAll(async () => {
    client?.destroy();
    await Promise.all(replicas.map((replica) => replica.process.stop()));
    await Promise.all([redis?.stop(), sandbox?.close()]);
  });

  const redisNow = async () => {
    const [seconds, micros] = (await client.time()) as unknown as [number, number] | [string, string];
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  };

  /** 60 requests raced over the replicas (`during` runs once the first half is sent); what each answered, and Redis' clock around it. */
  async function race(token: string, during?: () => Promise<void>) {
    const before = await redisNow();
    const started = performance.now();
    const send = (i: number) => postJson(`${replicas[i % 3]!.origin}/graphql`, { query: '{ exceptions(first: 1) { totalCount } }' }, { authorization: `Bearer ${token}` }).then((response) => response.status);
    const first = Array.from({ length: 30 }, (_, i) => send(i));
    const middle = during?.();
    const second = Array.from({ length: 30 }, (_, i) => send(30 + i));
    const statuses = await Promise.all([...first, ...second]);
    await middle;
    const seconds = (performance.now() - started) / 1000;
    return { statuses, seconds, before, after: await redisNow() };
  }

  /** Admitted requests within the burst and the refill, and Redis charged once for each of them. */
  async function check(token: string, { statuses, seconds, before, after }: Awaited<ReturnType<typeof race>>) {
    const admitted = statuses.filter((status) => status === 200).length;
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(admitted).toBeGreaterThanOrEqual(10);
    expect(admitted).toBeLessThanOrEqual(10 + Math.ceil(seconds) + 2);
    // Each take moved the bucket's time one interval (1 s) on from where the first left it, which was
    // between `before` and `after` in Redis' clock: the stored time tells how many takes Redis applied.
    const stored = Number(await client.get(`gateway-budget:platform-calls:token:${tokenKey(token)}`));
    expect(Math.round((stored - after) / 1000)).toBeLessThanOrEqual(admitted);
    expect(Math.round((stored - before) / 1000)).toBeGreaterThanOrEqual(admitted);
  }

  it('admit no more than the shared burst and the refill, each admitted request charged once in Redis', async () => {
    const acme = sandbox.tokens.find((t) => t.businessAccountName.toLowerCase().includes('acme'))!.token;
    await check(acme, await race(acme));
  }, 60_000);

  it('the same with one replica\'s event loop stalled 1 s (twice the store timeout) in the middle', async () => {
    const globex = sandbox.tokens.find((t) => t.businessAccountName.toLowerCase().includes('globex'))!.token;
    const stalled = replicas[0]!.process.child;
    const result = await race(globex, async () => {
      stalled.kill('SIGSTOP');
      // Twice the store timeout: the replica's timers all fire late, beside replies that arrived meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      stalled.kill('SIGCONT');
    });
    await check(globex, result);
  }, 60_000);

  it('warns at start-up when budgets are on and REDIS_URL is set without RATE_LIMIT_REDIS_URL: each instance counts alone', async () => {
    const alone = await startProductionGateway({ UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'warn', ADMIN_PORT: '0', REDIS_URL: redis.url, RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '10' });
    try {
      const [line] = await alone.process.waitFor(/^.*RATE_LIMIT_REDIS_URL is not.*$/m, 5_000);
      expect(JSON.parse(line)).toEqual(expect.objectContaining({
        level: 40,
        msg: 'budgets are counted per instance: REDIS_URL is set but RATE_LIMIT_REDIS_URL is not; set RATE_LIMIT_REDIS_URL (a Redis of its own, noeviction) to share them between instances',
      }));
    } finally {
      await alone.process.stop();
    }
  }, 40_000);
});
