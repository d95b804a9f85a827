import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { loadConfig } from '../src/settings/config.ts';
import { startSandbox, type Sandbox } from '../sandbox/index.ts';
import { startGatewayProcess, startProductionGateway, type GatewayProcess } from './support/gateway-process.ts';
import { getOnce as get } from './support/probes.ts';
import { until } from './support/time.ts';

// The admin listener (ADMIN_PORT, ADMIN_HOST) on the real process in production mode: health,
// readiness and metrics on a port of their own, outside the public port's MAX_CONNECTIONS.

const MAX_CONNECTIONS = 5;
/** Probes must answer well within a kubelet's default probe timeout (1 s). */
const PROBE_TIMEOUT_MS = 1_000;



/** Opens a keep-alive connection and sends GET /healthz on it; resolves with the status line ('' when the server closed it instead). */
function holdConnection(port: number): Promise<{ socket: Socket; status: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const done = () => resolve({ socket, status: received.split('\r\n')[0] ?? '' });
    socket.setEncoding('latin1');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (received.includes('{"status":"ok"}')) done();
    });
    socket.once('close', done);
    socket.once('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n'));
  });
}

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

describe('the admin listener in production', () => {
  let gateway: GatewayProcess;
  let origin: string;
  let admin: string;

  beforeAll(async () => {
    const started = await startProductionGateway({ UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'warn', MAX_CONNECTIONS: String(MAX_CONNECTIONS) });
    ({ process: gateway, origin } = started);
    admin = started.admin!;
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
  });

  it('prints its address in the banner, beside the GraphQL endpoint', () => {
    expect(admin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(admin).not.toBe(origin);
    expect(gateway.stdout()).toContain(`\nAdmin (health, readiness, metrics): ${admin}\n`);
  });

  it('answers /healthz, /readyz and /metrics within a second while every public connection is held', async () => {
    const held: Socket[] = [];
    try {
      for (let i = 0; i < MAX_CONNECTIONS; i++) {
        const { socket, status } = await holdConnection(Number(new URL(origin).port));
        held.push(socket);
        expect(status).toBe('HTTP/1.1 200 OK');
      }
      // The public port is full: one more connection is closed unanswered.
      const refused = await holdConnection(Number(new URL(origin).port));
      held.push(refused.socket);
      expect(refused.status).toBe('');

      const health = await get(`${admin}/healthz`, PROBE_TIMEOUT_MS);
      expect([health.status, health.contentType, JSON.parse(health.text)]).toEqual([200, 'application/json; charset=utf-8', { status: 'ok' }]);
      const ready = await get(`${admin}/readyz`, PROBE_TIMEOUT_MS);
      expect([ready.status, JSON.parse(ready.text)]).toEqual([200, { status: 'ready', breaker: 'closed', upstream: 'reachable' }]);
      const metrics = await get(`${admin}/metrics`, PROBE_TIMEOUT_MS);
      expect([metrics.status, metrics.contentType]).toEqual([200, 'text/plain; version=0.0.4; charset=utf-8']);
      expect(metrics.text).toMatch(/^upstream_breaker_state 0$/m);
    } finally {
      for (const socket of held) socket.destroy();
      // The gateway learns of the closes a moment later; until then it still counts the port full
      // and would close the next test's connection unanswered.
      await until('the public port serves again', () => get(`${origin}/healthz`).catch(() => undefined), 20_000);
    }
  }, 120_000);

  it('leaves /metrics off the public port (404), which keeps /healthz and /readyz', async () => {
    const metrics = await get(`${origin}/metrics`);
    expect(metrics.status).toBe(404);
    expect(metrics.text).not.toContain('upstream_breaker_state');
    const health = await get(`${origin}/healthz`);
    expect([health.status, JSON.parse(health.text)]).toEqual([200, { status: 'ok' }]);
    const ready = await get(`${origin}/readyz`);
    expect([ready.status, JSON.parse(ready.text)]).toEqual([200, { status: 'ready', breaker: 'closed', upstream: 'reachable' }]);
  });

  it('serves nothing else: GraphQL and unknown paths are 404 there, other methods 405', async () => {
    for (const path of ['/graphql', '/', '/metricsx']) {
      const answer = await get(`${admin}${path}`);
      expect([answer.status, JSON.parse(answer.text)]).toEqual([404, { error: 'not found: the admin port serves GET /healthz, /readyz and /metrics' }]);
    }
    const post = await fetch(`${admin}/healthz`, { method: 'POST', body: '{}' });
    expect([post.status, post.headers.get('allow'), await post.json()]).toEqual([405, 'GET, HEAD', { error: 'method not allowed' }]);
  });
});

describe('ADMIN_PORT=off', () => {
  it('starts no admin listener and keeps /metrics on the public port, as before', async () => {
    const { process: gateway, origin, admin } = await startProductionGateway({ UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'warn', ADMIN_PORT: 'off' });
    try {
      expect(admin).toBeUndefined();
      expect(gateway.stdout()).toContain('\nAdmin: off (ADMIN_PORT=off; health, readiness, metrics on the GraphQL port)\n');
      const metrics = await get(`${origin}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.text).toMatch(/^upstream_breaker_state 0$/m);
    } finally {
      await gateway.stop();
    }
  }, 120_000);
});

describe('a taken admin port', () => {
  let blocker: Server;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => blocker.close(resolve));
  });

  it('stops start-up with a message naming ADMIN_PORT', async () => {
    const { port } = blocker.address() as { port: number };
    const gateway = startGatewayProcess({ NODE_ENV: 'production', HOST: '127.0.0.1', PORT: '0', ADMIN_PORT: String(port), UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'warn' });
    try {
      expect(await Promise.race([gateway.exited, new Promise((resolve) => setTimeout(resolve, 20_000, 'still running'))])).toBe(1);
      expect(gateway.stderr()).toBe(`Port ${port} on 127.0.0.1 is already in use: choose another with ADMIN_PORT (0 picks a free one)\n`);
    } finally {
      await gateway.stop();
    }
  }, 120_000);
});

describe('ADMIN_PORT and ADMIN_HOST', () => {
  it('default to 9090 on loopback; `off` and `0` are read as such, anything else is refused', () => {
    expect(loadConfig({}).admin).toEqual({ port: 9090, host: '127.0.0.1' });
    expect(loadConfig({ ADMIN_PORT: 'off' }).admin).toEqual({ port: 'off', host: '127.0.0.1' });
    expect(loadConfig({ ADMIN_PORT: '0', ADMIN_HOST: '0.0.0.0' }).admin).toEqual({ port: 0, host: '0.0.0.0' });
    expect(() => loadConfig({ ADMIN_PORT: 'no' })).toThrow('ADMIN_PORT');
    expect(() => loadConfig({ ADMIN_PORT: '70000' })).toThrow('ADMIN_PORT');
  });
});
