import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from '@jest/globals';
import { RequestClient } from '../support/request-client.ts';
import { PolicyChain, type UpstreamCallEvent } from '../../src/platform/policy-chain.ts';
import { PlatformTransport } from '../../src/platform/transport.ts';
import { TOKEN, closedPort, eventsOf, eventually, failure, json, protectionSettings, startServer, upstreamSettings, type Handler, type TestServer } from './support.ts';

// Real loopback sockets: hangs, trickled bodies, resets and refusals behave here
// exactly as they do on the wire, and the server can count its connections.

const REQUEST_ID = 'req-wire-1';
const PAGE = { totalElements: 1, totalPages: 1, number: 0, numberOfElements: 1, hasNext: false, content: [{ id: 'e1' }] };

let server: TestServer | undefined;
let http: PolicyChain | undefined;
let events: UpstreamCallEvent[] = [];

async function setup(handler: Handler, overrides: Record<string, string> = {}): Promise<{ client: RequestClient; http: PolicyChain; server: TestServer }> {
  server = await startServer(handler);
  http = new PolicyChain(server.url, upstreamSettings(overrides), protectionSettings(overrides));
  events = [];
  http.observe((event) => events.push(event));
  return { client: new RequestClient(http, TOKEN, REQUEST_ID), http, server };
}

afterEach(async () => {
  http?.close();
  await server?.close();
  http = undefined;
  server = undefined;
});

