import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { testConfig } from '../../src/settings/config.ts';
import { createLogger } from '../../src/logger.ts';
import type { UpstreamCallEvent } from '../../src/platform/policy-chain.ts';
import { SharedReads } from '../../src/platform/shared-reads.ts';
import type { Answer as PlatformAnswer, Exchange } from '../../src/platform/upstream-call.ts';
import { startGateway, type Gateway } from '../../src/server.ts';
import { bearer, postGraphQL, type GraphQLBody } from '../support/graphql-client.ts';
import { eventually } from './support.ts';

// Identical platform GETs of concurrent GraphQL requests share one call while it is in flight. The
// gateway runs over the sandbox through a proxy that holds every platform request until the test
// releases it, so which requests overlap is decided by the test, not by timing.

interface HeldRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  /** The `x-request-id` the gateway sent with the call. */
  requestId: string | undefined;
  /** The gateway closed this call's connection before it was answered. */
  closedEarly: boolean;
}

interface HoldingProxy {
  url: string;
  requests: HeldRequest[];
  /** Forwards every held request to the sandbox (and every later one at once). */
  release(): void;
  /** Holds every later request again, until the next release. */
  hold(): void;
  /** Answers every held request (and every later one) with `status` and an empty body, instead of the sandbox. */
  fail(status: number): void;
  close(): Promise<void>;
}

