import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import WebSocket from 'ws';
import { startStack, type Stack } from '../support/stack.ts';

// The same hostile operations on every transport: each must be refused by the one operation path, with
// the query path's code, message and limit and a request id, never a transport library's own message.

interface Refusal {
  message: string;
  code: unknown;
  limit: unknown;
  requestId: unknown;
}

const HOSTILE: Record<string, Record<string, unknown>> = {
  'over MAX_QUERY_ALIASES': { query: 'subscription { exceptionsChanged { a: cursor b: cursor c: cursor } }' },
  'over MAX_QUERY_DEPTH': { query: 'subscription { exceptionsChanged { node { financialAccount { documentAcceptances { edges { node { id } } } } } } }' },
  invalid: { query: 'subscription { exceptionsChanged { noSuchField } }' },
  unparsable: { query: 'subscription { exceptionsChanged {' },
  'unknown operation name': { query: 'subscription Feed { exceptionsChanged { cursor } }', operationName: 'Other' },
  'unknown persisted id': { extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } },
};

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ MAX_QUERY_ALIASES: '2', MAX_QUERY_DEPTH: '4' });
});
afterAll(() => stack.close());

function refusalOf(body: { errors?: Array<{ message: string; extensions?: Record<string, unknown> }> }): Refusal {
  const error = body.errors?.[0];
  if (!error) throw new Error(`no error in ${JSON.stringify(body)}`);
  return { message: error.message, code: error.extensions?.code, limit: error.extensions?.limit, requestId: error.extensions?.requestId };
}

/** One operation POSTed as JSON with Acme's token, asking for `accept` when given. */
function postOperation(operation: Record<string, unknown>, accept?: string): Promise<Response> {
  return fetch(`${stack.gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}), authorization: `Bearer ${stack.acme}` },
    body: JSON.stringify(operation),
  });
}

async function overPost(operation: Record<string, unknown>): Promise<Refusal> {
  const response = await postOperation(operation);
  return refusalOf(await response.json() as never);
}

/** SSE: either a status with the shaped JSON body, or a stream whose `next` carries it before `complete`. */
async function overSse(operation: Record<string, unknown>): Promise<Refusal> {
  const response = await postOperation(operation, 'text/event-stream');
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return refusalOf(JSON.parse(text) as never);
  const next = text.split('\n\n').find((block) => block.startsWith('event: next\n'));
  expect(text.trimEnd().endsWith('event: complete\ndata:')).toBe(true);
  return refusalOf(JSON.parse(next!.slice('event: next\ndata: '.length)) as never);
}

/** Apollo multipart: a status with the shaped JSON body, or a part carrying it. */
async function overMultipart(operation: Record<string, unknown>): Promise<Refusal> {
  const response = await postOperation(operation, 'multipart/mixed;subscriptionSpec="1.0"');
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').startsWith('multipart/mixed')) return refusalOf(JSON.parse(text) as never);
  const part = text.split(/\r\n--graphql/).map((chunk) => chunk.slice(chunk.indexOf('\r\n\r\n') + 4).trim()).find((body) => body.startsWith('{') && body !== '{}');
  const parsed = JSON.parse(part!) as { payload?: unknown; errors?: unknown };
  return refusalOf((parsed.errors ? parsed : parsed.payload) as never);
}

/** graphql-ws: the `error` message of the subscription. */
async function overWebSocket(operation: Record<string, unknown>): Promise<Refusal> {
  const socket = new WebSocket(`${stack.gateway.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
  try {
    return await new Promise<Refusal>((resolve, reject) => {
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${stack.acme}` } })));
      socket.on('close', (code, reason) => reject(new Error(`closed ${code} ${reason.toString()}`)));
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { type: string; payload?: unknown };
        if (message.type === 'connection_ack') socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: '', ...operation } }));
        else if (message.type === 'error') resolve(refusalOf({ errors: message.payload } as never));
        else if (message.type === 'next') resolve(refusalOf(message.payload as never));
      });
    });
  } finally {
    socket.close();
  }
}

describe('a hostile operation is refused alike on every transport', () => {
  for (const [name, operation] of Object.entries(HOSTILE)) {
    it(`${name}: the query path's code, message and limit, with a request id, over SSE, multipart and graphql-ws`, async () => {
      const expected = await overPost(operation);
      expect(typeof expected.code).toBe('string');
      expect(typeof expected.requestId).toBe('string');
      if (name.startsWith('over ')) expect(expected.limit).toBe(name.slice('over '.length));
      for (const transport of [overSse, overMultipart, overWebSocket]) {
        const refusal = await transport(operation);
        expect({ transport: transport.name, message: refusal.message, code: refusal.code, limit: refusal.limit }).toEqual({ transport: transport.name, message: expected.message, code: expected.code, limit: expected.limit });
        expect(typeof refusal.requestId).toBe('string');
        expect(refusal.requestId).not.toBe(expected.requestId);
      }
    });
  }
});
