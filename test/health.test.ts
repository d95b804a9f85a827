import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { testConfig } from '../src/settings/config.ts';
import { createLogger } from '../src/logger.ts';
import { startGateway, type Gateway } from '../src/server.ts';
import { accountOf } from './support/expected.ts';
import { startStack, type Stack } from './support/stack.ts';
import { sleep } from './support/time.ts';

const INBOX = '{ exceptions(first: 1) { nodes { id } } }';

async function readyz(url: string): Promise<{ status: number; body: unknown; cacheControl: string | null }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: await response.json(), cacheControl: response.headers.get('cache-control') };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function stack(env: Record<string, string>): Promise<Stack> {
  const s = await startStack(env);
  cleanups.push(() => s.close());
  return s;
}

describe('GET /readyz', () => {
  it('is 200 while the sandbox runs and 503 with the reason once it has stopped; /healthz stays 200', async () => {
    const s = await stack({ READY_CACHE_MS: '0' });
    expect(await readyz(s.gateway.url)).toEqual({ status: 200, body: { status: 'ready', breaker: 'closed', upstream: 'reachable' }, cacheControl: 'no-store' });

    await s.sandbox.close();
    expect(await readyz(s.gateway.url)).toEqual({
      status: 503,
      body: { status: 'unavailable', reason: 'upstream unreachable', breaker: 'closed', detail: 'ECONNREFUSED' },
      cacheControl: 'no-store',
    });
    const health = await fetch(`${s.gateway.url}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
  });

  it('stays ready while one route\'s breaker is open, names that route, and every other route keeps answering', async () => {
    // The production defaults (5 consecutive failures), with a cool-down longer than the test.
    const s = await stack({ READY_CACHE_MS: '0', UPSTREAM_BREAKER_COOLDOWN_MS: '60000' });
    s.sandbox.faults.set('exceptions', { status: 500 });
    for (let i = 0; i < 5; i++) expect((await s.gql(INBOX)).body.errors?.[0]?.message).toBe('The platform failed to answer (HTTP 500)');

    expect(await readyz(s.gateway.url)).toEqual({
      status: 200,
      body: { status: 'ready', breaker: 'open', upstream: 'reachable', routes: { exceptions: 'open' } },
      cacheControl: 'no-store',
    });

    // Another tenant's document: its route has its own breaker, still closed.
    const document = s.sandbox.store.documents(accountOf(s.sandbox, s.globex))[0]!;
    s.sandbox.resetRequests();
    const answer = await s.gql('query($id: ID!) { document(id: $id) { id name } }', { id: document.id }, { token: s.globex });
    expect(answer.body).toEqual({ data: { document: { id: document.id, name: document.name } } });
    expect(s.platformCalls().map((r) => [r.method, r.path])).toEqual([['GET', `/v1/documents/${document.id}`]]);

    // The failing route itself fails fast, without a platform call.
    s.sandbox.resetRequests();
    const paused = await s.gql(INBOX);
    expect(paused.body.errors?.[0]?.message).toBe('The platform is failing; calls are paused for a short cool-down');
    expect(paused.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
    expect(s.platformCalls()).toEqual([]);
  });

  describe('probe', () => {
    /** A TCP listener standing in for the platform, counting the connections it accepts. */
    async function fakePlatform(): Promise<{ url: string; connections: () => number }> {
      let count = 0;
      const sockets = new Set<Socket>();
      const server = createServer((socket) => {
        count++;
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      cleanups.push(async () => {
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      });
      return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => count };
    }

    async function gatewayOver(url: string, env: Record<string, string>): Promise<Gateway> {
      const gateway = await startGateway(testConfig(env), url, { logger: createLogger('silent') });
      cleanups.push(async () => {
        await gateway.close();
      });
      return gateway;
    }

    it('reuses a result for READY_CACHE_MS and shares one probe among concurrent polls', async () => {
      const platform = await fakePlatform();
      const gateway = await gatewayOver(platform.url, { READY_CACHE_MS: '60000' });
      const answers = await Promise.all([readyz(gateway.url), readyz(gateway.url), readyz(gateway.url)]);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect((await readyz(gateway.url)).status).toBe(200);
      await sleep(50);
      expect(platform.connections()).toBe(1);
    });

    it('probes again on every poll with READY_CACHE_MS=0', async () => {
      const platform = await fakePlatform();
      const gateway = await gatewayOver(platform.url, { READY_CACHE_MS: '0' });
      for (let i = 0; i < 3; i++) expect((await readyz(gateway.url)).status).toBe(200);
      await sleep(50);
      expect(platform.connections()).toBe(3);
    });
  });
});