const hang: Handler = () => {};
const ok: Handler = (_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(json(PAGE));
const reset: Handler = (request) => request.socket.destroy();

/** Both ends agree the connection is gone and nothing is pooled. */
async function expectNoSocketsLeft(platform: PolicyChain, testServer: TestServer) {
  await eventually(() => platform.socketCounts().active === 0 && platform.socketCounts().idle === 0);
  await eventually(() => testServer.openSockets() === 0);
  expect(platform.socketCounts()).toEqual({ active: 0, idle: 0 });
  expect(testServer.openSockets()).toBe(0);
}

describe('timeouts', () => {
  it('a platform that never answers → UPSTREAM_TIMEOUT after the response timeout, socket closed', async () => {
    const wire = await setup(hang, { UPSTREAM_RESPONSE_TIMEOUT_MS: '200', UPSTREAM_RETRY_LIMIT: '0' });

    const error = await failure(wire.client.get('exceptions.list', '/exceptions'));

    // The response timeout ended the call (the message names which timer fired), not an answer: none came.
    expect(error.message).toBe('The platform did not answer in time (response timeout)');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_TIMEOUT' });
    expect(wire.server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /exceptions']);
    expect(eventsOf(events)).toEqual([
      { route: 'exceptions.list', method: 'GET', status: 0, retries: 0, requestId: REQUEST_ID, errorCode: 'UPSTREAM_TIMEOUT' },
    ]);
    await expectNoSocketsLeft(wire.http, wire.server);
  });

  it('a timed-out GET is retried up to the limit, each attempt on a fresh connection', async () => {
    const wire = await setup(hang, { UPSTREAM_RESPONSE_TIMEOUT_MS: '150', UPSTREAM_RETRY_LIMIT: '2' });

    const error = await failure(wire.client.get('exceptions.list', '/exceptions'));

    expect(error.extensions.code).toBe('UPSTREAM_TIMEOUT');
    expect(wire.server.requests).toHaveLength(3);
    expect(wire.server.connections()).toBe(3);
    expect(eventsOf(events)).toEqual([
      { route: 'exceptions.list', method: 'GET', status: 0, retries: 2, requestId: REQUEST_ID, errorCode: 'UPSTREAM_TIMEOUT' },
    ]);
    await expectNoSocketsLeft(wire.http, wire.server);
  });

  it('a timed-out PUT is not retried', async () => {
    const wire = await setup(hang, { UPSTREAM_RESPONSE_TIMEOUT_MS: '150', UPSTREAM_RETRY_LIMIT: '2' });

    const error = await failure(wire.client.put('documents.update', '/v1/documents/tax', { name: 'Tax' }));

    expect(error.message).toBe('The platform did not answer in time (response timeout)');
    expect(wire.server.requests.map((r) => [r.method, r.url, r.body])).toEqual([['PUT', '/v1/documents/tax', '{"name":"Tax"}']]);
    await expectNoSocketsLeft(wire.http, wire.server);
  });

  it('a body trickled past the request timeout → UPSTREAM_TIMEOUT, socket closed', async () => {
    const trickle: Handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"totalElements":1,"content":[');
      // Each byte beats the response timeout; only the whole-request timeout can stop this.
      const timer = setInterval(() => response.write(' '), 40);
      response.on('close', () => clearInterval(timer));
    };
    const wire = await setup(trickle, { UPSTREAM_RESPONSE_TIMEOUT_MS: '200', UPSTREAM_REQUEST_TIMEOUT_MS: '500', UPSTREAM_RETRY_LIMIT: '0' });

    const error = await failure(wire.client.get('exceptions.list', '/exceptions'));

    // The whole-request timer ended the call, though every byte beat the response timeout: the
    // platform had begun a 200 answer whose body never completed, so the call reports no status.
    expect(error.message).toBe('The platform did not answer in time (request timeout)');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_TIMEOUT' });
    expect(wire.server.requests).toHaveLength(1);
    expect(eventsOf(events)).toEqual([
      { route: 'exceptions.list', method: 'GET', status: 0, retries: 0, requestId: REQUEST_ID, errorCode: 'UPSTREAM_TIMEOUT' },
    ]);
    await expectNoSocketsLeft(wire.http, wire.server);
  });
});

describe('network errors', () => {
  it('connection refused → UPSTREAM_ERROR after the GET retries', async () => {
    const port = await closedPort();
    http = new PolicyChain(`http://127.0.0.1:${port}`, upstreamSettings({ UPSTREAM_RETRY_LIMIT: '2' }));
    events = [];
    http.observe((event) => events.push(event));

    const error = await failure(new RequestClient(http, TOKEN, REQUEST_ID).get('exceptions.list', '/exceptions'));

    expect(error.message).toBe('The platform could not be reached (ECONNREFUSED)');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR' });
    expect(eventsOf(events)).toEqual([
      { route: 'exceptions.list', method: 'GET', status: 0, retries: 2, requestId: REQUEST_ID, errorCode: 'UPSTREAM_ERROR' },
    ]);
    const platform = http;
    await eventually(() => platform.socketCounts().active === 0);
    expect(platform.socketCounts()).toEqual({ active: 0, idle: 0 });
  });

  it('connection reset → GET retried up to the limit (three requests), then UPSTREAM_ERROR', async () => {
    const wire = await setup(reset, { UPSTREAM_RETRY_LIMIT: '2' });

    const error = await failure(wire.client.get('exceptions.list', '/exceptions'));

    expect(error.message).toBe('The platform could not be reached (ECONNRESET)');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR' });
    expect(wire.server.requests).toHaveLength(3);
    expect(eventsOf(events)).toEqual([
      { route: 'exceptions.list', method: 'GET', status: 0, retries: 2, requestId: REQUEST_ID, errorCode: 'UPSTREAM_ERROR' },
    ]);
    await expectNoSocketsLeft(wire.http, wire.server);
  });

  it('a reset followed by an answer: the GET succeeds on its retry', async () => {
    let calls = 0;
    const wire = await setup((request, response, seen) => (++calls === 1 ? reset(request, response, seen) : ok(request, response, seen)));

    await expect(wire.client.get('exceptions.list', '/exceptions')).resolves.toEqual(PAGE);

    expect(wire.server.requests).toHaveLength(2);
    expect(eventsOf(events)).toEqual([{ route: 'exceptions.list', method: 'GET', status: 200, retries: 1, requestId: REQUEST_ID }]);
  });

  it('connection reset on a PUT → exactly one request, UPSTREAM_ERROR', async () => {
    const wire = await setup(reset, { UPSTREAM_RETRY_LIMIT: '2' });

    const error = await failure(wire.client.put('documents.update', '/v1/documents/tax', { name: 'Tax' }));

    expect(error.message).toBe('The platform could not be reached (ECONNRESET)');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR' });
    expect(wire.server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['PUT /v1/documents/tax']);
    expect(eventsOf(events)).toEqual([
      { route: 'documents.update', method: 'PUT', status: 0, retries: 0, requestId: REQUEST_ID, errorCode: 'UPSTREAM_ERROR' },
    ]);
  });
});

describe('connection pool', () => {
  it('keeps one idle keep-alive connection between calls and closes it on close()', async () => {
    const wire = await setup(ok);

    await wire.client.get('exceptions.list', '/exceptions');
    await new RequestClient(wire.http, TOKEN, 'req-wire-2').get('exceptions.list', '/exceptions');

    expect(wire.server.requests).toHaveLength(2);
    expect(wire.server.connections()).toBe(1);
    await eventually(() => wire.http.socketCounts().idle === 1);
    expect(wire.http.socketCounts()).toEqual({ active: 0, idle: 1 });

    wire.http.close();
    await expectNoSocketsLeft(wire.http, wire.server);
  });

  it('keeps as many idle connections as the pool allows, so the next burst as wide reuses them all', async () => {
    const width = 40;
    const held: (() => void)[] = [];
    const wire = await setup((_request, response) => {
      held.push(() => response.writeHead(200, { 'content-type': 'application/json' }).end(json(PAGE)));
      // Answered together once the whole burst is in: every call has its own connection.
      if (held.length % width === 0) for (const answer of held.splice(0)) answer();
      // Forty requests with the same GET, none shared and none held back by the route's bound: forty calls.
    }, { UPSTREAM_MAX_SOCKETS: '64', UPSTREAM_SHARE_READS: 'false', UPSTREAM_ROUTE_MAX_IN_FLIGHT: '64' });
    const burst = () => Promise.all(Array.from({ length: width }, (_, index) => new RequestClient(wire.http, TOKEN, `req-burst-${index}`).get('exceptions.list', '/exceptions')));

    await burst();
    await eventually(() => wire.http.socketCounts().active === 0);
    expect(wire.http.socketCounts()).toEqual({ active: 0, idle: width });
    await burst();

    expect(wire.server.requests).toHaveLength(2 * width);
    expect(wire.server.connections()).toBe(width);
  });

  it('counts a call in flight as active', async () => {
    let release: () => void = () => {};
    const wire = await setup((request, response, seen) => {
      release = () => ok(request, response, seen);
    });

    const call = wire.client.get('exceptions.list', '/exceptions');
    await eventually(() => wire.server.requests.length === 1);
    expect(wire.http.socketCounts()).toEqual({ active: 1, idle: 0 });
    release();
    await expect(call).resolves.toEqual(PAGE);
    await eventually(() => wire.http.socketCounts().active === 0);
    expect(wire.http.socketCounts()).toEqual({ active: 0, idle: 1 });
  });
});

describe('what the platform sees', () => {
  it('the caller’s Authorization in its canonical spelling, the request id, and JSON accept headers, exactly', async () => {
    const wire = await setup(ok);
    const authorization = 'bearer   abc.DEF-123_x';

    await new RequestClient(wire.http, authorization, 'req-headers-7').get('exceptions.list', '/exceptions');

    expect(wire.server.requests).toHaveLength(1);
    const [seen] = wire.server.requests;
    // One spelling of the scheme and spacing upstream: the platform takes them as one token.
    expect(seen?.headers.authorization).toBe('Bearer abc.DEF-123_x');
    expect(seen?.headers['x-request-id']).toBe('req-headers-7');
    expect(seen?.headers.accept).toBe('application/json');
  });

  it('a PUT body as JSON with its content type', async () => {
    const wire = await setup((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(json({ id: 'd1' })));

    await expect(wire.client.put('documents.update', '/v1/documents/tax', { name: 'Tax', metadata: { k: 'v' } })).resolves.toEqual({ id: 'd1' });

    expect(wire.server.requests).toHaveLength(1);
    const [seen] = wire.server.requests;
    expect(seen?.method).toBe('PUT');
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen?.body ?? '')).toEqual({ name: 'Tax', metadata: { k: 'v' } });
  });

  it('an id with slashes stays one path segment', async () => {
    const wire = await setup((_request, response) => response.writeHead(404).end());
    const client = wire.client;

    const error = await failure(client.get('documents.get', `/v1/documents/${client.segment('../exceptions')}`));

    expect(error.extensions.code).toBe('NOT_FOUND');
    expect(wire.server.requests.map((r) => r.url)).toEqual(['/v1/documents/..%2Fexceptions']);
  });

  it('a canonical query: sorted keys, repeated array values in order, empty values dropped', async () => {
    const wire = await setup(ok);

    await wire.client.get('exceptions.list', '/exceptions', {
      status: ['NEW', 'REOPENED'],
      sort: ['createdAt,DESC', 'id,ASC'],
      page: 0,
      assignedTo: undefined,
      category: null,
      timeZone: 'Europe/Berlin',
    });

    expect(wire.server.requests.map((r) => r.url)).toEqual([
      '/exceptions?page=0&sort=createdAt%2CDESC&sort=id%2CASC&status=NEW&status=REOPENED&timeZone=Europe%2FBerlin',
    ]);
  });
});

describe('what the gateway reads', () => {
  it('a body written in many small chunks, with multi-byte characters split between them, reads whole', async () => {
    const page = { ...PAGE, content: [{ id: 'e1', title: 'Überweisung – 東京 🚀'.repeat(200) }] };
    const bytes = Buffer.from(json(page), 'utf8');
    const wire = await setup((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      // 7-byte pieces cut through the 2-, 3- and 4-byte UTF-8 sequences.
      for (let offset = 0; offset < bytes.length; offset += 7) response.write(bytes.subarray(offset, offset + 7));
      response.end();
    });

    await expect(wire.client.get('exceptions.list', '/exceptions')).resolves.toEqual(page);
  });

  it('a gzip-compressed body is read decompressed, and the platform is told gzip is accepted', async () => {
    const wire = await setup((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(gzipSync(Buffer.from(json(PAGE), 'utf8')));
    });

    await expect(wire.client.get('exceptions.list', '/exceptions')).resolves.toEqual(PAGE);
    expect(wire.server.requests[0]?.headers['accept-encoding']).toContain('gzip');
  });

  it('a body that starts with a UTF-8 byte-order mark reads as the JSON after it', async () => {
    const wire = await setup((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json(PAGE), 'utf8')]));
    });

    await expect(wire.client.get('exceptions.list', '/exceptions')).resolves.toEqual(PAGE);
  });

  it('the body of a failed answer reaches the error mapping after the retries: a 503 retried to the limit keeps its platform code', async () => {
    const wire = await setup((_request, response) =>
      response.writeHead(503, { 'content-type': 'application/json' }).end(json({ errorCode: 'MAINTENANCE', message: 'down for maintenance' })),
    );

    const error = await failure(wire.client.get('exceptions.list', '/exceptions'));

    expect(wire.server.requests).toHaveLength(3);
    expect(error.message).toBe('The platform failed to answer (HTTP 503)');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: { status: 503, errorCode: 'MAINTENANCE' } });
    expect(events.map((event) => [event.status, event.retries, event.errorCode])).toEqual([[503, 2, 'UPSTREAM_ERROR']]);
  });
});

