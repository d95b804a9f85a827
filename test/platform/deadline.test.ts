import { afterEach, describe, expect, it } from '@jest/globals';
import { testConfig } from '../../src/settings/config.ts';
import { createLogger } from '../../src/logger.ts';
import type { UpstreamCallEvent } from '../../src/platform/policy-chain.ts';
import { startGateway, type Gateway } from '../../src/server.ts';
import { graphqlClient, postJson, type GraphQLClient } from '../support/graphql-client.ts';
import { TOKEN, eventsOf, eventually, json, startServer, type Handler, type TestServer } from './support.ts';

// The whole gateway over real loopback HTTP, with a hand-driven platform: what a
// request's deadline and its caller hanging up do to the platform calls it started.

const DOCUMENT = { id: 'd0c00000-0000-4000-8000-000000000001', name: 'Passport', documentType: 'passport' };
const EXCEPTIONS = '{ exceptions(first: 1) { nodes { id } } }';

let server: TestServer | undefined;
let gateway: Gateway | undefined;
let events: UpstreamCallEvent[] = [];

// Deadlines of 2 s: long enough that a loaded machine still sends every call the test expects
// before the deadline, since what is checked is what the deadline does to calls already sent.

/** Per-attempt timeouts far beyond the test, so only the request's deadline or its caller can end a call. */
const patient = { UPSTREAM_RESPONSE_TIMEOUT_MS: '60000', UPSTREAM_REQUEST_TIMEOUT_MS: '60000', UPSTREAM_BREAKER_THRESHOLD: '1000' };

async function setup(handler: Handler, env: Record<string, string>): Promise<{ gateway: Gateway; server: TestServer; gql: GraphQLClient }> {
  server = await startServer(handler);
  gateway = await startGateway(testConfig({ ...patient, ...env }), server.url, { logger: createLogger('silent') });
  events = [];
  gateway.http.observe((event) => events.push(event));
  return { gateway, server, gql: graphqlClient(`${gateway.url}/graphql`, { authorization: TOKEN }) };
}

afterEach(async () => {
  await gateway?.close();
  await server?.close();
  gateway = undefined;
  server = undefined;
});

