import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient } from '@redis/client';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { postJson } from '../support/graphql-client.ts';
import { tokenKey } from '../../src/request/caller-token.ts';
import { INSPECTABLE, liveMemory } from '../support/live-memory.ts';
import { hasRedisServer, startRedisServer, type RedisServer } from '../support/redis-server.ts';
import { until } from '../support/time.ts';

// Budgets on the real process (`node dist/main.js` in production mode, as `npm start` runs it) over
// one in-process sandbox, whose request log shows which platform calls were made.

let sandbox: Sandbox;
let acme: string;
let template: { templateId: string; templateVersionId: string };
let account: string;

interface Fixtures {
  businessAccounts: { token: string; financialAccounts: string[]; linxTemplates: { templateId: string; versions: { templateVersionId: string }[] }[] }[];
}
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  acme = sandbox.tokens.find((t) => t.businessAccountName.toLowerCase().includes('acme'))!.token;
  const fixtures = (await (await fetch(`${sandbox.url}/__sandbox/fixtures`)).json()) as Fixtures;
  const acmeFixtures = fixtures.businessAccounts.find((business) => business.token === acme)!;
  const first = acmeFixtures.linxTemplates[0]!;
  template = { templateId: first.templateId, templateVersionId: first.versions[0]!.templateVersionId };
  account = acmeFixtures.financialAccounts[0]!;
});
afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.stop()));
  await sandbox.close();
});

async function startGateway(env: Record<string, string>): Promise<{ origin: string; process: GatewayProcess }> {
  const started = await startProductionGateway({ UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'warn', ...env });
  gateways.push(started.process);
  return started;
}

interface Answer {
  status: number;
  headers: Headers;
  body: { data?: Record<string, unknown> | null; errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[]; extensions?: Record<string, unknown> };
}

/** The answer with its headers (the RateLimit fields), sent with the shared client as `authorization`, or with none. */
async function post(origin: string, authorization: string | undefined, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await postJson(`${origin}/graphql`, { query, variables }, authorization === undefined ? headers : { ...headers, authorization });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Answer['body'] };
}

async function platformCalls(): Promise<number> {
  return ((await (await fetch(`${sandbox.url}/__sandbox/requests`)).json()) as { total: number }).total;
}

async function resetPlatformCalls(): Promise<void> {
  await (await fetch(`${sandbox.url}/__sandbox/requests`, { method: 'DELETE' })).arrayBuffer();
}


const ONE_CALL = '{ exceptions(first: 1) { totalCount } }';
const THREE_AREAS = `query Three($filter: LinxBatchFilter!, $account: ID!) {
  exceptions(first: 2) { totalCount }
  linxBatches(filter: $filter, first: 1) { nodes { id } }
  documentAcceptances(financialAccountId: $account, first: 1) { totalCount }
}`;
/**
 * Checks the RateLimit header: its remaining calls exactly; its seconds until full as they were at
 * `since`, less what refilled in the time measured since (the countdown runs one second a second).
 */
function expectRateLimit(answer: Answer, since: number, remaining: number, fullInSeconds: number): void {
  const elapsed = Math.ceil((performance.now() - since) / 1000);
  const [, r, t] = /^"platform-calls";r=(\d+);t=(\d+)$/.exec(answer.headers.get('ratelimit') ?? '') ?? [];
  expect(Number(r)).toBe(remaining);
  expect(Number(t)).toBeLessThanOrEqual(fullInSeconds);
  expect(Number(t)).toBeGreaterThanOrEqual(fullInSeconds - elapsed);
}

const cost = (requested: number, actual: number | null, available: number, burst: number, rate: number) => ({
  requestedQueryCost: requested,
  actualQueryCost: actual,
  throttleStatus: { maximumAvailable: burst, currentlyAvailable: available, restoreRate: rate },
});

/** A read over the whole burst: refused with COST_EXCEEDS_BURST, it spends nothing and shows the caller's bucket. */
const OVER_BURST = '{ a: exceptions(first: 100) { totalCount } b: exceptions(first: 99) { totalCount } c: exceptions(first: 98) { totalCount } d: exceptions(first: 97) { totalCount } e: exceptions(first: 96) { totalCount } f: exceptions(first: 95) { totalCount } g: exceptions(first: 94) { totalCount } h: exceptions(first: 93) { totalCount } i: exceptions(first: 92) { totalCount } j: exceptions(first: 91) { totalCount } k: exceptions(first: 90) { totalCount } }';

