import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startStack, type Stack } from '../support/stack.ts';

const FEED = 'subscription Feed { exceptionsChanged { cursor node { id } } }';
const ID = 'feed-1';

let stack: Stack;

beforeAll(async () => {
  const manifest = join(mkdtempSync(join(tmpdir(), 'trusted-')), 'manifest.json');
  writeFileSync(manifest, JSON.stringify({ [ID]: FEED }));
  stack = await startStack({ SUBSCRIPTION_POLL_MS: '250', TRUSTED_DOCUMENTS: manifest, TRUSTED_DOCUMENTS_ONLY: 'true' });
});
afterAll(() => stack.close());

describe('trusted documents only, for subscriptions too', () => {
  it('refuses a subscription sent as text over SSE before it streams, and over a WebSocket', async () => {
    const sse = await fetch(`${stack.gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${stack.acme}` },
      body: JSON.stringify({ query: FEED }),
    });
    expect(sse.status).toBe(400);
    expect(((await sse.json()) as { errors: { extensions: { code: string } }[] }).errors.map((error) => error.extensions.code)).toEqual(['PERSISTED_QUERY_ID_REQUIRED']);

    const client = createWsClient({ url: `${stack.gateway.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${stack.acme}` } });
    const refused = await new Promise<unknown>((resolve) => {
      client.subscribe({ query: FEED }, { next: () => undefined, error: resolve, complete: () => resolve('completed') });
    });
    expect(refused).toMatchObject([{ message: expect.stringContaining('trusted documents only'), extensions: { code: 'PERSISTED_QUERY_ID_REQUIRED' } }]);
    await client.dispose();
    expect(stack.platformCalls()).toEqual([]);
  });

  it('runs a subscription named by its id over a WebSocket', async () => {
    const client = createWsClient({ url: `${stack.gateway.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${stack.acme}` } });
    const iterator = client.iterate<{ exceptionsChanged: { node: { id: string } } }>({ query: '', extensions: { persistedQuery: { version: 1, sha256Hash: ID } } });
    const first = iterator.next();
    while (!stack.platformCalls().some((call) => call.path === '/exceptions')) await new Promise((resolve) => setTimeout(resolve, 10));
    const changed = stack.sandbox.live.step().filter((change) => change.businessAccountId === stack.sandbox.store.businessAccountIds()[0] && (change.kind === 'arrived' || change.kind === 'status'));
    expect((await first).value?.data?.exceptionsChanged.node.id).toBe(changed.map((change) => change.id).sort()[0]);
    await iterator.return?.();
    await client.dispose();
  });
});
