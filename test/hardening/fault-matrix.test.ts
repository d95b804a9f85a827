import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Fault } from '../../sandbox/index.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { accountOf, isoInstant, sortRecords } from '../support/expected.ts';
import { watchUnhandledRejections, type RejectionWatch } from './support/process-probe.ts';
import { sleep } from '../support/time.ts';

// Short timeouts so a hang costs well under a second; a breaker that never opens, so every case meets the platform.
const ENV = {
  UPSTREAM_CONNECT_TIMEOUT_MS: '300',
  UPSTREAM_RESPONSE_TIMEOUT_MS: '300',
  UPSTREAM_REQUEST_TIMEOUT_MS: '600',
  UPSTREAM_RETRY_BASE_MS: '5',
  UPSTREAM_BREAKER_THRESHOLD: '1000',
};

const QUERY = `query TwoAreas($account: ID!) {
  exceptions(first: 5, orderBy: [{ field: CREATED_AT, direction: DESC }]) { totalCount nodes { id businessAccountId status } }
  documentAcceptances(financialAccountId: $account, first: 5, orderBy: [{ field: CREATED_AT, direction: DESC }]) { totalCount nodes { id businessAccountId accepted } }
}`;

type Area = 'exceptions' | 'documentAcceptances';
const ROUTE: Record<Area, 'exceptions' | 'acceptances'> = { exceptions: 'exceptions', documentAcceptances: 'acceptances' };

interface Case {
  name: string;
  fault: Fault;
  code: 'UPSTREAM_ERROR' | 'UPSTREAM_TIMEOUT' | 'UNAUTHENTICATED';
  /** HTTP status the platform answered, when it answered one. */
  upstreamStatus?: number;
  /** Calls to the faulty route: 1, or 3 when the failure is retried (two retries). */
  attempts: number;
  /** What ended the call, as the client is told: a hang or a trickle ends at its per-attempt timer, not at the request deadline. */
  message: string;
}

const CASES: Case[] = [
  { name: '500', fault: { status: 500 }, code: 'UPSTREAM_ERROR', upstreamStatus: 500, attempts: 1, message: 'The platform failed to answer (HTTP 500)' },
  { name: '502', fault: { status: 502 }, code: 'UPSTREAM_ERROR', upstreamStatus: 502, attempts: 3, message: 'The platform failed to answer (HTTP 502)' },
  { name: '503', fault: { status: 503 }, code: 'UPSTREAM_ERROR', upstreamStatus: 503, attempts: 3, message: 'The platform failed to answer (HTTP 503)' },
  { name: '504', fault: { status: 504 }, code: 'UPSTREAM_ERROR', upstreamStatus: 504, attempts: 3, message: 'The platform failed to answer (HTTP 504)' },
  { name: 'hang (no answer)', fault: { hang: true }, code: 'UPSTREAM_TIMEOUT', attempts: 3, message: 'The platform did not answer in time (response timeout)' },
  { name: 'connection reset', fault: { reset: true }, code: 'UPSTREAM_ERROR', attempts: 3, message: 'The platform could not be reached (ECONNRESET)' },
  { name: 'HTML body with 200', fault: { body: 'html' }, code: 'UPSTREAM_ERROR', attempts: 1, message: 'The platform answered with an unusable body (malformed JSON)' },
  { name: 'HTML error page with 502', fault: { status: 502, body: 'html' }, code: 'UPSTREAM_ERROR', upstreamStatus: 502, attempts: 3, message: 'The platform failed to answer (HTTP 502)' },
  { name: 'malformed JSON', fault: { body: 'malformed' }, code: 'UPSTREAM_ERROR', attempts: 1, message: 'The platform answered with an unusable body (malformed JSON)' },
  { name: 'empty 401', fault: { status: 401, body: 'empty' }, code: 'UNAUTHENTICATED', upstreamStatus: 401, attempts: 1, message: 'The platform rejected the access token (HTTP 401)' },
  { name: 'slow trickled body', fault: { trickleMs: 3_000 }, code: 'UPSTREAM_TIMEOUT', attempts: 3, message: 'The platform did not answer in time (request timeout)' },
];

