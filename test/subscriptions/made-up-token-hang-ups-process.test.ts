import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import WebSocket from 'ws';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type ProductionGateway } from '../support/gateway-process.ts';
import { sleep } from '../support/time.ts';

// Made-up tokens on every transport of the real process, over a platform slow enough (1.5 s an
// answer) that a client can hang up after its platform call was sent and before it was answered.
// Each transport and way of leaving has a client address of its own (X-Forwarded-For behind a
// trusted proxy) with a refused-token allowance of 2 (AUTH_FAILURE_LIMIT_BURST) refilled one a
// minute, far slower than the test: whatever the transport, and whether the client waits for the
// platform's refusal or hangs up, the address's two first tokens reach the platform and the next
// two are refused before it, as queries' are.

const FEED = 'subscription { exceptionsChanged { cursor node { id } } }';
const LIST = 'query { exceptions(first: 1) { edges { cursor node { id } } } }';
const TRANSPORTS = ['query', 'sse', 'multipart', 'graphql-ws'] as const;
type Transport = (typeof TRANSPORTS)[number];
type Leave = 'waits' | 'hangs up';
/** What one attempt got: its platform call and the platform's refusal, its platform call and its client gone, or the address's 429 (4429) before any call. */
type Outcome = 'UNAUTHENTICATED' | 'hung up after its call' | 'refused by the address limit';

const ACCEPT: Record<Exclude<Transport, 'graphql-ws'>, string> = {
  query: 'application/json',
  sse: 'text/event-stream',
  multipart: 'multipart/mixed;subscriptionSpec="1.0"',
};

let sandbox: Sandbox;
let gateway: ProductionGateway;

beforeAll(async () => {
  sandbox = await startSandbox();
  gateway = await startProductionGateway({
    UPSTREAM_URL: sandbox.url,
    LOG_LEVEL: 'warn',
    TRUSTED_PROXIES: '127.0.0.1',
    AUTH_FAILURE_LIMIT_BURST: '2',
    AUTH_FAILURE_LIMIT_PER_MINUTE: '1',
    SUBSCRIPTION_POLL_MS: '250',
  });
  sandbox.faults.set('*', { latencyMs: 1_500 });
}, 60_000);
afterAll(async () => {
  await gateway?.process.stop();
  await sandbox?.close();
});

/** Resolves once the sandbox has received a call with `token` (it records a call as it arrives, before its latency); rejects after 20 s. */
async function platformReceived(token: string, gone: () => boolean): Promise<boolean> {
  for (let tries = 0; tries < 800; tries++) {
    if (sandbox.requests.some((call) => call.authorization === `Bearer ${token}`)) return true;
    if (gone()) return false;
    await sleep(25);
  }
  throw new Error(`no platform call with ${token} within 20 s`);
}

function classify(status: number, text: string): Outcome {
  if (status === 429 && text.includes('"limit":"AUTH_FAILURE_LIMIT_PER_MINUTE"')) return 'refused by the address limit';
  if (text.includes('"code":"UNAUTHENTICATED"')) return 'UNAUTHENTICATED';
  throw new Error(`unexpected answer: HTTP ${status} ${text.slice(0, 300)}`);
}

async function overHttp(transport: Exclude<Transport, 'graphql-ws'>, leave: Leave, token: string, from: string): Promise<Outcome> {
  const controller = new AbortController();
  const answer = fetch(`${gateway.origin}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT[transport], authorization: `Bearer ${token}`, 'x-forwarded-for': from },
    body: JSON.stringify({ query: transport === 'query' ? LIST : FEED }),
    signal: controller.signal,
  });
  if (leave === 'waits') {
    const response = await answer;
    return classify(response.status, await response.text());
  }
  // A refusal is answered at once; an admitted request's headers may come before its platform call (a stream's) or after it (a query's).
  let refused: Response | undefined;
  void answer.then((response) => void (response.status === 429 && (refused = response)), () => undefined);
  if (await platformReceived(token, () => refused !== undefined)) {
    controller.abort();
    await answer.then((response) => response.body?.cancel()).catch(() => undefined);
    return 'hung up after its call';
  }
  return classify(refused!.status, await refused!.text());
}

function overSocket(leave: Leave, token: string, from: string): Promise<Outcome> {
  const socket = new WebSocket(`${gateway.origin.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', { headers: { 'x-forwarded-for': from } });
  const messages: { type: string }[] = [];
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string };
    messages.push(message);
    if (message.type === 'connection_ack') socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: FEED } }));
    if (message.type === 'complete') socket.close(1000);
  });
  socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } })));
  const outcome = async (code: number): Promise<Outcome> => {
    if (code === 4429 && messages.length === 0) return 'refused by the address limit';
    const text = JSON.stringify(messages);
    if (code === 1000 && messages.length === 3 && text.includes('"code":"UNAUTHENTICATED"')) return 'UNAUTHENTICATED';
    throw new Error(`unexpected close ${code} after ${text.slice(0, 300)}`);
  };
  if (leave === 'waits') return closed.then(outcome);
  let closeCode: number | undefined;
  void closed.then((code) => (closeCode = code));
  return platformReceived(token, () => closeCode !== undefined).then(async (received) => {
    if (!received) return outcome(closeCode!);
    socket.terminate();
    await closed;
    return 'hung up after its call';
  });
}

describe('made-up tokens on every transport of the production process', () => {
  it('reach the platform no more than their address\'s refused-token allowance, whether the client waits or hangs up before the platform answers, exactly as queries do', async () => {
    const seen: Record<string, { outcomes: Outcome[]; platformCalls: number }> = {};
    let group = 0;
    for (const leave of ['hangs up', 'waits'] as const) {
      for (const transport of TRANSPORTS) {
        group += 1;
        const from = `192.0.2.${group}`;
        const tokens = Array.from({ length: 4 }, (_, n) => `made-up-${transport}-${leave.replace(' ', '-')}-${n}`);
        const outcomes: Outcome[] = [];
        // One after the other: each attempt has ended (answered, or its client gone) before the next leaves.
        for (const token of tokens) outcomes.push(transport === 'graphql-ws' ? await overSocket(leave, token, from) : await overHttp(transport, leave, token, from));
        const platformCalls = sandbox.requests.filter((call) => tokens.some((token) => call.authorization === `Bearer ${token}`)).length;
        seen[`${transport}, the client ${leave}`] = { outcomes, platformCalls };
      }
    }
    const allowance = (sent: Outcome) => ({ outcomes: [sent, sent, 'refused by the address limit', 'refused by the address limit'], platformCalls: 2 });
    expect(seen).toEqual({
      'query, the client hangs up': allowance('hung up after its call'),
      'sse, the client hangs up': allowance('hung up after its call'),
      'multipart, the client hangs up': allowance('hung up after its call'),
      'graphql-ws, the client hangs up': allowance('hung up after its call'),
      'query, the client waits': allowance('UNAUTHENTICATED'),
      'sse, the client waits': allowance('UNAUTHENTICATED'),
      'multipart, the client waits': allowance('UNAUTHENTICATED'),
      'graphql-ws, the client waits': allowance('UNAUTHENTICATED'),
    });
  }, 120_000);
});
