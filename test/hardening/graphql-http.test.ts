import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { startStack, type Stack } from '../support/stack.ts';

// /graphql and the paths below it go through the same front door (src/http/): every request to
// them is answered alike, with the same status, content type and body, refusals included.

let stack: Stack;
let batching: Stack;
let guarded: Stack;
let manifestDir: string;
const COUNT = 'query ExceptionCount { exceptions(first: 1) { totalCount } }';

beforeAll(async () => {
  // Production mode: development answers carry stack traces, which name the serving code.
  [stack, batching] = await Promise.all([
    startStack({ NODE_ENV: 'production', MAX_BODY_BYTES: '2048' }),
    startStack({ NODE_ENV: 'production', ALLOW_BATCHED_REQUESTS: 'true', MAX_BATCH_SIZE: '2' }),
  ]);
  manifestDir = await mkdtemp(join(tmpdir(), 'graphql-http-'));
  await writeFile(join(manifestDir, 'manifest.json'), JSON.stringify({ 'count-v1': COUNT }));
  guarded = await startStack({ NODE_ENV: 'production', TRUSTED_DOCUMENTS: join(manifestDir, 'manifest.json'), CORS_ORIGINS: 'https://app.example.com' });
});
afterAll(async () => {
  await Promise.all([stack.close(), batching.close(), guarded.close()]);
  await rm(manifestDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  contentType: string | null;
  etag: string | null;
  /** The web-client headers (CORS, no-store) every GraphQL answer carries. */
  web: Array<string | null>;
  body: unknown;
}

async function send(target: Stack, path: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(`${target.gateway.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${target.acme}`, 'x-request-id': 'same-request', ...headers },
    body,
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: compared as text.
  }
  const web = ['access-control-allow-origin', 'access-control-allow-credentials', 'vary', 'cache-control'].map((name) => response.headers.get(name));
  return { status: response.status, contentType: response.headers.get('content-type'), etag: response.headers.get('etag'), web, body: parsed };
}

const json = { 'content-type': 'application/json' };
const query = JSON.stringify({ query: '{ exceptions(first: 1) { totalCount } }' });
const cases: Array<[string, string | Uint8Array<ArrayBuffer>, Record<string, string>]> = [
  ['a query', query, json],
  ['a query with charset=utf-8', query, { 'content-type': 'application/json; charset=UTF-8' }],
  ['a query after a UTF-8 byte order mark', new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from(query)]), json],
  ['a query after whitespace', `\n\t ${query}`, json],
  ['a syntax error in the body', '{"query": "{ __typename }"', json],
  ['a JSON string', '"{ __typename }"', json],
  ['JSON null', 'null', json],
  ['an empty object', '{}', json],
  ['a GraphQL syntax error', JSON.stringify({ query: '{ exceptions(' }), json],
  ['an unknown field', JSON.stringify({ query: '{ nope }' }), json],
  ['a batch (not allowed here)', JSON.stringify([{ query: '{ __typename }' }]), json],
  ['a body over the limit', JSON.stringify({ query: `{ __typename } #${'x'.repeat(3000)}` }), json],
  ['a gzip-compressed body', new Uint8Array(gzipSync(query)), { ...json, 'content-encoding': 'gzip' }],
  ['a latin-1 charset', query, { 'content-type': 'application/json; charset=latin1' }],
  ['a text/plain body', query, { 'content-type': 'text/plain' }],
];

describe('the GraphQL route served from node:http', () => {
  for (const [name, body, headers] of cases) {
    it(`answers ${name} at /graphql exactly as at /graphql/`, async () => {
      const fast = await send(stack, '/graphql', body, headers);
      const express = await send(stack, '/graphql/', body, headers);
      expect(fast).toEqual(express);
    });
  }

  it('answers a refusal where it occurs, the request id stamped once', async () => {
    for (const path of ['/graphql', '/graphql/', '/GraphQL/below']) {
      const response = await fetch(`${stack.gateway.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.acme}`, 'x-request-id': 'refused-once', ...json },
        body: '{"query": ',
      });
      const text = await response.text();
      expect([path, response.status, text]).toEqual([path, 400, '{"errors":[{"message":"Request body is not valid JSON","extensions":{"code":"BAD_REQUEST","requestId":"refused-once"}}]}']);
    }
  });

  it('sends no ETag on GraphQL answers', async () => {
    const answer = await send(stack, '/graphql', query, json);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { exceptions: { totalCount: expect.any(Number) } }, extensions: { cost: { requestedQueryCost: 1, actualQueryCost: 1 } } });
    expect(answer.etag).toBeNull();
  });

  it('applies the web-client headers and trusted documents at /graphql as at /graphql/', async () => {
    const fromApp = { ...json, origin: 'https://app.example.com' };
    const fromElsewhere = { ...json, origin: 'https://evil.example.com' };
    const bodies = [JSON.stringify({ documentId: 'count-v1' }), JSON.stringify({ query: COUNT }), JSON.stringify({ query: '{ exceptions(first: 2) { totalCount } }' }), JSON.stringify({ documentId: 'nope' })];
    for (const body of bodies) {
      for (const headers of [fromApp, fromElsewhere, json]) {
        const fast = await send(guarded, '/graphql', body, headers);
        expect(fast).toEqual(await send(guarded, '/graphql/', body, headers));
        expect(fast.web[3]).toBe('no-store');
      }
    }
    const served = await send(guarded, '/graphql', bodies[0]!, fromApp);
    expect(served.status).toBe(200);
    expect(served.web[0]).toBe('https://app.example.com');
    expect((await send(guarded, '/graphql', bodies[2]!, fromApp)).status).toBe(400);
  });

  it('applies the batch size limit at /graphql as at /graphql/', async () => {
    const two = JSON.stringify([{ query: '{ __typename }' }, { query: '{ a: __typename }' }]);
    const three = JSON.stringify([{ query: '{ __typename }' }, { query: '{ __typename }' }, { query: '{ __typename }' }]);
    expect(await send(batching, '/graphql', two, json)).toEqual(await send(batching, '/graphql/', two, json));
    const refused = await send(batching, '/graphql', three, json);
    expect(refused).toEqual(await send(batching, '/graphql/', three, json));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errors: [{ extensions: { code: 'BAD_REQUEST', limit: 'MAX_BATCH_SIZE', requestId: 'same-request' } }] });
  });
});