describe('a bucket of platform calls per caller', () => {
  // A refill of one call per 100 s: nothing refills while a test runs, however slow the machine, so
  // every number is exact.
  let slow: string;
  let fast: string;
  beforeAll(async () => {
    [{ origin: slow }, { origin: fast }] = await Promise.all([startGateway({ RATE_LIMIT_PER_SECOND: '0.01', RATE_LIMIT_BURST: '10' }), startGateway({ RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_BURST: '10' })]);
  }, 40_000);

  it('refills continuously: after a spent burst of 10 at 5/s, what refilled in the time measured passes', async () => {
    const token = `Bearer ${acme}`;
    const available = async () => ((await post(fast, token, OVER_BURST)).body.extensions!.cost as { throttleStatus: { currentlyAvailable: number } }).throttleStatus.currentlyAvailable;
    // At 5/s a call's worth refills every 200 ms: the burst passes, and of the two more at most what refilled meanwhile.
    let started = performance.now();
    const first = await Promise.all(Array.from({ length: 12 }, () => post(fast, token, ONE_CALL)));
    let seconds = (performance.now() - started) / 1000;
    const firstPassed = first.filter((answer) => answer.status === 200).length;
    expect(firstPassed).toBeGreaterThanOrEqual(10);
    expect(firstPassed).toBeLessThanOrEqual(Math.min(12, 10 + Math.floor(seconds * 5)));
    expect(first.filter((answer) => answer.status !== 200).map((answer) => answer.status)).toEqual(Array<number>(12 - firstPassed).fill(429));
    // The refill is waited for by reading the bucket (a refused read spends nothing), not by sleeping.
    const refilled = await until('five calls refilled', async () => ((await available()) >= 5 ? true : undefined), 10_000, 100);
    expect(refilled).toBe(true);
    started = performance.now();
    const before = await available();
    const second = await Promise.all(Array.from({ length: 10 }, () => post(fast, token, ONE_CALL)));
    seconds = (performance.now() - started) / 1000;
    const passed = second.filter((answer) => answer.status === 200).length;
    // What was there when the batch started passes, and no more than what refilled while it ran.
    expect(passed).toBeGreaterThanOrEqual(Math.min(10, before));
    expect(passed).toBeLessThanOrEqual(Math.min(10, before + Math.ceil(seconds * 5)));
  }, 20_000);

  it('charges a three-area read 3, shows it in extensions.cost and the RateLimit headers, and refuses it without a platform call when fewer remain', async () => {
    const token = `Bearer ${acme}`;
    const variables = { filter: template, account };
    await resetPlatformCalls();
    const started = performance.now();
    const answer = await post(slow, token, THREE_AREAS, variables);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body.data!)).toEqual(['exceptions', 'linxBatches', 'documentAcceptances']);
    expect(answer.body.extensions).toEqual({ cost: cost(3, 3, 7, 10, 0.01) });
    expect(answer.headers.get('ratelimit-policy')).toBe('"platform-calls";q=10;w=1000');
    // Full again in 3 calls × 100 s, less what refilled since the charge (0.01 call a second).
    expectRateLimit(answer, started, 7, 300);
    expect(await platformCalls()).toBe(3);

    for (const available of [4, 1]) expect((await post(slow, token, THREE_AREAS, variables)).body.extensions).toEqual({ cost: cost(3, 3, available, 10, 0.01) });
    await resetPlatformCalls();
    const refused = await post(slow, token, THREE_AREAS, variables, { 'x-request-id': 'budget-refused-1' });
    expect(refused.status).toBe(429);
    // Two more calls' worth is 200 s away, less what refilled since the first charge.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeLessThanOrEqual(200);
    expect(retryAfter).toBeGreaterThanOrEqual(200 - Math.ceil((performance.now() - started) / 1000));
    expect(refused.body).toEqual({
      errors: [{ message: `Too many platform calls from this caller: this query needs about 3, 1 are left; retry after ${retryAfter} s`, extensions: { code: 'RATE_LIMITED', retryAfter, requestId: 'budget-refused-1' } }],
      extensions: { cost: cost(3, null, 1, 10, 0.01) },
    });
    expectRateLimit(refused, started, 1, 900);
    expect(await platformCalls()).toBe(0);
  }, 20_000);

  it('refuses a read needing more than the whole burst with COST_EXCEEDS_BURST and no platform call', async () => {
    await resetPlatformCalls();
    // `last` without `before` on LinX walks the list to its end: 10 000 records, 100 platform pages and the one it starts in.
    // Without a token: a caller keyed by its address, whose bucket is still full (it is refused all the same).
    const answer = await post(slow, undefined, 'query Walk($filter: LinxBatchFilter!) { linxBatches(filter: $filter, last: 5) { totalCount } }', { filter: template }, { 'x-request-id': 'budget-too-big-1' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      errors: [{
        message: "Query needs about 101 platform calls, more than a caller's whole budget of 10: ask for fewer rows or fields",
        extensions: { code: 'COST_EXCEEDS_BURST', limit: 'RATE_LIMIT_BURST', max: 10, requestId: 'budget-too-big-1' },
      }],
      extensions: { cost: cost(101, null, 10, 10, 0.01) },
    });
    expect(answer.headers.get('retry-after')).toBeNull();
    expect(await platformCalls()).toBe(0);
  });

  it('gives back what the estimate over-charged: two fields reading the same page cost one call', async () => {
    const globex = sandbox.tokens.find((t) => t.businessAccountName.toLowerCase().includes('globex'))!.token;
    const answer = await post(slow, `Bearer ${globex}`, '{ a: exceptions(first: 1) { totalCount } b: exceptions(first: 1) { totalCount } }');
    // Two fields, one GET: identical reads of one request are one call.
    expect(answer.body.extensions).toEqual({ cost: cost(2, 1, 9, 10, 0.01) });
  });
});

