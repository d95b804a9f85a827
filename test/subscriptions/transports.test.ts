import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import type { LiveChange } from '../../sandbox/data/live.ts';
import { startStack, type Stack } from '../support/stack.ts';

/** Short polls, so that a change shows within one interval. */
const POLL_MS = 250;
const SUBSCRIPTION = 'subscription Feed($filter: ExceptionFilter, $after: String) { exceptionsChanged(filter: $filter, after: $after) { cursor node { id status updatedAt } } }';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ SUBSCRIPTION_POLL_MS: String(POLL_MS) });
});
afterAll(() => stack.close());

interface Edge {
  cursor: string;
  node: { id: string; status: string; updatedAt: string };
}

/** What a live step changed in Acme's exceptions, as the feed sends it: ids oldest first (one step: one time, ids ascending). */
function acmeExceptionChanges(changes: readonly LiveChange[]): string[] {
  return [...new Set(changes.filter((change) => change.businessAccountId === stack.sandbox.store.businessAccountIds()[0] && (change.kind === 'arrived' || change.kind === 'status')).map((change) => change.id))].sort();
}

/** Resolves once the gateway's first poll of the feed has answered (the feed then starts from the list as it is). */
async function firstPoll(before: number): Promise<void> {
  while (stack.platformCalls().filter((call) => call.path === '/exceptions').length <= before) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('subscriptions over each transport, with its own client library', () => {
  it('graphql-sse (distinct connections): a change made in the platform arrives as an edge, oldest first', async () => {
    const client = createSseClient({ url: `${stack.gateway.url}/graphql`, headers: { authorization: `Bearer ${stack.acme}` } });
    const before = stack.platformCalls().length;
    const iterator = client.iterate<{ exceptionsChanged: Edge }>({ query: SUBSCRIPTION });
    const received: Edge[] = [];
    const expected = new Promise<void>((resolve, reject) => {
      void (async () => {
        try {
          await firstPoll(before);
          const ids = acmeExceptionChanges(stack.sandbox.live.step());
          for await (const result of iterator) {
            received.push(result.data!.exceptionsChanged);
            if (received.length === ids.length) {
              expect(received.map((edge) => edge.node.id)).toEqual(ids);
              resolve();
              return;
            }
          }
        } catch (error) {
          reject(error as Error);
        }
      })();
    });
    await expected;
    await iterator.return?.();
    client.dispose();
    expect(received.every((edge) => edge.node.updatedAt === received[0]!.node.updatedAt)).toBe(true);
  });

  it('graphql-ws: the token from connectionParams, the same feed', async () => {
    const client = createWsClient({ url: `${stack.gateway.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { Authorization: `Bearer ${stack.acme}` } });
    const before = stack.platformCalls().length;
    const iterator = client.iterate<{ exceptionsChanged: Edge }>({ query: SUBSCRIPTION });
    const next = iterator.next();
    await firstPoll(before);
    const ids = acmeExceptionChanges(stack.sandbox.live.step());
    const first = await next;
    expect(first.value?.data?.exceptionsChanged.node.id).toBe(ids[0]);
    await iterator.return?.();
    await client.dispose();
  });

  it('Apollo Client HttpLink over multipart: the same feed, with no extra link', async () => {
    const client = new ApolloClient({ link: new HttpLink({ uri: `${stack.gateway.url}/graphql`, headers: { authorization: `Bearer ${stack.acme}` } }), cache: new InMemoryCache() });
    const before = stack.platformCalls().length;
    const ids: string[] = [];
    const first = new Promise<Edge>((resolve, reject) => {
      const subscription = client.subscribe<{ exceptionsChanged: Edge }>({ query: gql(SUBSCRIPTION) }).subscribe({
        next: (result) => {
          subscription.unsubscribe();
          resolve(result.data!.exceptionsChanged);
        },
        error: reject,
      });
    });
    await firstPoll(before);
    ids.push(...acmeExceptionChanges(stack.sandbox.live.step()));
    expect((await first).node.id).toBe(ids[0]);
    client.stop();
  });

  it('refuses bad arguments with BAD_USER_INPUT before any platform call', async () => {
    const client = createSseClient({ url: `${stack.gateway.url}/graphql`, headers: { authorization: `Bearer ${stack.acme}` } });
    const before = stack.platformCalls().length;
    const results: unknown[] = [];
    for await (const result of client.iterate({ query: SUBSCRIPTION, variables: { filter: { timeZone: 'Mars/Olympus' } } })) results.push(result);
    client.dispose();
    expect(results).toEqual([{
      errors: [{
        message: 'timeZone "Mars/Olympus" is not accepted: use Z, UTC, GMT, an offset such as +05:30, UTC+2 / GMT-3, or an IANA region id such as Europe/Paris',
        locations: [{ line: 1, column: 63 }],
        path: ['exceptionsChanged'],
        extensions: { code: 'BAD_USER_INPUT', field: ['filter', 'timeZone'], requestId: expect.any(String) },
      }],
    }]);
    expect(stack.platformCalls().length).toBe(before);
  });

  it('answers a subscription sent as a plain JSON request with BAD_REQUEST naming the transports, without a platform call', async () => {
    const before = stack.platformCalls().length;
    const answer = await stack.gql('subscription { exceptionsChanged { cursor } }');
    expect(answer).toEqual({
      status: 200,
      body: {
        data: null,
        errors: [{
          message: 'Subscriptions need a streaming transport: GraphQL over SSE (Accept: text/event-stream), multipart HTTP (Accept: multipart/mixed;subscriptionSpec="1.0") or graphql-ws',
          locations: [{ line: 1, column: 16 }],
          path: ['exceptionsChanged'],
          extensions: { code: 'BAD_REQUEST', requestId: expect.any(String) },
        }],
      },
    });
    expect(stack.platformCalls().length).toBe(before);
  });

  it('answers streams uncached, unbuffered and uncompressed, even to a client that accepts gzip', async () => {
    const headersOf = async (accept: string) => {
      const controller = new AbortController();
      const response = await fetch(`${stack.gateway.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, 'accept-encoding': 'gzip, br', authorization: `Bearer ${stack.acme}` },
        body: JSON.stringify({ query: SUBSCRIPTION }),
        signal: controller.signal,
      });
      const seen = ['content-type', 'cache-control', 'x-accel-buffering', 'content-encoding'].map((name) => [name, response.headers.get(name)]);
      controller.abort();
      return Object.fromEntries(seen);
    };
    expect(await headersOf('text/event-stream')).toEqual({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no', 'content-encoding': 'none' });
    expect(await headersOf('multipart/mixed;subscriptionSpec="1.0",application/json')).toEqual({
      'content-type': 'multipart/mixed; boundary="graphql"; subscriptionSpec="1.0"', 'cache-control': 'no-cache', 'x-accel-buffering': 'no', 'content-encoding': null,
    });
  });

  it('counts nothing open once every client has left: no subscription, no poller', async () => {
    const text = async () => (await fetch(`${stack.gateway.url}/metrics`)).text();
    const open = (metrics: string) => [...metrics.matchAll(/^(subscriptions_open\{transport="\w+"\}|subscription_pollers) (\d+)$/gm)].map((m) => `${m[1]} ${m[2]}`);
    let metrics = await text();
    while (open(metrics).some((line) => !line.endsWith(' 0'))) metrics = await text();
    expect(open(metrics).sort()).toEqual(['subscription_pollers 0', 'subscriptions_open{transport="multipart"} 0', 'subscriptions_open{transport="sse"} 0', 'subscriptions_open{transport="ws"} 0']);
    expect(Number(/^subscription_events_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0);
  });
});
