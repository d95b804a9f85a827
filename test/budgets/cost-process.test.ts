import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { postJson } from '../support/graphql-client.ts';

// What each operation costs the platform, in every answer of the real process with no budget set
// (no RATE_LIMIT_* setting): `extensions.cost` holds the estimate and the calls the sandbox
// received for that operation, retries included; no throttleStatus and no RateLimit headers.

let sandbox: Sandbox;
let acme: string;
let origin: string;
let gateway: GatewayProcess;

beforeAll(async () => {
  sandbox = await startSandbox();
  acme = sandbox.tokens.find((t) => t.businessAccountName.toLowerCase().includes('acme'))!.token;
  ({ origin, process: gateway } = await startProductionGateway({ UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'warn', ADMIN_PORT: '0', ALLOW_BATCHED_REQUESTS: 'true' }));
}, 40_000);
beforeEach(async () => {
  sandbox.faults.clear();
  await (await fetch(`${sandbox.url}/__sandbox/requests`, { method: 'DELETE' })).arrayBuffer();
});
afterAll(async () => {
  await gateway?.stop();
  await sandbox?.close();
});

async function platformCalls(): Promise<number> {
  return ((await (await fetch(`${sandbox.url}/__sandbox/requests`)).json()) as { total: number }).total;
}

/** The status, the budget's headers (none expected) and the whole JSON body of the gateway's answer. */
async function post(body: unknown, token: string, requestId: string): Promise<{ status: number; rateLimit: (string | null)[]; body: unknown }> {
  const response = await postJson(`${origin}/graphql`, body, { authorization: `Bearer ${token}`, 'x-request-id': requestId });
  return { status: response.status, rateLimit: [response.headers.get('ratelimit'), response.headers.get('ratelimit-policy')], body: await response.json() };
}

const cost = (requestedQueryCost: number, actualQueryCost: number) => ({ cost: { requestedQueryCost, actualQueryCost } });
const ONE_CALL = '{ exceptions(first: 1) { totalCount } }';
const TWO_CALLS = '{ a: exceptions(first: 2) { totalCount } b: exceptions(first: 3) { totalCount } }';

describe('extensions.cost without a budget', () => {
  it('a query of one platform call shows its estimate and the one call the platform received', async () => {
    expect(await post({ query: ONE_CALL }, acme, 'one-call')).toEqual({ status: 200, rateLimit: [null, null], body: { data: { exceptions: { totalCount: 300 } }, extensions: cost(1, 1) } });
    expect(await platformCalls()).toBe(1);
  });

  it('each operation of a batch shows its own cost', async () => {
    const answer = await post([{ query: ONE_CALL }, { query: '{ __typename }' }, { query: TWO_CALLS }], acme, 'batch');
    expect(answer).toEqual({
      status: 200,
      rateLimit: [null, null],
      body: [
        { data: { exceptions: { totalCount: 300 } }, extensions: cost(1, 1) },
        { data: { __typename: 'Query' }, extensions: cost(0, 0) },
        { data: { a: { totalCount: 300 }, b: { totalCount: 300 } }, extensions: cost(2, 2) },
      ],
    });
    expect(await platformCalls()).toBe(3);
  });

  it('counts every attempt: a read answered 503 twice, then 200, cost three calls', async () => {
    sandbox.faults.set('exceptions', { status: 503, times: 2 });
    expect((await post({ query: ONE_CALL }, acme, 'retried')).body).toEqual({ data: { exceptions: { totalCount: 300 } }, extensions: cost(1, 3) });
    expect(await platformCalls()).toBe(3);
  });

  it('a token the platform refused: its first operation cost the refused call, the next one nothing, as it was not sent', async () => {
    type Refused = { data: unknown; errors: { message: string; extensions: { code: string } }[]; extensions: unknown };
    // The platform's 401 carries a trace id of its own: the rest of the answer is compared exactly.
    const seen = async (requestId: string) => {
      const answer = await post({ query: ONE_CALL }, 'made-up-cost-token', requestId);
      const body = answer.body as Refused;
      return [answer.status, answer.rateLimit, body.data, body.errors.map((error) => [error.message, error.extensions.code]), body.extensions];
    };
    expect(await seen('refused-1')).toEqual([200, [null, null], { exceptions: null }, [['The platform rejected the access token (HTTP 401): Invalid or unknown access token', 'UNAUTHENTICATED']], cost(1, 1)]);
    expect(await seen('refused-2')).toEqual([
      200,
      [null, null],
      { exceptions: null },
      [['The platform rejected the access token (not sent: the platform refused this token moments ago)', 'UNAUTHENTICATED']],
      cost(1, 0),
    ]);
    expect(await platformCalls()).toBe(1);
  });

  it('a document refused before it runs made no call and was not estimated: its answer carries no cost', async () => {
    const invalid = await post({ query: '{ exceptions(first: 1) { nope } }' }, acme, 'invalid');
    const unknownOperation = await post({ query: 'query A { exceptions(first: 1) { totalCount } }', operationName: 'B' }, acme, 'unknown-operation');
    expect([invalid, unknownOperation].map((answer) => [answer.status, (answer.body as { extensions?: unknown }).extensions])).toEqual([
      [400, undefined],
      [400, undefined],
    ]);
    expect(await platformCalls()).toBe(0);
  });
});
