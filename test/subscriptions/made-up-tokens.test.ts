import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import WebSocket from 'ws';
import { startStack, type Stack } from '../support/stack.ts';

const FEED = 'subscription { exceptionsChanged { cursor node { id } } }';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ SUBSCRIPTION_POLL_MS: '250', AUTH_FAILURE_LIMIT_BURST: '2', AUTH_FAILURE_LIMIT_PER_MINUTE: '1' });
});
afterAll(() => stack.close());

/** One SSE subscription with `token`, read to its end. */
async function subscribe(token: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${stack.gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: FEED }),
  });
  return { status: response.status, text: await response.text() };
}

describe('made-up tokens on subscriptions', () => {
  it('cost the platform one refused call each, end with UNAUTHENTICATED, and spend their address\'s refused-token limit as queries do', async () => {
    const first = await subscribe('made-up-1');
    expect(first.status).toBe(200);
    const [comment, next, complete] = first.text.split('\n\n');
    expect([comment, complete]).toEqual([':', 'event: complete\ndata:']);
    expect(next!.startsWith('event: next\ndata: ')).toBe(true);
    expect(JSON.parse(next!.slice('event: next\ndata: '.length))).toEqual({
      data: null,
      errors: [{
        message: 'The platform rejected the access token (HTTP 401): Invalid or unknown access token',
        locations: [{ line: 1, column: 16 }],
        path: ['exceptionsChanged'],
        extensions: { code: 'UNAUTHENTICATED', upstream: { status: 401, traceId: expect.any(String) }, requestId: expect.any(String) },
      }],
    });
    expect((await subscribe('made-up-2')).status).toBe(200);
    // The address's two units are spent: the third is refused before it reaches the platform.
    const third = await subscribe('made-up-3');
    expect(third.status).toBe(429);
    expect(JSON.parse(third.text)).toMatchObject({ errors: [{ extensions: { code: 'RATE_LIMITED', limit: 'AUTH_FAILURE_LIMIT_PER_MINUTE' } }] });
    expect(stack.platformCalls().map((call) => call.authorization)).toEqual(['Bearer made-up-1', 'Bearer made-up-2']);
  });
});

/** One graphql-ws connection with `token` in its connectionParams and one subscription: its messages and close code, once closed. */
async function overSocket(token: string): Promise<{ messages: unknown[]; code: number; reason: string }> {
  const socket = new WebSocket(`${stack.gateway.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
  const messages: unknown[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string };
    messages.push(message);
    if (message.type === 'connection_ack') socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: FEED } }));
    if (message.type === 'complete') socket.close(1000);
  });
  await new Promise<void>((resolve) => socket.once('open', () => resolve()));
  socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } }));
  return { messages, ...(await closed) };
}

describe('made-up tokens on WebSocket subscriptions', () => {
  let sockets: Stack;
  beforeAll(async () => {
    await stack.close();
    sockets = await startStack({ SUBSCRIPTION_POLL_MS: '250', AUTH_FAILURE_LIMIT_BURST: '2', AUTH_FAILURE_LIMIT_PER_MINUTE: '1' });
    stack = sockets;
  });

  it('spend their address\'s refused-token limit as queries do: past it, a connection is closed 4429 before any platform call', async () => {
    for (const token of ['made-up-ws-1', 'made-up-ws-2']) {
      const { messages, code } = await overSocket(token);
      expect(messages).toMatchObject([{ type: 'connection_ack' }, { id: '1', type: 'next', payload: { data: null, errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] } }, { id: '1', type: 'complete' }]);
      expect(code).toBe(1000);
    }
    const third = await overSocket('made-up-ws-3');
    expect(third).toEqual({ messages: [], code: 4429, reason: 'Too many requests with tokens the platform has not accepted from this address: retry after 60 s' });
    expect(stack.platformCalls().map((call) => call.authorization)).toEqual(['Bearer made-up-ws-1', 'Bearer made-up-ws-2']);
  });
});