let stack: Stack;
let rejections: RejectionWatch;
let account: string;
let expected: Record<Area, { totalCount: number; nodes: Record<string, unknown>[] }>;

beforeAll(async () => {
  rejections = watchUnhandledRejections();
  stack = await startStack(ENV);
  const businessAccountId = accountOf(stack.sandbox, stack.acme);
  const exceptions = stack.sandbox.store.exceptions(businessAccountId);
  account = stack.sandbox.store.financialAccounts(businessAccountId)[0]!;
  const acceptances = stack.sandbox.store.acceptances(businessAccountId).filter((a) => a.scopes.FINANCIAL_ACCOUNT_ID === account);
  const newestFirst = <T extends { id: string; createdAt: string }>(records: readonly T[]) => sortRecords(records, [[(r) => Date.parse(isoInstant(r.createdAt)!), 'DESC']]).slice(0, 5);
  expected = {
    exceptions: {
      totalCount: exceptions.length,
      nodes: newestFirst(exceptions).map((e) => ({ id: e.id, businessAccountId, status: e.status })),
    },
    documentAcceptances: {
      totalCount: acceptances.length,
      nodes: newestFirst(acceptances).map((a) => ({ id: a.id, businessAccountId, accepted: a.accepted })),
    },
  };
  expect(acceptances.length).toBeGreaterThan(0);
});

afterEach(() => {
  stack.sandbox.faults.clear();
});

afterAll(async () => {
  await stack?.close();
  rejections.stop();
  expect(rejections.reasons).toEqual([]);
});

/** Sockets are released on their 'close' event, a moment after the response: waits for that, within a bound. */
async function activeSocketsSettle(): Promise<number> {
  const deadline = Date.now() + 1_000;
  while (stack.gateway.http.socketCounts().active > 0 && Date.now() < deadline) await sleep(10);
  return stack.gateway.http.socketCounts().active;
}

describe('a clean run', () => {
  it('answers both areas exactly', async () => {
    const response = await stack.gql(QUERY, { account });
    expect(response.body).toEqual({ data: expected });
    expect(await activeSocketsSettle()).toBe(0);
  });
});

describe.each(['exceptions', 'documentAcceptances'] as const)('fault on %s, the other area healthy', (faulty) => {
  const healthy: Area = faulty === 'exceptions' ? 'documentAcceptances' : 'exceptions';

  it.each(CASES)('$name', async ({ fault, code, upstreamStatus, attempts, message }) => {
    stack.sandbox.resetRequests();
    stack.sandbox.faults.set(ROUTE[faulty], fault);
    const response = await stack.gql<Record<Area, unknown>>(QUERY, { account });

    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ [healthy]: expected[healthy], [faulty]: null });
    expect(response.body.errors).toHaveLength(1);
    const [error] = response.body.errors!;
    expect(error!.path).toEqual([faulty]);
    expect(error!.message).toBe(message);
    expect(error!.extensions).toMatchObject({ code, requestId: expect.any(String) });
    expect((error!.extensions!.upstream as { status?: number } | undefined)?.status).toBe(upstreamStatus);
    expect(stack.platformCalls().filter((c) => c.route === ROUTE[faulty])).toHaveLength(attempts);
    expect(stack.platformCalls().filter((c) => c.route === ROUTE[healthy])).toHaveLength(1);

    expect(await activeSocketsSettle()).toBe(0);
    stack.sandbox.faults.clear();
    expect((await fetch(`${stack.gateway.url}/healthz`)).status).toBe(200);
    const next = await stack.gql(QUERY, { account });
    expect(next.body).toEqual({ data: expected });
    expect(rejections.reasons).toEqual([]);
  });
});
