import { afterEach, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startProductionGateway, type ProductionGateway } from '../support/gateway-process.ts';

/** Short polls: a change shows within one interval (plus the answer's way back). */
const POLL_MS = 250;
const ACME = 'demo-token-acme';
const FEED = 'subscription { exceptionsChanged { cursor node { id status updatedAt } } }';

interface Change {
  kind: string;
  businessAccountId: string;
  id: string;
}
interface Edge {
  cursor: string;
  node: { id: string; status: string; updatedAt: string };
}

let gateway: ProductionGateway | undefined;
afterEach(async () => {
  await gateway?.process.stop();
  gateway = undefined;
});

async function admin<T>(path: string, method = 'GET'): Promise<T> {
  const response = await fetch(`${gateway!.platform}/__sandbox/${path}`, { method });
  return (await response.json()) as T;
}

/** One live step of the embedded sandbox: the Acme exceptions it changed, as the feed sends them (one step: one time, ids ascending). */
async function step(): Promise<string[]> {
  const [acme] = (await admin<{ businessAccounts: { businessAccountId: string }[] }>('fixtures')).businessAccounts;
  const { changes } = await admin<{ changes: Change[] }>('live/step', 'POST');
  return [...new Set(changes.filter((change) => change.businessAccountId === acme!.businessAccountId && (change.kind === 'arrived' || change.kind === 'status')).map((change) => change.id))].sort();
}

/** Resolves once the gateway has polled the exceptions `count` times in all. */
async function polled(count: number): Promise<void> {
  for (;;) {
    const { requests } = await admin<{ requests: { path: string }[] }>('requests?detail=1');
    if (requests.filter((r) => r.path === '/exceptions').length >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('subscriptions of the gateway process over its embedded sandbox', () => {
  it('deliver a change made in the sandbox over SSE (graphql-sse), WebSocket (graphql-ws) and multipart (Apollo Client HttpLink), one shared poll for the three', async () => {
    gateway = await startProductionGateway({ SUBSCRIPTION_POLL_MS: String(POLL_MS) });
    const url = `${gateway.origin}/graphql`;
    const sse = createSseClient({ url, headers: { authorization: `Bearer ${ACME}` } });
    const ws = createWsClient({ url: url.replace('http', 'ws'), webSocketImpl: WebSocket, connectionParams: { Authorization: `Bearer ${ACME}` } });
    const apollo = new ApolloClient({ link: new HttpLink({ uri: url, headers: { authorization: `Bearer ${ACME}` } }), cache: new InMemoryCache() });

    const overSse = sse.iterate<{ exceptionsChanged: Edge }>({ query: FEED });
    const overWs = ws.iterate<{ exceptionsChanged: Edge }>({ query: FEED });
    const sseFirst = overSse.next();
    const wsFirst = overWs.next();
    const multipartFirst = new Promise<Edge>((resolve, reject) => {
      const subscription = apollo.subscribe<{ exceptionsChanged: Edge }>({ query: gql(FEED) }).subscribe({
        next: (result) => {
          subscription.unsubscribe();
          resolve(result.data!.exceptionsChanged);
        },
        error: reject,
      });
    });
    await polled(1);
    const metrics = await (await fetch(`${gateway.admin}/metrics`)).text();
    expect(metrics).toContain('subscription_pollers 1');

    const ids = await step();
    const [a, b, c] = await Promise.all([sseFirst, wsFirst, multipartFirst]);
    expect([a.value?.data?.exceptionsChanged.node.id, b.value?.data?.exceptionsChanged.node.id, c.node.id]).toEqual([ids[0], ids[0], ids[0]]);
    // One feed for the three subscribers: the cursors are the same.
    expect(new Set([a.value?.data?.exceptionsChanged.cursor, b.value?.data?.exceptionsChanged.cursor, c.cursor]).size).toBe(1);
    await overSse.return?.();
    await overWs.return?.();
    sse.dispose();
    await ws.dispose();
    apollo.stop();
  });

  it('completes every stream on SIGTERM: SSE `complete`, the multipart closing boundary, WebSocket close 1001', async () => {
    gateway = await startProductionGateway({ SUBSCRIPTION_POLL_MS: String(POLL_MS) });
    const url = new URL('/graphql', gateway.origin);
    const body = JSON.stringify({ query: FEED });
    const stream = (accept: string) =>
      new Promise<{ text: () => string; ended: Promise<void> }>((resolve, reject) => {
        const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${ACME}` } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          resolve({ text: () => text, ended: new Promise((done) => res.once('end', () => done())) });
        });
        req.once('error', reject);
        req.end(body);
      });
    const sse = await stream('text/event-stream');
    const multipart = await stream('multipart/mixed;subscriptionSpec="1.0",application/json');
    const socket = new WebSocket(url.href.replace('http', 'ws'), 'graphql-transport-ws');
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    await new Promise<void>((resolve) => socket.once('open', () => resolve()));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${ACME}` } }));
    await new Promise<void>((resolve) => socket.once('message', () => resolve()));
    socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: FEED } }));
    const messages: unknown[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(String(data))));
    await polled(1);

    gateway.process.child.kill('SIGTERM');
    await Promise.all([sse.ended, multipart.ended]);
    expect(sse.text()).toMatch(/event: complete\n/);
    expect(multipart.text().endsWith('\r\n--graphql--\r\n')).toBe(true);
    expect(await closed).toBe(1001);
    expect(messages).toContainEqual({ id: '1', type: 'complete' });
    expect(await gateway.process.exited).toBe(0);
  });
});
