import type http from 'node:http';
import { afterEach, describe, expect, it } from '@jest/globals';
import { createDocumentLoader } from '../../src/documents/loader.ts';
import { PolicyChain } from '../../src/platform/policy-chain.ts';
import { RequestClient } from '../support/request-client.ts';
import { TOKEN, eventually, json, startServer, upstreamSettings, type TestServer } from '../platform/support.ts';

// The document loader alone over a loopback platform that answers when the test says: its
// bound on fetches in flight, one fetch per id, and that it is the request's only cache of documents.

let server: TestServer | undefined;
let platform: PolicyChain | undefined;
/** Answers held until released, in arrival order. */
let held: { url: string; response: http.ServerResponse }[] = [];

const record = (id: string, name = `Document ${id}`) => ({ id, documentType: 'OTHER', name, status: 'NEW' });

async function setup(): Promise<RequestClient> {
  held = [];
  server = await startServer((request, response) => void held.push({ url: request.url ?? '', response }));
  platform = new PolicyChain(server.url, upstreamSettings({ UPSTREAM_RETRY_LIMIT: '0' }));
  return new RequestClient(platform, TOKEN, 'req-loader-1');
}

function answer(index: number, body: unknown = record(held[index]!.url.split('/').at(-1)!)): void {
  held[index]!.response.writeHead(200, { 'content-type': 'application/json' }).end(json(body));
}

afterEach(async () => {
  for (const { response } of held) if (!response.writableEnded) response.destroy();
  platform?.close();
  await server?.close();
  platform = undefined;
  server = undefined;
});

describe('the document loader', () => {
  it('has at most `concurrency` fetches in flight, the next one sent as a slot frees, in arrival order', async () => {
    const client = await setup();
    const loader = createDocumentLoader(client, 2);

    const loads = ['d1', 'd2', 'd3', 'd4'].map((id) => loader.load(id));
    await eventually(() => held.length === 2);
    // A call is counted as it is sent, in the same turn as the loader's batch: two, not four.
    expect(client.calls).toBe(2);
    expect(held.map((h) => h.url)).toEqual(['/v1/documents/d1', '/v1/documents/d2']);

    answer(1);
    await eventually(() => held.length === 3);
    expect(held[2]!.url).toBe('/v1/documents/d3');
    answer(0);
    await eventually(() => held.length === 4);
    answer(2);
    answer(3);

    const documents = await Promise.all(loads);
    for (const document of documents) expect(document.receivedAt).toBeGreaterThan(0);
    expect(documents.map(({ receivedAt: _receivedAt, ...document }) => document)).toEqual(['d1', 'd2', 'd3', 'd4'].map((id) => record(id)));
    expect(held.map((h) => h.url)).toEqual(['/v1/documents/d1', '/v1/documents/d2', '/v1/documents/d3', '/v1/documents/d4']);
    expect(client.calls).toBe(4);
  });

  it('fetches each id once per request, and every alias gets the same record', async () => {
    const client = await setup();
    const loader = createDocumentLoader(client, 8);

    const loads = [loader.load('d1'), loader.load('d1'), loader.load('d2')];
    await eventually(() => held.length === 2);
    answer(0);
    answer(1);
    const [first, again, other] = await Promise.all(loads);

    expect(again).toBe(first);
    expect(other!.id).toBe('d2');
    expect(held.map((h) => h.url)).toEqual(['/v1/documents/d1', '/v1/documents/d2']);
    expect(client.calls).toBe(2);
  });

  it('is the request’s only cache of documents: a cleared id is fetched afresh, not served by the client’s GET cache', async () => {
    const client = await setup();
    const loader = createDocumentLoader(client, 8);

    const before = loader.load('d1');
    await eventually(() => held.length === 1);
    answer(0, record('d1', 'Before'));
    expect((await before).name).toBe('Before');

    loader.clear('d1');
    const after = loader.load('d1');
    await eventually(() => held.length === 2);
    answer(1, record('d1', 'After'));
    expect((await after).name).toBe('After');
    expect(client.calls).toBe(2);
  });
});