async function holdingProxy(target: string): Promise<HoldingProxy> {
  const requests: HeldRequest[] = [];
  let held: (() => void)[] = [];
  let releasing = false;
  let failing: number | undefined;
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const requestId = req.headers['x-request-id'];
    const seen: HeldRequest = { method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, requestId: typeof requestId === 'string' ? requestId : undefined, closedEarly: false };
    requests.push(seen);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('close', () => {
      if (!res.writableFinished) seen.closedEarly = true;
    });
    const forward = () => {
      if (seen.closedEarly) return;
      if (failing !== undefined) {
        res.writeHead(failing).end();
        return;
      }
      const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      // The sandbox may be gone by the time a held request is forwarded (a test that failed early
      // closed it): the held caller then sees its connection drop, and nothing throws in the worker.
      upstream.on('error', () => res.destroy());
      upstream.end(Buffer.concat(chunks));
    };
    req.on('end', () => (releasing ? forward() : held.push(forward)));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const release = () => {
    releasing = true;
    const waiting = held;
    held = [];
    for (const forward of waiting) forward();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    release,
    hold: () => (releasing = false),
    fail(status) {
      failing = status;
      release();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let sandbox: Sandbox | undefined;
let proxy: HoldingProxy | undefined;
let gateway: Gateway | undefined;

async function setup(env: Record<string, string> = {}) {
  sandbox = await startSandbox({ scanDelayMs: 50 });
  proxy = await holdingProxy(sandbox.url);
  gateway = await startGateway(testConfig(env), proxy.url, { logger: createLogger('silent') });
  const token = (name: string) => sandbox!.tokens.find((t) => t.businessAccountName.toLowerCase().includes(name))!.token;
  return { sandbox, proxy, gateway, acme: token('acme'), globex: token('globex') };
}

afterEach(async () => {
  await gateway?.close();
  await new Promise<void>((resolve) => (gateway ? gateway.server.close(() => resolve()) : resolve()));
  await proxy?.close();
  await sandbox?.close();
  gateway = undefined;
  proxy = undefined;
  sandbox = undefined;
});

type Answer = GraphQLBody;

/** The body of the gateway's answer to the caller with `token`: what the tests compare across callers. */
async function post(url: string, token: string, query: string, options: { variables?: Record<string, unknown>; requestId?: string; signal?: AbortSignal } = {}): Promise<Answer> {
  const headers = options.requestId === undefined ? bearer(token) : { ...bearer(token), 'x-request-id': options.requestId };
  return (await postGraphQL(`${url}/graphql`, { query, variables: options.variables }, headers, options.signal)).body;
}

const EXCEPTIONS = '{ exceptions(first: 3) { totalCount nodes { id status } } }';

/** What the gateway answers for `query` with nothing held and nothing shared: the answer each caller must get. */
async function alone(token: string, query = EXCEPTIONS): Promise<Answer> {
  proxy!.release();
  return post(gateway!.url, token, query);
}

describe('identical reads of concurrent requests', () => {
  it('20 identical requests make one platform call, and all 20 get the same data', async () => {
    const wire = await setup();
    const answers = Array.from({ length: 20 }, (_, i) => post(wire.gateway.url, wire.acme, EXCEPTIONS, { requestId: `same-${i}` }));
    await eventually(() => wire.proxy.requests.length === 20 || wire.gateway.http.sharedReads().callers === 20, 10_000);
    wire.proxy.release();
    const results = await Promise.all(answers);

    expect(wire.proxy.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /exceptions?page=0&size=3']);
    const expected = await alone(wire.acme);
    expect((expected.data!.exceptions as { totalCount: number; nodes: unknown[] }).totalCount).toBe(300);
    expect((expected.data!.exceptions as { nodes: unknown[] }).nodes).toHaveLength(3);
    for (const result of results) expect(result).toEqual(expected);
    // The call settled: nothing is left to join, and the next identical request called again.
    expect(wire.gateway.http.sharedReads()).toEqual({ calls: 0, callers: 0 });
    expect(wire.proxy.requests).toHaveLength(2);
    // Metrics count calls, not callers: 2 calls, 19 answers shared.
    const metrics = await (await fetch(`${wire.gateway.url}/metrics`)).text();
    expect(metrics.split('\n').filter((line) => /^upstream_(shared_calls|requests)_total\{/.test(line))).toEqual([
      'upstream_requests_total{route="exceptions.list",method="GET",status="200"} 2',
      'upstream_shared_calls_total{route="exceptions.list"} 19',
    ]);
  });

  it('a failed shared call: each caller’s error and call event carry its own request id, the call its starter’s', async () => {
    const wire = await setup();
    const events: UpstreamCallEvent[] = [];
    wire.gateway.http.observe((event) => events.push(event));
    const ids = ['starter', 'joiner-1', 'joiner-2', 'joiner-3'];
    const first = post(wire.gateway.url, wire.acme, EXCEPTIONS, { requestId: ids[0] });
    await eventually(() => wire.proxy.requests.length === 1, 10_000);
    const joiners = ids.slice(1).map((requestId) => post(wire.gateway.url, wire.acme, EXCEPTIONS, { requestId }));
    await eventually(() => wire.gateway.http.sharedReads().callers === ids.length, 10_000);
    // 500 is not retried: one call, whose one failure every caller shares.
    wire.proxy.fail(500);
    const results = await Promise.all([first, ...joiners]);

    expect(wire.proxy.requests.map((r) => [r.url, r.requestId])).toEqual([['/exceptions?page=0&size=3', 'starter']]);
    expect(results.map((result) => (result.errors as { extensions: unknown }[]).map((error) => error.extensions))).toEqual(
      ids.map((requestId) => [{ code: 'UPSTREAM_ERROR', requestId, upstream: { status: 500 } }]),
    );
    expect(events.map((e) => [e.requestId, e.shared ?? false, e.status, e.errorCode]).sort()).toEqual([
      ['joiner-1', true, 500, 'UPSTREAM_ERROR'],
      ['joiner-2', true, 500, 'UPSTREAM_ERROR'],
      ['joiner-3', true, 500, 'UPSTREAM_ERROR'],
      ['starter', false, 500, 'UPSTREAM_ERROR'],
    ]);
  });

  it('never across tokens: 10 + 10 requests of two tenants make one call each, and each caller gets its own tenant’s rows', async () => {
    const wire = await setup();
    const tokens = [...Array<string>(10).fill(wire.acme), ...Array<string>(10).fill(wire.globex)];
    const answers = tokens.map((token) => post(wire.gateway.url, token, EXCEPTIONS));
    await eventually(() => wire.proxy.requests.length === 20 || wire.gateway.http.sharedReads().callers === 20, 10_000);
    wire.proxy.release();
    const results = await Promise.all(answers);

    expect(wire.proxy.requests.map((r) => r.authorization).sort()).toEqual([`Bearer ${wire.acme}`, `Bearer ${wire.globex}`].sort());
    const acme = await alone(wire.acme);
    const globex = await alone(wire.globex);
    expect([acme.data!.exceptions, globex.data!.exceptions].map((e) => (e as { totalCount: number }).totalCount)).toEqual([300, 260]);
    expect(results).toEqual([...Array<Answer>(10).fill(acme), ...Array<Answer>(10).fill(globex)]);
  });

  it('a caller that hangs up does not fail the others sharing its call', async () => {
    const wire = await setup();
    const quitter = new AbortController();
    const gone = post(wire.gateway.url, wire.acme, EXCEPTIONS, { signal: quitter.signal }).catch((error: Error) => error.name);
    const staying = [post(wire.gateway.url, wire.acme, EXCEPTIONS), post(wire.gateway.url, wire.acme, EXCEPTIONS)];
    await eventually(() => wire.proxy.requests.length === 3 || wire.gateway.http.sharedReads().callers === 3, 10_000);

    quitter.abort();
    expect(await gone).toBe('AbortError');
    await eventually(() => wire.proxy.requests.length === 3 || wire.gateway.http.sharedReads().callers === 2);
    wire.proxy.release();
    const results = await Promise.all(staying);

    expect(wire.proxy.requests.map((r) => [r.url, r.closedEarly])).toEqual([['/exceptions?page=0&size=3', false]]);
    const expected = await alone(wire.acme);
    expect(results).toEqual([expected, expected]);
  });

  it('the call is stopped once every caller waiting on it has gone, and the next request calls afresh', async () => {
    const wire = await setup();
    const callers = [new AbortController(), new AbortController()];
    const gone = callers.map((caller) => post(wire.gateway.url, wire.acme, EXCEPTIONS, { signal: caller.signal }).catch((error: Error) => error.name));
    await eventually(() => wire.gateway.http.sharedReads().callers === 2 && wire.proxy.requests.length === 1, 10_000);

    callers[0]!.abort();
    expect(await gone[0]).toBe('AbortError');
    expect(wire.proxy.requests[0]!.closedEarly).toBe(false);
    callers[1]!.abort();
    expect(await gone[1]).toBe('AbortError');
    await eventually(() => wire.proxy.requests[0]!.closedEarly);
    expect(wire.gateway.http.sharedReads()).toEqual({ calls: 0, callers: 0 });

    const expected = await alone(wire.acme);
    expect((expected.data!.exceptions as { totalCount: number }).totalCount).toBe(300);
    expect(wire.proxy.requests.map((r) => [r.url, r.closedEarly])).toEqual([
      ['/exceptions?page=0&size=3', true],
      ['/exceptions?page=0&size=3', false],
    ]);
  });

  it('never shares a PUT: two identical concurrent updateDocument mutations make two PUTs', async () => {
    const wire = await setup();
    const account = wire.sandbox.tokens.find((t) => t.token === wire.acme)!.businessAccountId;
    const document = wire.sandbox.store.documents(account).find((d) => d.documentType === 'other')!;
    const mutation = 'mutation($input: UpdateDocumentInput!) { updateDocument(input: $input) { document { id name description } userErrors { code } } }';
    const input = { id: document.id, documentType: 'OTHER', name: 'Lease', description: 'Office lease' };
    const answers = [1, 2].map(() => post(wire.gateway.url, wire.acme, mutation, { variables: { input } }));
    await eventually(() => wire.proxy.requests.length === 2, 10_000);
    wire.proxy.release();

    const updated = { updateDocument: { document: { id: document.id, name: 'Lease', description: 'Office lease' }, userErrors: [] } };
    expect(await Promise.all(answers)).toEqual([{ data: updated }, { data: updated }]);
    expect(wire.proxy.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`PUT /v1/documents/${document.id}`, `PUT /v1/documents/${document.id}`]);
  });

  it('UPSTREAM_SHARE_READS=false: 20 identical requests make 20 calls', async () => {
    const wire = await setup({ UPSTREAM_SHARE_READS: 'false' });
    // The token accepted first: an unknown token's calls go one at a time (src/platform/token-verdicts.ts).
    const expected = await alone(wire.acme);
    wire.proxy.hold();
    const answers = Array.from({ length: 20 }, () => post(wire.gateway.url, wire.acme, EXCEPTIONS));
    await eventually(() => wire.proxy.requests.length === 1 + 20, 10_000);
    expect(wire.gateway.http.sharedReads()).toEqual({ calls: 0, callers: 0 });
    wire.proxy.release();
    const results = await Promise.all(answers);

    expect(wire.proxy.requests.map((r) => r.url)).toEqual(Array<string>(1 + 20).fill('/exceptions?page=0&size=3'));
    expect(results).toEqual(Array<Answer>(20).fill(expected));
  });
});

describe('SharedReads on its own', () => {
  const answer = { status: 200 } as unknown as PlatformAnswer;

  /** A call that settles only when the test says, and remembers the signal it was given. */
  function heldExchange() {
    const call = Promise.withResolvers<PlatformAnswer>();
    let signal: AbortSignal | undefined;
    const exchange: Exchange = (given) => {
      signal = given;
      given?.addEventListener('abort', () => call.reject(given.reason), { once: true });
      return call.promise;
    };
    return { exchange, settle: call.resolve, signal: () => signal };
  }

  it('joins() is true only for the same credentials and path while the read is in flight, and never when sharing is off', async () => {
    const reads = new SharedReads(true);
    const acme = reads.credentialKey('Bearer acme');
    const held = heldExchange();
    const read = reads.start(`${acme} /exceptions?page=0`, held.exchange);
    expect([
      reads.joins(acme, '/exceptions?page=0'),
      reads.joins(acme, '/exceptions?page=1'),
      reads.joins(reads.credentialKey('Bearer globex'), '/exceptions?page=0'),
    ]).toEqual([true, false, false]);
    held.settle(answer);
    await read.answer;
    expect(reads.joins(acme, '/exceptions?page=0')).toBe(false);

    const off = new SharedReads(false);
    const offKey = off.credentialKey('Bearer acme');
    off.start(`${offKey} /exceptions?page=0`, heldExchange().exchange);
    expect(off.joins(offKey, '/exceptions?page=0')).toBe(false);
  });

  it('a caller that leaves is refused with its own reason at once; the last to leave stops the call with its reason and frees the key before the call settles', async () => {
    const reads = new SharedReads(true);
    const held = heldExchange();
    const read = reads.start('k /exceptions', held.exchange);
    const first = new AbortController();
    const second = new AbortController();
    const outcome = (wait: Promise<PlatformAnswer>) => wait.then(() => 'answered', (error: Error) => error.message);
    const waits = [outcome(reads.wait(read, first.signal)), outcome(reads.wait(read, second.signal))];
    expect(reads.counts()).toEqual({ calls: 1, callers: 2 });

    first.abort(new Error('first gone'));
    expect(await waits[0]).toBe('first gone');
    expect([held.signal()?.aborted, reads.counts()]).toEqual([false, { calls: 1, callers: 1 }]);

    second.abort(new Error('second gone'));
    // Synchronously on the last leave: the key is free for a fresh call and the call is stopped.
    expect([reads.inFlight('k /exceptions'), held.signal()?.aborted, (held.signal()?.reason as Error | undefined)?.message]).toEqual([undefined, true, 'second gone']);
    expect([await waits[1], await outcome(read.answer)]).toEqual(['second gone', 'second gone']);
  });

  it('a caller whose signal never fires gets the shared answer, and its listener is removed', async () => {
    const reads = new SharedReads(true);
    const held = heldExchange();
    const read = reads.start('k /linx', held.exchange);
    const caller = new AbortController();
    const wait = reads.wait(read, caller.signal);
    held.settle(answer);
    expect(await wait).toBe(answer);
    // Aborting afterwards changes nothing: the caller already left with its answer.
    caller.abort(new Error('late'));
    expect([read.callers, reads.counts()]).toEqual([1, { calls: 0, callers: 0 }]);
  });
});
