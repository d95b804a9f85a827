import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient } from '@redis/client';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { loadConfig } from '../../src/config.ts';
import { callerKey, retryAfterSeconds } from '../../src/hardening/rate-limit.ts';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { hasRedisServer, startRedisServer, type RedisServer } from '../support/redis-server.ts';

// The limit is tested on the real process (`node src/main.ts` in production mode, as `npm start`
// runs it) over one in-process sandbox, whose request log shows whether a platform call was made.

const COUNT = 'query Count { exceptions(first: 1) { totalCount } }';

let sandbox: Sandbox;
let acme: string;
let globex: string;
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  acme = sandbox.tokens.find((t) => t.businessAccountName.toLowerCase().includes('acme'))!.token;
  globex = sandbox.tokens.find((t) => t.businessAccountName.toLowerCase().includes('globex'))!.token;
});
afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.stop()));
  await sandbox.close();
});

/** A gateway process over the sandbox; resolves with its origin once it listens. */
async function startGateway(env: Record<string, string>): Promise<string> {
  const { process, origin, admin } = await startProductionGateway({ UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'warn', ...env });
  gateways.push(process);
  adminOf.set(origin, admin!);
  return origin;
}

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { data?: { exceptions: { totalCount: number } } | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

async function count(origin: string, token: string | undefined, requestId?: string): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (requestId !== undefined) headers['x-request-id'] = requestId;
  const response = await fetch(`${origin}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: COUNT }) });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as Answer['body'] };
}

/** The same operation as a GraphQL GET, which the Express route serves (not the plain-POST path). */
async function countByGet(origin: string, token: string, requestId: string): Promise<Answer> {
  const response = await fetch(`${origin}/graphql?query=${encodeURIComponent(COUNT)}`, {
    headers: { authorization: `Bearer ${token}`, 'apollo-require-preflight': 'true', 'x-request-id': requestId },
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as Answer['body'] };
}

async function platformRequests(): Promise<number> {
  return ((await (await fetch(`${sandbox.url}/__sandbox/requests`)).json()) as { total: number }).total;
}

async function resetPlatformRequests(): Promise<void> {
  await (await fetch(`${sandbox.url}/__sandbox/requests`, { method: 'DELETE' })).arrayBuffer();
}

/** Each gateway's admin listener, by its public origin: /metrics is served there. */
const adminOf = new Map<string, string>();

/** A counter's value in the gateway's /metrics, 0 when the series is absent. */
async function metric(origin: string, series: string): Promise<number> {
  const text = await (await fetch(`${adminOf.get(origin)!}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

const ACME_EXCEPTIONS = 300;
const GLOBEX_EXCEPTIONS = 260;
const served = (totalCount: number) => ({ status: 200, retryAfter: null, body: { data: { exceptions: { totalCount } } } });
const refused = (retryAfter: string, requestId: unknown) => ({
  status: 429,
  retryAfter,
  body: { errors: [{ message: `Too many requests from this caller: retry after ${retryAfter} s`, extensions: { code: 'RATE_LIMITED', requestId } }] },
});

describe('per-caller rate limit, one gateway process', () => {
  let origin: string;
  beforeAll(async () => {
    // A window of 3 s holding 3 requests.
    origin = await startGateway({ RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '3' });
  }, 40_000);

  it('refuses a token over its burst with 429, Retry-After and RATE_LIMITED, without a platform call; other callers are unaffected; the budget refills', async () => {
    for (let i = 0; i < 3; i++) expect(await count(origin, acme)).toEqual(served(ACME_EXCEPTIONS));

    await resetPlatformRequests();
    const over = await count(origin, acme, 'rl-over-0001');
    expect(over).toEqual(refused(over.retryAfter!, 'rl-over-0001'));
    expect(['1', '2', '3']).toContain(over.retryAfter);
    // The Express route (a GraphQL GET) is limited as well; a request without an id gets a fresh one.
    const byGet = await countByGet(origin, acme, 'rl-over-0002');
    expect(byGet).toEqual(refused(byGet.retryAfter!, 'rl-over-0002'));
    const freshId = await count(origin, acme);
    expect(freshId).toEqual(refused(freshId.retryAfter!, expect.stringMatching(/^[0-9a-f-]{36}$/)));
    expect(await platformRequests()).toBe(0);

    // Another token, and a caller without one (keyed by address), have budgets of their own.
    expect(await count(origin, globex)).toEqual(served(GLOBEX_EXCEPTIONS));
    const unauthenticated = await count(origin, undefined);
    expect(unauthenticated.status).toBe(200);
    expect(unauthenticated.body.data).toEqual({ exceptions: null });
    expect(unauthenticated.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(await metric(origin, 'rate_limited_total{caller="token"}')).toBe(3);

    // Once the window has passed, as Retry-After says, the token is served again.
    const retryAfter = Number((await count(origin, acme)).retryAfter);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    expect(await count(origin, acme)).toEqual(served(ACME_EXCEPTIONS));
  }, 30_000);
});

const describeRedis = hasRedisServer || process.env.CI ? describe : describe.skip;

describeRedis('per-caller rate limit shared through Redis', () => {
  let redis: RedisServer;
  let first: string;
  let second: string;
  beforeAll(async () => {
    redis = await startRedisServer();
    // A window of 20 s holding 4 requests: the test never sees it reopen.
    const env = { REDIS_URL: redis.url, RATE_LIMIT_PER_SECOND: '0.2', RATE_LIMIT_BURST: '4', RATE_LIMIT_STORE_TIMEOUT_MS: '1000' };
    [first, second] = await Promise.all([startGateway(env), startGateway(env)]);
  }, 40_000);
  afterAll(async () => {
    await redis?.stop();
  });

  it('spends one budget across both processes, and keeps no token in Redis', async () => {
    for (const origin of [first, second, first, second]) expect(await count(origin, acme)).toEqual(served(ACME_EXCEPTIONS));
    expect((await count(first, acme, 'rl-shared-1')).status).toBe(429);
    expect((await count(second, acme, 'rl-shared-2')).status).toBe(429);
    expect(await count(second, globex)).toEqual(served(GLOBEX_EXCEPTIONS));

    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const keys = (await client.keys('*')).sort();
      expect(keys).toEqual(expect.arrayContaining([expect.stringMatching(/^gateway-rate:token:[0-9a-f]{32}$/)]));
      expect(keys).toHaveLength(2);
      for (const key of keys) expect(key).not.toContain(acme);
      for (const key of keys) expect(key).not.toContain(globex);
      // Every check counts, refused ones included: acme's 4 + 2, globex's 1; each key expires with its window.
      expect(await Promise.all(keys.map((key) => client.get(key)))).toEqual(expect.arrayContaining(['6', '1']));
      for (const key of keys) {
        const ttl = await client.pTTL(key);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(20_000);
      }
    } finally {
      client.destroy();
    }
    expect(await metric(first, 'rate_limit_store_failures_total')).toBe(0);
  }, 30_000);

  it('stops waiting for a Redis that does not answer and counts the request in memory', async () => {
    // Stopped, not gone: the connection stays open and a command gets no answer at all.
    redis.child.kill('SIGSTOP');
    try {
      const unauthenticated = await count(second, undefined);
      expect(unauthenticated.status).toBe(200);
      expect(unauthenticated.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      expect(await metric(second, 'rate_limit_store_failures_total')).toBe(1);
    } finally {
      redis.child.kill('SIGCONT');
    }
  }, 30_000);

  it('keeps answering when Redis is gone, counting each request in memory and each failure in the metric', async () => {
    await redis.stop();
    // This process's own budget for the token, in memory: the burst, then refusals.
    for (let i = 0; i < 4; i++) expect(await count(first, globex)).toEqual(served(GLOBEX_EXCEPTIONS));
    expect((await count(first, globex, 'rl-fallback-1')).status).toBe(429);
    expect(await metric(first, 'rate_limit_store_failures_total')).toBe(5);
    expect((await fetch(`${first}/healthz`)).status).toBe(200);
  }, 30_000);
});

describe('caller keys and settings', () => {
  const request = (headers: Record<string, string>, remoteAddress = '10.1.2.3') => ({ headers, socket: { remoteAddress } }) as unknown as IncomingMessage;

  it('keys a caller by a hash of its Authorization header, never the token, else by address', () => {
    const key = callerKey(request({ authorization: 'Bearer secret-token-1234' }));
    expect(key).toEqual({ key: 'token:68b3a4284efbce0d4f2331a934790b18', caller: 'token' });
    expect(callerKey(request({ authorization: 'Bearer secret-token-1235' })).key).not.toBe(key.key);
    expect(callerKey(request({}))).toEqual({ key: 'address:10.1.2.3', caller: 'address' });
  });

  it('rounds Retry-After up to whole seconds, at least 1', () => {
    expect([0, 1, 999, 1000, 1001, 2500].map(retryAfterSeconds)).toEqual([1, 1, 1, 1, 2, 3]);
  });

  it('maps the rate and burst to a window, and refuses settings it cannot keep', () => {
    expect(loadConfig({}).rateLimit).toBeUndefined();
    expect(loadConfig({ RATE_LIMIT_PER_SECOND: '20', RATE_LIMIT_BURST: '50' }).rateLimit).toEqual({ perSecond: 20, burst: 50, windowSeconds: 2.5, storeTimeoutMs: 100 });
    expect(loadConfig({ RATE_LIMIT_PER_SECOND: '0.5' }).rateLimit).toEqual({ perSecond: 0.5, burst: 1, windowSeconds: 2, storeTimeoutMs: 100 });
    expect(() => loadConfig({ RATE_LIMIT_BURST: '10' })).toThrow('RATE_LIMIT_BURST: needs RATE_LIMIT_PER_SECOND (the limit is off without it)');
    expect(() => loadConfig({ RATE_LIMIT_PER_SECOND: '20', RATE_LIMIT_BURST: '10' })).toThrow("RATE_LIMIT_BURST: must be at least RATE_LIMIT_PER_SECOND (20): the burst is at least one second's worth of requests");
  });
});