describe('one budget per token, however the header spells it', () => {
  it('shares one budget between four spellings, and answers the odd ones', async () => {
    const { origin } = await startGateway({ RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '2' });
    const spellings = [`bearer ${acme}`, `BEARER ${acme}`, `BeArEr  ${acme}`, `Bearer ${acme}`];
    const answers = [];
    for (const authorization of spellings) answers.push(await post(origin, authorization, ONE_CALL));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429, 429]);
    expect(answers[0]!.body.data).toEqual({ exceptions: { totalCount: 300 } });
    expect(answers[1]!.body.data).toEqual({ exceptions: { totalCount: 300 } });
  }, 40_000);

  it('refuses a header that is not a bearer token before any platform call', async () => {
    const { origin } = await startGateway({});
    await resetPlatformCalls();
    const answer = await post(origin, `Basic ${acme}`, ONE_CALL);
    expect(answer.body.data).toEqual({ exceptions: null });
    expect(answer.body.errors?.map((error) => error.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    expect(await platformCalls()).toBe(0);
  }, 40_000);
});

describe('made-up tokens', () => {
  const SIX_LISTS = `query Six($filter: LinxBatchFilter!) {
    a: exceptions(first: 1) { totalCount } b: exceptions(first: 2) { totalCount } c: exceptions(first: 3) { totalCount }
    d: linxBatches(filter: $filter, first: 1) { totalCount } e: linxBatches(filter: $filter, first: 2) { totalCount } f: exceptions(first: 4) { totalCount }
  }`;

  it('cost the platform one refused call per request, and none once the token is known refused', async () => {
    const { origin } = await startGateway({});
    await resetPlatformCalls();
    const answer = await post(origin, 'Bearer made-up-token-0001', SIX_LISTS, { filter: template });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ a: null, b: null, c: null, d: null, e: null, f: null });
    expect(answer.body.errors?.map((error) => error.extensions?.code)).toEqual(Array<string>(6).fill('UNAUTHENTICATED'));
    expect(await platformCalls()).toBe(1);
    const again = await post(origin, 'bearer  made-up-token-0001', SIX_LISTS, { filter: template });
    expect(again.body.errors?.map((error) => error.extensions?.code)).toEqual(Array<string>(6).fill('UNAUTHENTICATED'));
    expect(await platformCalls()).toBe(1);
  }, 40_000);

  it('are limited per client address, forged X-Forwarded-For ignored, while a token already accepted from it keeps being answered', async () => {
    const { origin } = await startGateway({ AUTH_FAILURE_LIMIT_PER_MINUTE: '30', AUTH_FAILURE_LIMIT_BURST: '10' });
    // The token is answered (accepted) once before the flood.
    expect((await post(origin, `Bearer ${acme}`, ONE_CALL)).body.data).toEqual({ exceptions: { totalCount: 300 } });
    await resetPlatformCalls();
    const started = Date.now();
    const statuses: number[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => post(origin, `Bearer made-up-${batch}-${i}-${Math.random()}`, '{ a: exceptions(first: 1) { totalCount } b: exceptions(first: 2) { totalCount } }', {}, { 'x-forwarded-for': `203.0.113.${batch * 30 + i}` })),
      );
      statuses.push(...answers.map((answer) => answer.status));
    }
    const seconds = (Date.now() - started) / 1000;
    const calls = await platformCalls();
    // The burst, plus what refilled at 30 a minute while the flood ran.
    expect(calls).toBeLessThanOrEqual(10 + Math.ceil(seconds / 2));
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(300 - 10 - Math.ceil(seconds / 2));
    const refused = await post(origin, 'Bearer made-up-final', ONE_CALL, {}, { 'x-request-id': 'auth-flood-1' });
    expect(refused.status).toBe(429);
    expect(refused.body.errors?.[0]?.extensions).toEqual({ code: 'RATE_LIMITED', limit: 'AUTH_FAILURE_LIMIT_PER_MINUTE', requestId: 'auth-flood-1' });
    expect((await post(origin, `Bearer ${acme}`, ONE_CALL)).body.data).toEqual({ exceptions: { totalCount: 300 } });
  }, 60_000);

  it('are charged to the address a trusted proxy names', async () => {
    const { origin } = await startGateway({ TRUSTED_PROXIES: '127.0.0.1', AUTH_FAILURE_LIMIT_PER_MINUTE: '1', AUTH_FAILURE_LIMIT_BURST: '2' });
    const from = (address: string, n: number) => post(origin, `Bearer made-up-proxy-${address}-${n}`, ONE_CALL, {}, { 'x-forwarded-for': `198.51.100.7, ${address}` });
    const first = [await from('192.0.2.1', 1), await from('192.0.2.1', 2), await from('192.0.2.1', 3)];
    expect(first.map((answer) => answer.status)).toEqual([200, 200, 429]);
    // Another client behind the same proxy has its own budget.
    expect((await from('192.0.2.2', 1)).status).toBe(200);
  }, 40_000);
});