/** Sends the document and never finishes anything else: a body trickles a space every 20 ms, forever. */
const documentsFineExceptionsTrickle: Handler = (request, response) => {
  if (request.url?.startsWith('/v1/documents/')) {
    response.writeHead(200, { 'content-type': 'application/json' }).end(json(DOCUMENT));
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json' });
  response.write('{"content":[');
  const timer = setInterval(() => response.write(' '), 20);
  response.on('close', () => clearInterval(timer));
};

const unavailable: Handler = (_request, response) => response.writeHead(503, { 'content-type': 'application/json' }).end('{}');
const hang: Handler = () => {};

describe('the request deadline (REQUEST_DEADLINE_MS)', () => {
  it('cuts a trickled body: that field answers UPSTREAM_TIMEOUT, the rest of the query answers, nothing is retried', async () => {
    const wire = await setup(documentsFineExceptionsTrickle, { REQUEST_DEADLINE_MS: '2000' });

    const { status, body } = await wire.gql('{ document(id: "d0c00000-0000-4000-8000-000000000001") { id name } exceptions(first: 1) { nodes { id } } }');

    expect(status).toBe(200);
    expect(body.data).toEqual({ document: { id: 'd0c00000-0000-4000-8000-000000000001', name: 'Passport' }, exceptions: null });
    expect(body.errors).toHaveLength(1);
    expect(body.errors![0]).toMatchObject({
      message: 'The platform did not answer in time (request deadline of 2000 ms)',
      path: ['exceptions'],
      extensions: { code: 'UPSTREAM_TIMEOUT' },
    });
    expect(wire.server.requests.map((r) => r.url).sort()).toEqual(['/exceptions?page=0&size=1', '/v1/documents/d0c00000-0000-4000-8000-000000000001']);
  });

  it('stops waiting for a retry: one attempt, then the deadline answers', async () => {
    // The first retry would wait 5–10 s; the deadline comes first.
    const wire = await setup(unavailable, { REQUEST_DEADLINE_MS: '2000', UPSTREAM_RETRY_BASE_MS: '10000' });

    const { body } = await wire.gql(EXCEPTIONS);

    expect(body.data).toEqual({ exceptions: null });
    expect(body.errors![0]).toMatchObject({ message: 'The platform did not answer in time (request deadline of 2000 ms)', extensions: { code: 'UPSTREAM_TIMEOUT' } });
    expect(wire.server.requests).toHaveLength(1);
    expect(eventsOf(events)).toEqual([
      { route: 'exceptions.list', method: 'GET', status: 0, retries: 0, requestId: expect.any(String), errorCode: 'UPSTREAM_TIMEOUT' },
    ]);
  });

  it('fetches still queued behind the loader’s concurrency limit are never sent', async () => {
    // The exceptions list answers, documents hang: a first request gets the token accepted, so the
    // documents' calls go side by side rather than one at a time behind an unknown token's probe.
    const exceptionsAnswerDocumentsHang: Handler = (request, response) => {
      if (request.url?.startsWith('/exceptions')) response.writeHead(200, { 'content-type': 'application/json' }).end(json({ content: [], totalElements: 0 }));
    };
    const wire = await setup(exceptionsAnswerDocumentsHang, { REQUEST_DEADLINE_MS: '2000', DOCUMENT_LOADER_CONCURRENCY: '2' });
    expect((await wire.gql(EXCEPTIONS)).body).toEqual({ data: { exceptions: { nodes: [] } } });
    wire.server.requests.length = 0;
    const ids = ['d1', 'd2', 'd3', 'd4', 'd5', 'd6'];
    const query = `{ ${ids.map((id) => `${id}: document(id: "d0c00000-0000-4000-8000-00000000000${id.slice(1)}") { id }`).join(' ')} }`;

    const { body } = await wire.gql(query);

    expect(body.data).toEqual(Object.fromEntries(ids.map((id) => [id, null])));
    expect(body.errors!.map((e) => [e.path, e.extensions!.code, e.message])).toEqual(
      ids.map((id) => [[id], 'UPSTREAM_TIMEOUT', 'The platform did not answer in time (request deadline of 2000 ms)']),
    );
    expect(wire.server.requests.map((r) => r.url)).toEqual(['/v1/documents/d0c00000-0000-4000-8000-000000000001', '/v1/documents/d0c00000-0000-4000-8000-000000000002']);
  });

  it('a PUT cut by the deadline is sent exactly once', async () => {
    const wire = await setup(hang, { REQUEST_DEADLINE_MS: '2000' });
    const mutation = 'mutation($input: UpdateDocumentInput!) { updateDocument(input: $input) { document { id } } }';

    const { body } = await wire.gql(mutation, { input: { id: 'd0c00000-0000-4000-8000-000000000001', documentType: 'OTHER', name: 'Lease', description: 'Office lease' } });

    expect(body.data).toEqual({ updateDocument: null });
    expect(body.errors![0]).toMatchObject({ path: ['updateDocument'], extensions: { code: 'UPSTREAM_TIMEOUT' } });
    expect(wire.server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['PUT /v1/documents/d0c00000-0000-4000-8000-000000000001']);
  });

  it('is 8 s by default, and configurable', () => {
    expect(testConfig().requestDeadlineMs).toBe(8_000);
    expect(testConfig({ REQUEST_DEADLINE_MS: '2500' }).requestDeadlineMs).toBe(2_500);
    expect(() => testConfig({ REQUEST_DEADLINE_MS: '0' })).toThrow(/REQUEST_DEADLINE_MS/);
  });
});

describe('a caller that closes its connection', () => {
  it('stops the platform call in flight: the platform sees its connection closed', async () => {
    const wire = await setup(hang, {});
    const controller = new AbortController();
    const request = postJson(`${wire.gateway.url}/graphql`, { query: EXCEPTIONS }, { authorization: TOKEN }, controller.signal).catch((error: Error) => error.name);

    await eventually(() => wire.server.requests.length === 1);
    controller.abort();
    expect(await request).toBe('AbortError');

    await eventually(() => events.length === 1);
    expect(eventsOf(events)).toEqual([
      { route: 'exceptions.list', method: 'GET', status: 0, retries: 0, requestId: expect.any(String), errorCode: 'CANCELLED' },
    ]);
    await eventually(() => wire.server.openSockets() === 0);
    expect(wire.gateway.http.socketCounts().active).toBe(0);
  });

  it('cancels a pending retry: the platform sees one attempt', async () => {
    const wire = await setup(unavailable, { UPSTREAM_RETRY_BASE_MS: '2000' });
    const controller = new AbortController();
    const request = postJson(`${wire.gateway.url}/graphql`, { query: EXCEPTIONS }, { authorization: TOKEN }, controller.signal).catch((error: Error) => error.name);

    await eventually(() => wire.server.requests.length === 1);
    controller.abort();
    expect(await request).toBe('AbortError');

    // The call has ended (its event is the last thing it does); a retry would have come before it.
    await eventually(() => events.length === 1);
    expect(events[0]!.errorCode).toBe('CANCELLED');
    expect(wire.server.requests).toHaveLength(1);
    expect(wire.gateway.http.breakerState).toBe('closed');
  });
});
