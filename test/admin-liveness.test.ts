import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSandbox, type Sandbox } from '../sandbox/index.ts';
import { startProductionGateway, type GatewayProcess } from './support/gateway-process.ts';
import { childrenOf, getOnce } from './support/probes.ts';
import { until } from './support/time.ts';

// Liveness that a saturated GraphQL loop cannot delay: the admin listener runs on a thread of its
// own in a process of its own, on the primary's loop in a group of workers (src/process/admin.ts). The
// gateways' main loops are held deterministically (test/support/busy-loop.mjs, on SIGUSR2, until the
// test releases them), as a flood of heavy queries holds them.

const BUSY_LOOP = fileURLToPath(new URL('./support/busy-loop.mjs', import.meta.url));
/** Probes must answer well within a kubelet's default probe timeout (1 s)... */
const PROBE_TIMEOUT_MS = 1_000;
/** ...and readiness within the recipes' 2 s, with its own 1 s wait for the gateway's loop. */
const READY_PROBE_TIMEOUT_MS = 2_000;

interface Answer {
  status: number;
  body: unknown;
}

/** One GET on a fresh connection, its JSON body read. */
async function get(url: string, timeoutMs: number): Promise<Answer> {
  const { status, text } = await getOnce(url, timeoutMs);
  return { status, body: JSON.parse(text) };
}

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

/** A production gateway whose main loops the test can hold, and the folder the loops report through. */
async function holdableGateway(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'busy-loop-'));
  const started = await startProductionGateway({ UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'warn', NODE_OPTIONS: `--import=${BUSY_LOOP}`, BUSY_LOOP_DIR: dir, ...env });
  let held: number[] = [];
  /** Holds the loops of `pids` (the gateway's own by default) until `release`. */
  const hold = async (pids = [started.process.child.pid!]) => {
    held = pids;
    for (const pid of pids) process.kill(pid, 'SIGUSR2');
    await until('the loops are held', () => (pids.every((pid) => existsSync(join(dir, `busy-${pid}`))) ? true : undefined), 20_000);
  };
  const release = async () => {
    writeFileSync(join(dir, 'release'), '');
    await until('the loops are let go', () => (held.every((pid) => existsSync(join(dir, `released-${pid}`))) ? true : undefined), 20_000);
    for (const pid of held) rmSync(join(dir, `busy-${pid}`));
    rmSync(join(dir, 'release'));
  };
  return { ...started, hold, release, dir };
}


describe('a gateway whose event loop is held by work', () => {
  let gateway: GatewayProcess;
  let admin: string;
  let hold: (pids?: number[]) => Promise<void>;
  let release: () => Promise<void>;
  let dir: string;

  beforeAll(async () => {
    // A loop is stuck only after 10 minutes without a turn: everything below happens well within that.
    const started = await holdableGateway({ WORKER_HEARTBEAT_TIMEOUT_MS: '600000' });
    ({ process: gateway, hold, release, dir } = started);
    admin = started.admin!;
  }, 120_000);
  afterAll(async () => {
    writeFileSync(join(dir, 'release'), '');
    await gateway?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers liveness at once while the loop is held, and reports readiness as busy; ready again once let go', async () => {
    expect(await get(`${admin}/healthz`, PROBE_TIMEOUT_MS)).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await get(`${admin}/readyz`, READY_PROBE_TIMEOUT_MS)).toEqual({ status: 200, body: { status: 'ready', breaker: 'closed', upstream: 'reachable' } });

    await hold();
    expect(await get(`${admin}/healthz`, PROBE_TIMEOUT_MS)).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await get(`${admin}/readyz`, READY_PROBE_TIMEOUT_MS)).toEqual({
      status: 503,
      body: { status: 'unavailable', reason: 'busy', detail: "the gateway's event loop did not answer within 1000 ms" },
    });
    expect(await get(`${admin}/healthz`, PROBE_TIMEOUT_MS)).toEqual({ status: 200, body: { status: 'ok' } });

    await release();
    expect(await get(`${admin}/readyz`, READY_PROBE_TIMEOUT_MS)).toEqual({ status: 200, body: { status: 'ready', breaker: 'closed', upstream: 'reachable' } });
    expect(await get(`${admin}/healthz`, PROBE_TIMEOUT_MS)).toEqual({ status: 200, body: { status: 'ok' } });
  }, 120_000);
});

describe('a gateway whose event loop is stuck', () => {
  it('fails liveness once its loop has not turned for WORKER_HEARTBEAT_TIMEOUT_MS, and passes again once it turns', async () => {
    const { process: gateway, admin, hold, release, dir } = await holdableGateway({ WORKER_HEARTBEAT_TIMEOUT_MS: '1000' });
    try {
      expect(await get(`${admin!}/healthz`, PROBE_TIMEOUT_MS)).toEqual({ status: 200, body: { status: 'ok' } });
      await hold();
      const stalled = await until('liveness fails', async () => {
        const answer = await get(`${admin!}/healthz`, PROBE_TIMEOUT_MS);
        return answer.status === 503 ? answer : undefined;
      }, 30_000);
      expect(stalled.body).toEqual({ status: 'stalled', detail: expect.stringMatching(/^the gateway's event loop has not turned for \d+ ms$/) });
      await release();
      expect(await until('liveness passes', async () => {
        const answer = await get(`${admin!}/healthz`, PROBE_TIMEOUT_MS);
        return answer.status === 200 ? answer : undefined;
      }, 30_000)).toEqual({ status: 200, body: { status: 'ok' } });
    } finally {
      writeFileSync(join(dir, 'release'), '');
      await gateway.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('a group of workers (WORKERS=2) whose every worker loop is held by work', () => {
  it('answers liveness from the primary at once, reports readiness as busy, and ready again once let go', async () => {
    const { process: group, admin, hold, release, dir } = await holdableGateway({ WORKERS: '2', WORKER_HEARTBEAT_TIMEOUT_MS: '600000' });
    try {
      const workers = await until('both workers', () => {
        const pids = childrenOf(group.child.pid!);
        return pids.length === 2 ? pids : undefined;
      }, 20_000);
      expect(await get(`${admin!}/readyz`, READY_PROBE_TIMEOUT_MS)).toEqual({ status: 200, body: { status: 'ready', breaker: 'closed', upstream: 'reachable' } });
      await hold(workers);
      expect(await get(`${admin!}/healthz`, PROBE_TIMEOUT_MS)).toEqual({ status: 200, body: { status: 'ok' } });
      expect(await get(`${admin!}/readyz`, READY_PROBE_TIMEOUT_MS)).toEqual({
        status: 503,
        body: { status: 'unavailable', reason: 'busy', detail: "the gateway's event loop did not answer within 1000 ms" },
      });
      await release();
      for (let i = 0; i < 2; i++) expect(await get(`${admin!}/readyz`, READY_PROBE_TIMEOUT_MS)).toEqual({ status: 200, body: { status: 'ready', breaker: 'closed', upstream: 'reachable' } });
      expect(await get(`${admin!}/healthz`, PROBE_TIMEOUT_MS)).toEqual({ status: 200, body: { status: 'ok' } });
    } finally {
      writeFileSync(join(dir, 'release'), '');
      await group.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