const describeRedis = hasRedisServer || process.env.CI ? describe : describe.skip;

describeRedis('budgets in Redis', () => {
  let budgets: RedisServer;
  let queries: RedisServer;
  let origin: string;
  let gateway: GatewayProcess;
  beforeAll(async () => {
    [budgets, queries] = await Promise.all([startRedisServer(['--maxmemory-policy', 'noeviction']), startRedisServer(['--maxmemory', '2mb', '--maxmemory-policy', 'allkeys-lru'])]);
    // A refill of one call per 100 s: a spent bucket stays in Redis (its key expires once it is
    // full again) however long the tests take, and every number is exact.
    ({ origin, process: gateway } = await startGateway({
      RATE_LIMIT_REDIS_URL: budgets.url,
      REDIS_URL: queries.url,
      RATE_LIMIT_PER_SECOND: '0.01',
      RATE_LIMIT_BURST: '10',
      RATE_LIMIT_STORE_TIMEOUT_MS: '100',
      ...INSPECTABLE,
    }));
  }, 40_000);
  afterAll(async () => {
    await Promise.all([budgets?.stop(), queries?.stop()]);
  });

  it('keeps a spent budget while persisted-query registrations fill the other Redis, and no token in Redis', async () => {
    const token = `Bearer ${acme}`;
    for (let i = 0; i < 10; i++) expect((await post(origin, token, ONE_CALL)).status).toBe(200);
    expect((await post(origin, token, ONE_CALL)).status).toBe(429);
    const client = createClient({ url: budgets.url });
    await client.connect();
    try {
      const tokenKey = (await client.keys('gateway-budget:platform-calls:token:*'))[0]!;
      const spentState = await client.get(tokenKey);
      // 400 registrations of about 50 kB each, under made-up tokens: 20 MB into a 2 MB Redis.
      const padding = ` ${'#'.repeat(50_000)}\n`;
      for (let i = 0; i < 400; i += 20) {
        await Promise.all(
          Array.from({ length: 20 }, async (_, j) => {
            const query = `query Pq${i + j} { __typename }${padding}`;
            const hash = createHash('sha256').update(query).digest('hex');
            await fetch(`${origin}/graphql`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ query, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }),
            }).then((response) => response.arrayBuffer());
          }),
        );
      }
      // The spent bucket is still there, untouched: the flood took however long it took, and the
      // bucket's stored time is what a later request is measured against.
      expect(await client.get(tokenKey)).toBe(spentState);
      expect(spentState).not.toBeNull();
      const keys = (await client.keys('*')).sort();
      // The registrations carried no token: their address paid for them.
      expect(keys).toEqual(['gateway-budget:platform-calls:address:127.0.0.1', expect.stringMatching(/^gateway-budget:platform-calls:token:[0-9a-f]{32}$/)]);
      expect(keys[1]).not.toContain(acme);
    } finally {
      client.destroy();
    }
  }, 60_000);

  it('counts in memory while Redis is frozen, with flat memory, and never counts a request a second time when it wakes', async () => {
    const load = `Bearer ${sandbox.tokens.find((t) => t.businessAccountName.toLowerCase().includes('globex'))!.token}`;
    const client = createClient({ url: budgets.url });
    // The test's own connection sees the freeze too; its errors are not the gateway's.
    client.on('error', () => undefined);
    await client.connect();
    // Closed however the test ends: a connection left open would keep reconnecting once Redis is stopped.
    try {
      const addressKey = 'gateway-budget:platform-calls:address:127.0.0.1';
      const addressBefore = await client.get(addressKey);
      const held: number[] = [];
      budgets.child.kill('SIGSTOP');
      let stop = false;
      let answered = 0;
      const loops: Promise<void>[] = [];
      try {
        for (let c = 0; c < 16; c++) {
          loops.push(
            (async () => {
              while (!stop) {
                await post(origin, undefined, '{ __typename }', {}, { 'x-forwarded-for': 'ignored' }).catch(() => undefined);
                answered++;
              }
            })(),
          );
        }
        await until('2 000 requests answered (warm)', () => (answered >= 2_000 ? true : undefined), 60_000);
        // A caller spends 2 while Redis is frozen: counted in memory only.
        const spent = [await post(origin, load, ONE_CALL), await post(origin, load, ONE_CALL)];
        expect(spent.map((answer) => answer.body.extensions?.cost)).toEqual([cost(1, 1, 9, 10, 0.01), cost(1, 1, 8, 10, 0.01)]);
        // Ten times as many requests again, each counted in memory, however long they take here, in two
        // halves: what the process holds after each (once collected) is read while the load goes on.
        for (const half of ['first', 'second']) {
          const target = answered + 10_000;
          await until(`the ${half} 10 000 requests answered`, () => (answered >= target ? true : undefined), 150_000);
          held.push(await liveMemory(gateway));
        }
      } finally {
        stop = true;
        await Promise.all(loops);
        budgets.child.kill('SIGCONT');
      }
      // Flat memory: the second half of the load keeps no more than the first had left. The first half
      // absorbs what fills once (caches, compiled code); a leak grows in both. Measured here: 0.4 MB
      // over the second half, and 4.9 MB with 500 bytes kept per request.
      expect(held[1]! - held[0]!).toBeLessThan(3 * 1024 * 1024);
      // Redis is used again once a probe is answered: a third caller's spend then lands there (a token
      // the platform does not know still has its bucket charged for the call it makes).
      const third = 'token-after-the-freeze';
      const thirdKey = `gateway-budget:platform-calls:token:${tokenKey(third)}`;
      await until('the gateway counts in Redis again', async () => {
        await post(origin, `Bearer ${third}`, ONE_CALL);
        return (await client.exists(thirdKey)) === 1 ? true : undefined;
      }, 10_000, 100);
      // Beside acme's bucket (spent by the test before, when it runs) only the third caller's: globex's
      // requests were counted in memory alone.
      const acmeKey = `gateway-budget:platform-calls:token:${tokenKey(acme)}`;
      expect((await client.keys('gateway-budget:platform-calls:token:*')).filter((key) => key !== acmeKey)).toEqual([thirdKey]);
      // The load's first commands reached the frozen Redis before it was given up on; they ran when it woke, past their deadline, and changed nothing.
      expect(await client.get(addressKey)).toBe(addressBefore);
    } finally {
      client.destroy();
    }
  }, 240_000);
});
