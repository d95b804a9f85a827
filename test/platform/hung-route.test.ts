import { afterEach, describe, expect, it } from '@jest/globals';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { bearer, graphqlClient, type GraphQLClient } from '../support/graphql-client.ts';
import { sleep } from '../support/time.ts';

// The real process (`NODE_ENV=production node dist/main.js`) over its embedded sandbox, with the
// sandbox's exceptions route hanging: what a hung route may and may not do to the gateway.

const TOKEN = 'demo-token-acme';

let gateway: GatewayProcess | undefined;

afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
});

interface Running {
  url: string;
  /** The admin listener, where probes go. */
  admin: string;
  sandbox: string;
  /** The caller's client of the gateway's `/graphql`. */
  gql: GraphQLClient;
}

async function start(env: Record<string, string>): Promise<Running> {
  const started = await startProductionGateway({ LOG_LEVEL: 'warn', ...env });
  gateway = started.process;
  const url = started.origin;
  const sandbox = started.platform!;
  const fault = await fetch(`${sandbox}/__sandbox/faults`, { method: 'POST', body: JSON.stringify({ route: 'exceptions', fault: { hang: true } }) });
  expect(fault.status).toBe(200);
  return { url, admin: started.admin!, sandbox, gql: graphqlClient(`${url}/graphql`, bearer(TOKEN)) };
}

/** The headers of a request with this id. */
const withId = (requestId: string) => ({ 'x-request-id': requestId });

async function exceptionCalls(sandbox: string): Promise<number> {
  const summary = (await (await fetch(`${sandbox}/__sandbox/requests`)).json()) as { byRoute: Record<string, number> };
  return summary.byRoute.exceptions ?? 0;
}

/** Polls an asynchronous condition (every 20 ms, for at most 10 s). */
async function until(condition: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`condition not met within 10 s: ${condition.toString()}`);
    await sleep(20);
  }
}

/** A document of the demo account, and what the platform itself answers for it. */
async function someDocument(sandbox: string): Promise<{ id: string; name: string }> {
  const fixtures = (await (await fetch(`${sandbox}/__sandbox/fixtures`)).json()) as { businessAccounts: { token: string; documents: { id: string }[] }[] };
  const { id } = fixtures.businessAccounts.find((account) => account.token === TOKEN)!.documents[0]!;
  const record = (await (await fetch(`${sandbox}/v1/documents/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { id: string; name: string };
  return { id: record.id, name: record.name };
}

describe('a hung platform route', () => {
  it('cannot take the sockets of the other routes: a document is answered while exceptions calls hang', async () => {
    // A pool of 4 sockets; calls end only at the request deadline, so a hung call holds its socket
    // until its whole request is answered.
    const running = await start({
      UPSTREAM_MAX_SOCKETS: '4',
      UPSTREAM_RETRY_LIMIT: '0',
      UPSTREAM_RESPONSE_TIMEOUT_MS: '60000',
      UPSTREAM_REQUEST_TIMEOUT_MS: '60000',
      REQUEST_DEADLINE_MS: '5000',
    });
    const document = await someDocument(running.sandbox);
    // The token accepted first: an unknown token's calls would go one at a time behind a probe,
    // which is the token gate's behaviour (token-verdicts.test.ts), not the socket pool's.
    expect((await running.gql(`{ document(id: "${document.id}") { id } }`, undefined, withId('warm-1'))).body).toEqual({ data: { document: { id: document.id } } });

    // Four different exceptions calls, all made in the same execution of one request: as many as the pool.
    let exceptionsAnswered = false;
    const exceptions = running.gql(`{ ${[1, 2, 3, 4].map((n) => `e${n}: exceptions(first: ${n}) { totalCount }`).join(' ')} }`, undefined, withId('hung-1')).then((answer) => {
      exceptionsAnswered = true;
      return answer.body;
    });
    // Once two have reached the platform (the route's share of the pool), all four have been handed to it.
    await until(async () => (await exceptionCalls(running.sandbox)) >= 2);

    const answer = await running.gql(`{ document(id: "${document.id}") { id name } }`, undefined, withId('doc-1'));

    expect(answer.body).toEqual({ data: { document } });
    // Answered while every exceptions call was still hanging, not once their deadline freed a socket.
    expect(exceptionsAnswered).toBe(false);
    // The route's bound: half the pool in flight, the rest of its calls waited for a slot.
    expect(await exceptionCalls(running.sandbox)).toBe(2);
    const hung = await exceptions;
    expect(hung.data).toEqual({ e1: null, e2: null, e3: null, e4: null });
    expect(hung.errors!.map((e) => [e.path, e.extensions!.code, e.message])).toEqual(
      [1, 2, 3, 4].map((n) => [[`e${n}`], 'UPSTREAM_TIMEOUT', 'The platform did not answer in time (request deadline of 5000 ms)']),
    );
  }, 60_000);

  it('opens its breaker from timeouts, then fails fast without reaching the platform', async () => {
    // Three attempts with their backoff (300 + 50–100 + 300 + 100–200 + 300 ms) outlast the deadline:
    // every call ends cut by it, so only its timed-out attempts can tell the breaker anything.
    const running = await start({
      UPSTREAM_RESPONSE_TIMEOUT_MS: '300',
      REQUEST_DEADLINE_MS: '1000',
      UPSTREAM_BREAKER_THRESHOLD: '3',
      UPSTREAM_BREAKER_COOLDOWN_MS: '600000',
    });
    const document = await someDocument(running.sandbox);
    // The token accepted first: an unknown token's calls would wait on one probe, one more per
    // PROBE_PATIENCE_MS, and the breaker would hear of one timeout where it is to hear of four.
    expect((await running.gql(`{ document(id: "${document.id}") { id name } }`, undefined, withId('doc-1'))).body).toEqual({ data: { document } });

    const answers = await Promise.all([1, 2, 3, 4].map((n) => running.gql(`{ exceptions(first: ${n}) { totalCount } }`, undefined, withId(`timeout-${n}`))));

    expect(answers.map((answer) => answer.body)).toEqual(
      [1, 2, 3, 4].map((n) => ({
        data: { exceptions: null },
        errors: [
          {
            message: 'The platform did not answer in time (response timeout)',
            locations: [{ line: 1, column: 3 }],
            path: ['exceptions'],
            extensions: { code: 'UPSTREAM_TIMEOUT', requestId: `timeout-${n}` },
          },
        ],
      })),
    );
    // The first timeouts were retried while the breaker was still closed; none once it had opened.
    expect(await exceptionCalls(running.sandbox)).toBe(4 + 2);
    const ready = await fetch(`${running.admin}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready', breaker: 'open', upstream: 'reachable', routes: { exceptions: 'open' } }]);

    const fast = await running.gql('{ exceptions(first: 1) { totalCount } }', undefined, withId('fast-1'));
    expect(fast.body).toEqual({
      data: { exceptions: null },
      errors: [
        {
          message: 'The platform is failing; calls are paused for a short cool-down',
          locations: [{ line: 1, column: 3 }],
          path: ['exceptions'],
          extensions: { code: 'UPSTREAM_ERROR', requestId: 'fast-1' },
        },
      ],
    });
    expect(await exceptionCalls(running.sandbox)).toBe(4 + 2);
    // Only that route's breaker is open.
    expect((await running.gql(`{ document(id: "${document.id}") { id name } }`, undefined, withId('doc-2'))).body).toEqual({ data: { document } });
  }, 60_000);
});
