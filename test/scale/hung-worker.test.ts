import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { sleep, until } from '../support/time.ts';
import { graphql, logLines, send } from './support/http.ts';

// WORKERS=2 as `npm start` runs it, with a short heartbeat timeout: a worker whose event loop is
// stopped (SIGSTOP: it keeps its connections and its share of new ones, and answers nothing) is
// killed by the primary and replaced, and the group answers every request after that.

const HEARTBEAT_TIMEOUT_MS = 1_500;
const QUERY = 'query Counted { exceptions(first: 2) { nodes { id } } }';

const lines = (group: GatewayProcess, msg: string) => logLines(group.stdout()).filter((line) => line.msg === msg);

/** Whether `pid` is a live process (a zombie, killed but not yet reaped, counts as gone). */
function alive(pid: number): boolean {
  if (!existsSync(`/proc/${pid}/stat`)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe(`a hung worker (WORKERS=2, WORKER_HEARTBEAT_TIMEOUT_MS=${HEARTBEAT_TIMEOUT_MS})`, () => {
  let sandbox: Sandbox;
  let group: GatewayProcess;
  let origin: string;
  let admin: string;
  let pids: number[];
  let expected: unknown;
  let victim: number | undefined;

  beforeAll(async () => {
    sandbox = await startSandbox();
    const ids = sandbox.store.exceptions(sandbox.tokens[0]!.businessAccountId).slice(0, 2).map((r) => r.id);
    expected = { data: { exceptions: { nodes: ids.map((id) => ({ id })) } } };
    const gateway = await startProductionGateway(
      { UPSTREAM_URL: sandbox.url, WORKERS: '2', WORKER_HEARTBEAT_TIMEOUT_MS: String(HEARTBEAT_TIMEOUT_MS), LOG_LEVEL: 'info' },
      40_000,
    );
    ({ process: group, origin } = gateway);
    admin = gateway.admin!;
    const started = await until('the workers-started line', () => lines(group, 'workers started')[0], 20_000);
    pids = (started.pids as number[]).sort();
  }, 120_000);
  afterAll(async () => {
    // A stopped worker ignores SIGTERM: never leave one behind, whatever the test found.
    if (victim !== undefined && alive(victim)) process.kill(victim, 'SIGKILL');
    await group?.stop();
    await sandbox?.close();
  });

  it('is killed (SIGKILL) after the timeout, logged at error, counted, and replaced; every later request is answered', async () => {
    expect(pids).toHaveLength(2);
    // Both workers beat for several intervals: a healthy group is left alone.
    await sleep(2 * HEARTBEAT_TIMEOUT_MS);
    expect(lines(group, 'worker hung: killing it')).toEqual([]);

    const [stopped, survivor] = pids as [number, number];
    victim = stopped;
    process.kill(stopped, 'SIGSTOP');

    // Documented: silent for WORKER_HEARTBEAT_TIMEOUT_MS, found by a check every fifth of it; then the restart back-off (250 ms).
    const hung = await until('the hung worker killed', () => lines(group, 'worker hung: killing it')[0], 20_000);
    expect(hung).toEqual(expect.objectContaining({ level: 50, pid: stopped, timeoutMs: HEARTBEAT_TIMEOUT_MS }));
    expect(hung.silentMs as number).toBeGreaterThan(HEARTBEAT_TIMEOUT_MS);
    const replaced = await until('a replacement worker', () => lines(group, 'worker listening').find((line) => !pids.includes(line.pid as number)), 20_000);
    const replacement = replaced.pid as number;
    expect(lines(group, 'worker exited unexpectedly: starting another')).toEqual([
      expect.objectContaining({ level: 50, pid: stopped, code: null, signal: 'SIGKILL', restartInMs: 250 }),
    ]);
    expect(alive(stopped)).toBe(false);

    // Fresh connections, so the primary hands them to the workers in turn: both serve, all answer.
    const requestIds = Array.from({ length: 40 }, (_, i) => `hung-worker-${i}`);
    const answers = [];
    for (const id of requestIds) {
      const answer = await graphql(origin, QUERY, { 'x-request-id': id });
      answers.push([answer.status, answer.json()]);
    }
    expect(answers).toEqual(requestIds.map(() => [200, expected]));
    const served = () => lines(group, 'graphql request').filter((line) => requestIds.includes(line.requestId as string));
    await until('every request logged', () => (served().length === requestIds.length ? true : undefined), 20_000);
    const servedBy = new Set(served().map((line) => line.pid as number));
    expect([...servedBy].sort()).toEqual([survivor, replacement].sort());

    const metrics = await send(`${admin}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/^gateway_worker_hangs_total 1$/m);
    expect(metrics.text).toMatch(/^gateway_worker_restarts_total 1$/m);
    expect(metrics.text).toMatch(/^gateway_workers 2$/m);
    expect(lines(group, 'worker hung: killing it')).toHaveLength(1);
  }, 120_000);
});
