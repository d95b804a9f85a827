import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { postJson } from '../support/graphql-client.ts';

// Made-up tokens on the real process over a slow sandbox: neither hanging up nor a slow platform
// buys a caller more platform calls with tokens the platform never accepted. A 700 ms platform is
// slower than a refusal usually is, and faster than the token gate's patience (PROBE_PATIENCE_MS).

let sandbox: Sandbox;
const gateways: GatewayProcess[] = [];

beforeAll(async () => {
  sandbox = await startSandbox();
});
beforeEach(async () => {
  sandbox.faults.clear();
  await (await fetch(`${sandbox.url}/__sandbox/requests`, { method: 'DELETE' })).arrayBuffer();
});
afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.stop()));
  await sandbox.close();
});

async function startGateway(env: Record<string, string> = {}): Promise<string> {
  const started = await startProductionGateway({ UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'warn', ADMIN_PORT: '0', ...env });
  gateways.push(started.process);
  return started.origin;
}

async function platformCalls(): Promise<number> {
  return ((await (await fetch(`${sandbox.url}/__sandbox/requests`)).json()) as { total: number }).total;
}

describe('made-up tokens', () => {
  it('hanging up before the platform answers does not give the address its unit back', async () => {
    const origin = await startGateway({ AUTH_FAILURE_LIMIT_PER_MINUTE: '60', AUTH_FAILURE_LIMIT_BURST: '20' });
    sandbox.faults.set('*', { latencyMs: 300 });
    const started = performance.now();
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const controller = new AbortController();
          const timer = setTimeout(() => controller.abort(), 120);
          try {
            const response = await postJson(`${origin}/graphql`, { query: '{ exceptions(first: 1) { totalCount } }' }, { authorization: `Bearer made-up-${batch}-${i}` }, controller.signal);
            await response.arrayBuffer();
          } catch {
            // Abandoned: the point of the test.
          } finally {
            clearTimeout(timer);
          }
        }),
      );
    }
    const seconds = (performance.now() - started) / 1000;
    // The calls already sent arrive at the sandbox; the wait is for its log, not for time.
    const calls = await platformCalls();
    // The burst, one a second refilled while the flood ran, and the calls of requests in flight when a batch ended.
    expect(calls).toBeLessThanOrEqual(20 + Math.ceil(seconds) + 10);
  }, 60_000);

  it('20 concurrent requests with one made-up token: at most two calls', async () => {
    const origin = await startGateway();
    sandbox.faults.set('*', { latencyMs: 700 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const query = i % 2 === 0 ? '{ exceptions(first: 1) { totalCount } }' : '{ documentAcceptances(financialAccountId: "fa000000-0000-4000-8000-000000000001", first: 1) { totalCount } }';
        const response = await postJson(`${origin}/graphql`, { query }, { authorization: 'Bearer made-up-concurrent' });
        return ((await response.json()) as { errors: { extensions: { code: string } }[] }).errors.map((error) => error.extensions.code);
      }),
    );
    expect(answers).toEqual(Array.from({ length: 20 }, () => ['UNAUTHENTICATED']));
    expect(await platformCalls()).toBeLessThanOrEqual(2);
  }, 40_000);

  it('a made-up token with 12 list fields and the platform at 700 ms: one call, and the 11 others are never sent', async () => {
    const origin = await startGateway();
    sandbox.faults.set('*', { latencyMs: 700 });
    // Twelve different platform calls on two routes: none can join another's read.
    const fields = [1, 2, 3, 4, 5, 6].flatMap((n) => [`e${n}: exceptions(first: ${n}) { totalCount }`, `a${n}: documentAcceptances(financialAccountId: "fa000000-0000-4000-8000-000000000001", first: ${n}) { totalCount }`]);
    const response = await postJson(`${origin}/graphql`, { query: `{ ${fields.join(' ')} }` }, { authorization: 'Bearer made-up-twelve-fields' });
    const body = (await response.json()) as { errors: { message: string; extensions: { code: string } }[] };
    const notSent = 'The platform rejected the access token (not sent: the platform refused this token moments ago)';
    expect(body.errors.map((error) => error.extensions.code)).toEqual(Array.from({ length: 12 }, () => 'UNAUTHENTICATED'));
    expect(body.errors.filter((error) => error.message === notSent)).toHaveLength(11);
    expect(await platformCalls()).toBe(1);
  }, 40_000);
});