describe('a request that ended before its attempt', () => {
  it('sends nothing once the signal has fired, and rejects with its reason', async () => {
    const wire = await setup(ok);
    const ended = new AbortController();
    ended.abort(new Error('the request ended'));
    const transport = new PlatformTransport(wire.server.url, upstreamSettings());
    try {
      const call = { route: 'exceptions.list', method: 'GET' as const, pathAndQuery: '/exceptions?late=1', authorization: `Bearer ${TOKEN}`, headers: {}, callers: () => 1 };
      await expect(transport.call({ ...call, signal: ended.signal })).rejects.toThrow('the request ended');
      // A later attempt of another request goes: the server saw it alone.
      await transport.call({ ...call, pathAndQuery: '/exceptions?next=1' });
      expect(wire.server.requests.map((request) => request.url)).toEqual(['/exceptions?next=1']);
    } finally {
      transport.close();
    }
  });
});

describe('an outbound proxy', () => {
  const saved = { switch: process.env.NODE_USE_ENV_PROXY, proxy: process.env.HTTP_PROXY };
  afterEach(() => {
    for (const [name, value] of [['NODE_USE_ENV_PROXY', saved.switch], ['HTTP_PROXY', saved.proxy]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  // The platform's host does not resolve: only a proxy that forwards the call can answer it.
  const platformUrl = 'http://platform.invalid/base';

  it('with NODE_USE_ENV_PROXY=1, calls go through HTTP_PROXY with the absolute address and the token', async () => {
    server = await startServer(ok);
    process.env.NODE_USE_ENV_PROXY = '1';
    process.env.HTTP_PROXY = server.url;
    http = new PolicyChain(platformUrl, upstreamSettings({ UPSTREAM_RETRY_LIMIT: '0' }), protectionSettings({}));

    const page = await new RequestClient(http, TOKEN, REQUEST_ID).get('exceptions.list', '/exceptions?page=0');

    expect(page).toEqual(PAGE);
    expect(server.requests.map((r) => `${r.method} ${r.url} ${r.headers.authorization}`)).toEqual([
      `GET http://platform.invalid/base/exceptions?page=0 ${TOKEN}`,
    ]);
  });

  it('without the switch, HTTP_PROXY is not used', async () => {
    server = await startServer(ok);
    delete process.env.NODE_USE_ENV_PROXY;
    process.env.HTTP_PROXY = server.url;
    http = new PolicyChain(platformUrl, upstreamSettings({ UPSTREAM_RETRY_LIMIT: '0', UPSTREAM_CONNECT_TIMEOUT_MS: '2000' }), protectionSettings({}));

    await failure(new RequestClient(http, TOKEN, REQUEST_ID).get('exceptions.list', '/exceptions?page=0'));

    expect(server.requests).toEqual([]);
  });
});
