import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { postJson } from '../support/graphql-client.ts';

// No platform call without budget, on the real process (`node dist/main.js`) over the sandbox, whose
// request log counts what the platform received and whose faults make it fail on purpose.

let sandbox: Sandbox;
let acme: string;
let globex: string;
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  const token = (name: string) => sandbox.tokens.find((t) => t.businessAccountName.toLowerCase().includes(name))!.token;
  acme = token('acme');
  globex = token('globex');
});
beforeEach(() => sandbox.faults.clear());
afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.stop()));
  await sandbox.close();
});

async function startGateway(env: Record<string, string>): Promise<string> {
  const started = await startProductionGateway({ UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'warn', ADMIN_PORT: '0', ...env });
  gateways.push(started.process);
  return started.origin;
}

interface Body {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
  extensions?: { cost?: { requestedQueryCost: number; actualQueryCost: number | null; throttleStatus?: { currentlyAvailable: number } } };
}

async function post(origin: string, token: string, body: unknown): Promise<{ status: number; body: Body | Body[] }> {
  const response = await postJson(`${origin}/graphql`, body, { authorization: `Bearer ${token}` });
  return { status: response.status, body: (await response.json()) as Body | Body[] };
}

async function platformCalls(): Promise<number> {
  return ((await (await fetch(`${sandbox.url}/__sandbox/requests`)).json()) as { total: number }).total;
}

async function resetPlatformCalls(): Promise<void> {
  await (await fetch(`${sandbox.url}/__sandbox/requests`, { method: 'DELETE' })).arrayBuffer();
}

const ONE_CALL = '{ exceptions(first: 1) { totalCount } }';

describe('retries draw from the budget like calls', () => {
  // A refill of one call per 100 s: nothing refills while a test runs, so every number is exact.
  const env = { RATE_LIMIT_PER_SECOND: '0.01', UPSTREAM_RETRY_LIMIT: '2', UPSTREAM_RETRY_BASE_MS: '1' };

  it('an operation whose read is retried twice is charged the three attempts the platform received', async () => {
    const origin = await startGateway({ ...env, RATE_LIMIT_BURST: '3' });
    sandbox.faults.set('exceptions', { status: 503, times: 2 });
    await resetPlatformCalls();
    const answer = await post(origin, acme, { query: ONE_CALL });
    expect(answer).toEqual({
      status: 200,
      body: { data: { exceptions: { totalCount: 300 } }, extensions: { cost: { requestedQueryCost: 1, actualQueryCost: 3, throttleStatus: { maximumAvailable: 3, currentlyAvailable: 0, restoreRate: 0.01 } } } },
    });
    expect(await platformCalls()).toBe(3);
    // The bucket is spent: the next operation is refused before any call.
    expect((await post(origin, acme, { query: ONE_CALL })).status).toBe(429);
    expect(await platformCalls()).toBe(3);
  }, 40_000);

  it('a retry the bucket cannot pay is not sent: the platform\'s last answer stands', async () => {
    const origin = await startGateway({ ...env, RATE_LIMIT_BURST: '2' });
    sandbox.faults.set('exceptions', { status: 503, times: 5 });
    await resetPlatformCalls();
    const answer = await post(origin, acme, { query: ONE_CALL });
    expect(answer.status).toBe(200);
    const body = answer.body as Body;
    expect(body.data).toEqual({ exceptions: null });
    expect(body.errors?.map((error) => [error.message, error.extensions?.code])).toEqual([['The platform failed to answer (HTTP 503)', 'UPSTREAM_ERROR']]);
    expect(body.extensions?.cost).toEqual({ requestedQueryCost: 1, actualQueryCost: 2, throttleStatus: { maximumAvailable: 2, currentlyAvailable: 0, restoreRate: 0.01 } });
    expect(await platformCalls()).toBe(2);
  }, 40_000);
});

describe('each operation of a batch', () => {
  it('is reserved, drawn and charged on its own: its actualQueryCost is its own calls', async () => {
    const origin = await startGateway({ RATE_LIMIT_PER_SECOND: '0.01', RATE_LIMIT_BURST: '20', ALLOW_BATCHED_REQUESTS: 'true' });
    await resetPlatformCalls();
    const answer = await post(origin, globex, [
      { query: '{ a: exceptions(first: 1) { totalCount } b: exceptions(first: 2) { totalCount } c: exceptions(first: 3) { totalCount } }' },
      { query: '{ d: exceptions(first: 4) { totalCount } e: exceptions(first: 5) { totalCount } }' },
    ]);
    expect(answer.status).toBe(200);
    const costs = (answer.body as Body[]).map((body) => [body.extensions?.cost?.requestedQueryCost, body.extensions?.cost?.actualQueryCost]);
    expect(costs).toEqual([[3, 3], [2, 2]]);
    expect(await platformCalls()).toBe(5);
  }, 40_000);
});

describe('racing requests', () => {
  it('8 concurrent union reads at 1/s, burst 20: the platform feels no more than the burst, the refill and the draws in flight', async () => {
    const origin = await startGateway({ RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '20' });
    await resetPlatformCalls();
    const query = `{ exceptions(first: 30) { nodes { entity { ... on FinancialAccount {
      a1: documentAcceptances(first: 1) { totalCount } a2: documentAcceptances(first: 2) { totalCount } a3: documentAcceptances(first: 3) { totalCount }
    } } } } }`;
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(origin, acme, { query })));
    const seconds = (performance.now() - started) / 1000;
    // Priced at its dearest member (1 + 30 × 3 calls), more than the burst: refused whole, before any call.
    expect(answers.map((answer) => [answer.status, (answer.body as Body).errors?.[0]?.extensions?.code])).toEqual(Array.from({ length: 8 }, () => [400, 'COST_EXCEEDS_BURST']));
    expect(await platformCalls()).toBeLessThanOrEqual(20 + Math.ceil(seconds) + 3);
  }, 40_000);
});
