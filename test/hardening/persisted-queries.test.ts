import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { tolerantCache } from '../../src/hardening/index.ts';
import { createLogger } from '../../src/logger.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { hasRedisServer, startRedisServer, type RedisServer } from '../support/redis-server.ts';
import { post, sha256, type RawResponse } from './support/http.ts';
import { until } from '../support/time.ts';

const QUERY = 'query OpenExceptions { exceptions(first: 2, filter: { status: [NEW] }) { nodes { id status } } }';
const HASH = sha256(QUERY);
const persisted = (hash = HASH) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

function send(stack: Stack, body: Record<string, unknown>): Promise<RawResponse> {
  return post(`${stack.gateway.url}/graphql`, body, { authorization: `Bearer ${stack.acme}` });
}

function expectNotFound(response: RawResponse) {
  expect(response.status).toBe(200);
  expect(response.json?.errors).toHaveLength(1);
  expect(response.json!.errors![0]).toMatchObject({ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', requestId: expect.any(String) } });
}

function expectOpenExceptions(stack: Stack, response: RawResponse) {
  expect(response.status).toBe(200);
  expect(response.json?.errors).toBeUndefined();
  const nodes = (response.json!.data!.exceptions as { nodes: { id: string; status: string }[] }).nodes;
  expect(nodes).toHaveLength(2);
  for (const node of nodes) expect(node.status).toBe('NEW');
  expect(stack.platformCalls().length).toBeGreaterThan(0);
}

describe('automatic persisted queries, in memory', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.close());
  beforeEach(() => stack.sandbox.resetRequests());

  it('answers an unknown hash with PERSISTED_QUERY_NOT_FOUND, registers the query, then serves it by hash', async () => {
    expectNotFound(await send(stack, { extensions: persisted() }));
    expect(stack.platformCalls()).toEqual([]);

    expectOpenExceptions(stack, await send(stack, { query: QUERY, extensions: persisted() }));
    stack.sandbox.resetRequests();
    expectOpenExceptions(stack, await send(stack, { extensions: persisted() }));
  });

  it('serves a registered query by hash over GET, the way CDN-cached clients send it', async () => {
    await send(stack, { query: QUERY, extensions: persisted() });
    const url = `${stack.gateway.url}/graphql?extensions=${encodeURIComponent(JSON.stringify(persisted()))}`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${stack.acme}`, 'apollo-require-preflight': 'true' } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { exceptions: { nodes: unknown[] } } }).data.exceptions.nodes).toHaveLength(2);
  });

  it('refuses a query whose hash does not match', async () => {
    const response = await send(stack, { query: QUERY, extensions: persisted(sha256('something else')) });
    expect(response.status).toBe(400);
    expect(response.json?.errors?.[0]).toMatchObject({ message: 'provided sha does not match query' });
    expect(stack.platformCalls()).toEqual([]);
  });

  it('does not register a query the limits refuse', async () => {
    const costly = '{ exceptions(first: 100) { nodes { entity { ... on FinancialAccount { documentAcceptances(first: 100) { nodes { id } } } } } } }';
    const refused = await send(stack, { query: costly, extensions: persisted(sha256(costly)) });
    expect(refused.status).toBe(400);
    expect(refused.json?.errors?.[0]?.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', limit: 'MAX_QUERY_COST' });
    expectNotFound(await send(stack, { extensions: persisted(sha256(costly)) }));
    expect(stack.platformCalls()).toEqual([]);
  });

  it('applies the same limits to a query fetched by hash', async () => {
    const deep = '{ documentAcceptances(financialAccountId: "x") { edges { node { financialAccount { documentAcceptances { edges { node { createdBy { type } } } } } } } } }';
    const response = await send(stack, { query: deep, extensions: persisted(sha256(deep)) });
    expect(response.json?.errors?.[0]?.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED', limit: 'MAX_QUERY_DEPTH' });
    expectNotFound(await send(stack, { extensions: persisted(sha256(deep)) }));
  });
});

describe('automatic persisted queries switched off', () => {
  it('answers PERSISTED_QUERY_NOT_SUPPORTED and still serves plain queries', async () => {
    const stack = await startStack({ PERSISTED_QUERIES: 'false' });
    try {
      const response = await send(stack, { query: QUERY, extensions: persisted() });
      expect(response.json?.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
      expectOpenExceptions(stack, await send(stack, { query: QUERY }));
    } finally {
      await stack.close();
    }
  });
});

describe('a failing persisted-query store', () => {
  function capture() {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    return { lines, logger: createLogger('warn', { destination }) };
  }

  it('turns a store error into a miss, and a failed registration into a warning', async () => {
    const { lines, logger } = capture();
    const cache = tolerantCache(
      { get: () => Promise.reject(new Error('READONLY replica')), set: () => Promise.reject(new Error('OOM')), delete: () => Promise.reject(new Error('gone')) },
      logger,
      50,
    );
    await expect(cache.get('apq:abc')).resolves.toBeUndefined();
    await expect(cache.set('apq:abc', '{ __typename }', { ttl: 60 })).resolves.toBeUndefined();
    await expect(cache.delete('apq:abc')).resolves.toBe(false);
    expect(lines.map((l) => [l.operation, l.err, l.msg])).toEqual([
      ['get', 'READONLY replica', 'persisted query store failed'],
      ['set', 'OOM', 'persisted query store failed'],
      ['delete', 'gone', 'persisted query store failed'],
    ]);
  });

  it('stops waiting for a store that does not answer', async () => {
    const { lines, logger } = capture();
    const never = new Promise<never>(() => {});
    const cache = tolerantCache({ get: () => never, set: () => never, delete: () => never }, logger, 30);
    // The store never settles: only the cache's own timer can turn the lookup into a miss.
    await expect(cache.get('apq:abc')).resolves.toBeUndefined();
    expect(lines.map((l) => [l.operation, l.err, l.msg])).toEqual([['get', 'no answer within 30 ms', 'persisted query store failed']]);
  });

  it('passes answers of a healthy store through', async () => {
    const entries = new Map<string, string>();
    const cache = tolerantCache(
      { get: async (key) => entries.get(key), set: async (key, value) => void entries.set(key, value), delete: async (key) => entries.delete(key) },
      createLogger('silent'),
      50,
    );
    await cache.set('apq:1', '{ __typename }');
    expect([await cache.get('apq:1'), await cache.get('apq:2'), await cache.delete('apq:1'), await cache.get('apq:1')]).toEqual(['{ __typename }', undefined, true, undefined]);
  });
});

// A real Redis, started by this test on a free loopback port, when the machine has one; CI must have it.
const describeRedis = hasRedisServer || process.env.CI ? describe : describe.skip;

describeRedis('automatic persisted queries shared through Redis', () => {
  let redis: RedisServer;
  let first: Stack;
  let second: Stack;
  /** The warnings of `first`, where the store's failures are logged. */
  const firstWarnings: Record<string, unknown>[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    const env = { REDIS_URL: redis.url, PERSISTED_QUERY_STORE_TIMEOUT_MS: '300' };
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        firstWarnings.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    [first, second] = await Promise.all([startStack(env, {}, createLogger('warn', { destination })), startStack(env)]);
  });
  afterAll(async () => {
    await Promise.all([first?.close(), second?.close()]);
    await redis?.stop();
  });

  it('serves by hash on one gateway a query registered on another', async () => {
    expectNotFound(await send(second, { extensions: persisted() }));
    expectOpenExceptions(first, await send(first, { query: QUERY, extensions: persisted() }));
    // Registration is written after the response is sent: ask until the second gateway finds it (bounded for a hang, not for speed).
    const response = await until('the registration on the shared store', async () => {
      const answer = await send(second, { extensions: persisted() });
      return answer.json?.errors ? undefined : answer;
    }, 20_000);
    expectOpenExceptions(second, response);
  });

  it('keeps answering when Redis goes away: hashes miss, full queries work, the process stays healthy', async () => {
    await redis.stop();
    const lookupFailures = () => firstWarnings.filter((line) => line.msg === 'persisted query store failed' && line.operation === 'get').map((line) => line.err);
    const before = lookupFailures().length;
    expectNotFound(await send(first, { extensions: persisted() }));
    // The miss is the store's failure, logged: node-redis refusing the command, or the store timeout.
    expect(lookupFailures().slice(before)).toEqual([expect.stringMatching(/^(The client is (offline|closed)|no answer within 300 ms)$/)]);
    second.sandbox.resetRequests();
    expectOpenExceptions(second, await send(second, { query: QUERY, extensions: persisted() }));
    expect((await fetch(`${first.gateway.url}/healthz`)).status).toBe(200);
  });

  // node-redis (@redis/client 5.12.1, checked) with its public `disableOfflineQueue` option: a command
  // sent while the client is disconnected fails at once with its ClientOfflineError, instead of
  // waiting in the offline queue until the store timeout gives up on it.
  it('fails a lookup at once while Redis is away, instead of queueing it', async () => {
    const failures = () => firstWarnings.filter((line) => line.msg === 'persisted query store failed' && line.operation === 'get').map((line) => line.err);
    for (let attempt = 0; attempt < 10 && !failures().includes('The client is offline'); attempt++) expectNotFound(await send(first, { extensions: persisted() }));
    expect(failures()).toContain('The client is offline');
  });
});
