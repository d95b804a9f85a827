import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type ProductionGateway } from '../support/gateway-process.ts';
import { hasRedisServer, startRedisServer, type RedisServer } from '../support/redis-server.ts';
import { until } from '../support/time.ts';
import { logLines } from './support/http.ts';

// SUBSCRIPTIONS_PER_TOKEN and MAX_SUBSCRIPTIONS count a whole instance (WORKERS=2: the primary
// counts) and, with REDIS_URL, every replica on that Redis: eight subscriptions of one token, cap 3,
// opened over two workers or two replicas, leave exactly three open; the other five are refused as a
// single process refuses them, and a seat given back is taken again.

const FEED = 'subscription { exceptionsChanged { node { id } } }';
const TOKEN = 'demo-token-acme';
const describeRedis = hasRedisServer || process.env.CI ? describe : describe.skip;

interface Opened {
  /** Resolves with the refusal's extensions, or never for a subscription that stays open. */
  refusal: Promise<Record<string, unknown>>;
  close(): void;
}

/** One subscription over SSE on a connection of its own; a refusal is a `next` carrying the error, then `complete`. */
function open(origin: string): Opened {
  const abort = new AbortController();
  const refusal = (async () => {
    const response = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ query: FEED }),
      signal: abort.signal,
    });
    let text = '';
    const decoder = new TextDecoder();
    const reader = response.body!.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += decoder.decode(chunk.value, { stream: true });
      const data = /^event: next\ndata: (.+)$/m.exec(text);
      if (data) return (JSON.parse(data[1]!) as { errors: { extensions: Record<string, unknown> }[] }).errors[0]!.extensions;
    }
    return new Promise<never>(() => undefined);
  })().catch(() => new Promise<never>(() => undefined));
  return { refusal, close: () => abort.abort() };
}

/** Opens `count` subscriptions one after another over `origins` in turn, each once the one before is started or refused. */
async function openMany(origins: string[], count: number, started: () => number): Promise<{ opened: Opened[]; refusals: Record<string, unknown>[] }> {
  const opened: Opened[] = [];
  const refusals: Record<string, unknown>[] = [];
  for (let n = 0; n < count; n++) {
    const before = started();
    const one = open(origins[n % origins.length]!);
    opened.push(one);
    let refusal: Record<string, unknown> | undefined;
    void one.refusal.then((extensions) => (refusal = extensions));
    await until(`subscription ${n + 1} started or refused`, () => (refusal !== undefined || started() > before ? true : undefined), 20_000, 20);
    if (refusal !== undefined) refusals.push(refusal);
  }
  return { opened, refusals };
}

const PER_TOKEN = { code: 'RATE_LIMITED', limit: 'SUBSCRIPTIONS_PER_TOKEN' };

describe('the subscription caps of one instance of two workers', () => {
  let gateway: ProductionGateway;
  beforeAll(async () => {
    gateway = await startProductionGateway({ WORKERS: '2', LOG_LEVEL: 'info', SUBSCRIPTIONS_PER_TOKEN: '3' }, 40_000);
    await until('the workers-started line', () => logLines(gateway.process.stdout()).find((line) => line.msg === 'workers started'), 20_000);
  }, 120_000);
  afterAll(() => gateway?.process.stop());

  it('count both workers together: three of eight stay open, over both workers', async () => {
    const startedLines = () => logLines(gateway.process.stdout()).filter((line) => line.msg === 'subscription started');
    const { opened, refusals } = await openMany([gateway.origin], 8, () => startedLines().length);
    expect(startedLines()).toHaveLength(3);
    expect(new Set(startedLines().map((line) => line.pid)).size).toBe(2);
    expect(refusals.map((refusal) => ({ code: refusal.code, limit: refusal.limit }))).toEqual(Array.from({ length: 5 }, () => PER_TOKEN));
    // One closed gives its seat back: the next is admitted, the one after refused.
    opened[0]!.close();
    await until('the subscription ended', () => logLines(gateway.process.stdout()).some((line) => line.msg === 'subscription ended') || undefined, 20_000);
    const again = await openMany([gateway.origin], 2, () => startedLines().length);
    expect(startedLines()).toHaveLength(4);
    expect(again.refusals.map((refusal) => ({ code: refusal.code, limit: refusal.limit }))).toEqual([PER_TOKEN]);
    for (const one of [...opened, ...again.opened]) one.close();
  });
});

describeRedis('the subscription caps of two replicas on one Redis', () => {
  let sandbox: Sandbox;
  let redis: RedisServer;
  let replicas: ProductionGateway[] = [];
  beforeAll(async () => {
    [sandbox, redis] = await Promise.all([startSandbox(), startRedisServer()]);
    const env = { UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'info', ADMIN_PORT: '0', REDIS_URL: redis.url, SUBSCRIPTIONS_PER_TOKEN: '3' };
    replicas = await Promise.all([1, 2].map(() => startProductionGateway(env)));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.process.stop()));
    await Promise.all([redis?.stop(), sandbox?.close()]);
  });

  it('count every replica together: three of eight stay open, over both replicas', async () => {
    const startedOn = (replica: ProductionGateway) => logLines(replica.process.stdout()).filter((line) => line.msg === 'subscription started').length;
    const started = () => replicas.reduce((sum, replica) => sum + startedOn(replica), 0);
    const { opened, refusals } = await openMany(replicas.map((replica) => replica.origin), 8, started);
    expect(started()).toBe(3);
    expect(replicas.map(startedOn).every((count) => count > 0)).toBe(true);
    expect(refusals.map((refusal) => ({ code: refusal.code, limit: refusal.limit }))).toEqual(Array.from({ length: 5 }, () => PER_TOKEN));
    for (const one of opened) one.close();
  });
});
