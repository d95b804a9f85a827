import { createServer, type Server } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startGatewayProcess, startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { childrenOf } from '../support/probes.ts';
import { sleep, until } from '../support/time.ts';
import { graphql, logLines, send } from './support/http.ts';

// The process group as `npm start` runs it with WORKERS=2: a primary and two gateway workers.


const lines = (group: GatewayProcess, msg: string) => logLines(group.stdout()).filter((line) => line.msg === msg);

/** Pids of the workers whose log shows a request with one of `requestIds` (log lines are flushed within 100 ms). */
async function servedBy(group: GatewayProcess, requestIds: string[]): Promise<Map<number, number>> {
  const wanted = new Set(requestIds);
  const served = () => lines(group, 'graphql request').filter((line) => wanted.has(line.requestId as string));
  await until('every request logged', () => (served().length === requestIds.length ? true : undefined), 20_000);
  const counts = new Map<number, number>();
  for (const line of served()) counts.set(line.pid as number, (counts.get(line.pid as number) ?? 0) + 1);
  return counts;
}

const QUERY = 'query Counted { exceptions(first: 2) { nodes { id } } }';

describe('WORKERS=2 over the embedded sandbox', () => {
  let group: GatewayProcess;
  let origin: string;
  let admin: string;
  let platform: string;
  let pids: number[];
  let expected: unknown;

  beforeAll(async () => {
    const gateway = await startProductionGateway({ WORKERS: '2', LOG_LEVEL: 'info', SHUTDOWN_DELAY_MS: '1500' }, 40_000);
    ({ process: group, origin } = gateway);
    admin = gateway.admin!;
    platform = gateway.platform!;
    const started = await until('the workers-started line', () => lines(group, 'workers started')[0], 20_000);
    pids = (started.pids as number[]).sort();
    const reference = await startSandbox();
    const ids = reference.store.exceptions(reference.tokens[0]!.businessAccountId).slice(0, 2).map((r) => r.id);
    await reference.close();
    expected = { data: { exceptions: { nodes: ids.map((id) => ({ id })) } } };
  }, 120_000);
  afterAll(async () => {
    await group?.stop();
  });

  it('runs two worker processes, both serving, over one sandbox that lives in the primary', async () => {
    expect(pids).toHaveLength(2);
    // The primary's only children are the two workers: no sandbox process, no third gateway.
    expect(childrenOf(group.child.pid!)).toEqual(pids);

    const requestIds = Array.from({ length: 10 }, (_, i) => `workers-spread-${i}`);
    for (const id of requestIds) {
      const answer = await graphql(origin, QUERY, { 'x-request-id': id });
      expect(answer.status).toBe(200);
      expect(answer.json()).toEqual(expected);
    }
    const served = await servedBy(group, requestIds);
    expect([...served.keys()].sort()).toEqual(pids);

    // Every worker's platform calls reached the primary's sandbox, the one the banner names.
    const recorded = (await (await fetch(`${platform}/__sandbox/requests?detail=1`)).json()) as { requests: { requestId?: string }[] };
    const seen = new Set(recorded.requests.map((r) => r.requestId));
    expect(requestIds.filter((id) => !seen.has(id))).toEqual([]);
  }, 120_000);

  it('answers /metrics for the whole group: a counter summed over the workers equals the requests sent', async () => {
    const requestIds = Array.from({ length: 12 }, (_, i) => `workers-metrics-${i}`);
    for (const id of requestIds) expect((await graphql(origin, QUERY, { 'x-request-id': id })).status).toBe(200);
    const served = await servedBy(group, requestIds);
    expect(served.size).toBe(2);
    // 10 requests of the first test and these 12, whichever worker served them and whichever answers the scrape.
    for (let scrape = 0; scrape < 4; scrape++) {
      const metrics = await send(`${admin}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.text).toMatch(/^graphql_requests_total\{operation="Counted",outcome="ok"\} 22$/m);
      expect(metrics.text).toMatch(/^gateway_workers 2$/m);
      expect(metrics.text).toMatch(/^gateway_worker_restarts_total 0$/m);
      expect(metrics.text).toMatch(/^upstream_breaker_state 0$/m);
    }
  }, 120_000);

  it('reports ready on every worker', async () => {
    for (let i = 0; i < 4; i++) {
      const ready = await send(`${admin}/readyz`);
      expect([ready.status, ready.json()]).toEqual([200, { status: 'ready', breaker: 'closed', upstream: 'reachable' }]);
    }
  });

  it('replaces a worker that was killed, and the group keeps serving', async () => {
    const [victim, survivor] = pids as [number, number];
    process.kill(victim, 'SIGKILL');
    const replaced = await until(
      'a replacement worker',
      () => lines(group, 'worker listening').find((line) => !pids.includes(line.pid as number)),
      20_000,
    );
    const replacement = replaced.pid as number;
    expect(lines(group, 'worker exited unexpectedly: starting another')).toEqual([expect.objectContaining({ pid: victim, signal: 'SIGKILL', code: null, level: 50 })]);
    expect(childrenOf(group.child.pid!)).toEqual([survivor, replacement].sort());

    const requestIds = Array.from({ length: 8 }, (_, i) => `workers-replaced-${i}`);
    for (const id of requestIds) {
      const answer = await graphql(origin, QUERY, { 'x-request-id': id });
      expect([answer.status, answer.json()]).toEqual([200, expected]);
    }
    expect([...(await servedBy(group, requestIds)).keys()].sort()).toEqual([survivor, replacement].sort());
    const metrics = await send(`${admin}/metrics`);
    expect(metrics.text).toMatch(/^gateway_worker_restarts_total 1$/m);
    expect(metrics.text).toMatch(/^gateway_workers 2$/m);
    pids = [survivor, replacement].sort();
  }, 120_000);

  it('on SIGTERM turns unready, keeps serving for SHUTDOWN_DELAY_MS, drains in-flight requests on every worker and exits 0', async () => {
    // Platform calls wait 4 s: two queries are in flight, on different connections, when the signal arrives.
    await fetch(`${platform}/__sandbox/faults`, { method: 'POST', body: JSON.stringify({ route: 'exceptions', fault: { latencyMs: 4000 } }) });
    const inFlight = [0, 1].map((i) => graphql(origin, QUERY, { 'x-request-id': `workers-drain-${i}` }));
    await until('both queries at the platform', async () => {
      const log = (await (await fetch(`${platform}/__sandbox/requests?detail=1`)).json()) as { requests: { requestId?: string }[] };
      return log.requests.filter((r) => r.requestId?.startsWith('workers-drain-')).length === 2 ? true : undefined;
    }, 10_000);
    await fetch(`${platform}/__sandbox/faults?route=exceptions`, { method: 'DELETE' });

    process.kill(group.child.pid!, 'SIGTERM');
    await until('every worker shutting down', () => (lines(group, 'shutting down').filter((l) => l.worker !== undefined).length === 2 ? true : undefined), 20_000);
    // During the delay: unready, and still serving new requests.
    const ready = await send(`${admin}/readyz`);
    expect([ready.status, ready.json()]).toEqual([503, { status: 'unavailable', reason: 'shutting down', breaker: 'closed' }]);
    const during = await graphql(origin, QUERY);
    expect([during.status, during.json()]).toEqual([200, expected]);

    for (const answer of await Promise.all(inFlight)) expect([answer.status, answer.json()]).toEqual([200, expected]);
    expect(await group.exited).toBe(0);
    expect(lines(group, 'worker stopped').map((l) => [l.pid, l.code, l.signal]).sort()).toEqual(pids.map((pid) => [pid, 0, null]));
    expect(lines(group, 'stopped').filter((l) => l.worker === undefined)).toEqual([expect.objectContaining({ exitCode: 0 })]);
    expect(group.stderr()).toBe('');
    await expect(send(`${admin}/healthz`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  }, 120_000);
});

describe('a worker group that keeps crashing', () => {
  let sandbox: Sandbox;
  let blocker: Server;
  let group: GatewayProcess | undefined;

  beforeAll(async () => {
    sandbox = await startSandbox();
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  });
  afterEach(async () => {
    await group?.stop();
  });
  afterAll(async () => {
    await new Promise((resolve) => blocker.close(resolve));
    await sandbox.close();
  });

  it('gives up at the crash limit: logs at fatal, stops the others and exits non-zero', async () => {
    // Every worker fails to listen (the port is taken) and exits 1: a crash loop.
    const { port } = blocker.address() as { port: number };
    group = startGatewayProcess({ WORKERS: '2', NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'info' });
    expect(await group.exited).toBe(1);
    const exits = lines(group, 'worker exited unexpectedly: starting another');
    // Back-off doubles from 250 ms with each exit within the window.
    expect(exits.map((line) => line.restartInMs)).toEqual([250, 500, 1000, 2000, 4000]);
    expect(exits.every((line) => line.code === 1)).toBe(true);
    expect(lines(group, 'workers keep exiting: giving up')).toEqual([expect.objectContaining({ level: 60, exits: 6, windowMs: 60_000 })]);
    expect(lines(group, 'stopped')).toEqual([expect.objectContaining({ exitCode: 1 })]);
    expect(lines(group, 'workers started')).toEqual([]);
    expect(group.stderr()).toContain(`Port ${port} on 127.0.0.1 is already in use`);
    await sleep(100);
  }, 120_000);
});
