/**
 * Gateways that differ in one setting, started side by side and measured in
 * alternation on the same call, so that a drift of the machine during the
 * measurement is spread over all of them rather than charged to one.
 */
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { runLoad } from './load.ts';
import type { LoadResult } from './load.ts';
import { assertRunning, readCpuSeconds } from './processes.ts';
import type { Child } from './processes.ts';
import { requestTotal, resetRequestLog } from './sandbox-client.ts';
import type { RateLimitCheckCost, VariantFigure } from './results.ts';
import { median } from './stats.ts';
import type { HttpCall } from './workloads.ts';

/** Time for the platform calls of requests in flight when a run stops to land. */
const SETTLE_MS = 200;

export interface VariantSpec {
  /** The setting that sets this gateway apart, as shown in the report. */
  label: string;
  /** Environment beyond the gateway's usual one. */
  env: Record<string, string>;
}

export interface VariantRun {
  specs: VariantSpec[];
  call: HttpCall;
  connections: number;
  warmupS: number;
  saturationS: number;
  runs: number;
  /** Starts a gateway for a spec on the n-th spare port; resolves with its origin once /healthz answers. */
  start: (spec: VariantSpec, index: number) => Promise<{ child: Child; origin: string }>;
  /** Every process of the benchmark, to fail fast when one dies; the gateways started here are added and removed. */
  children: Child[];
  /** Count platform calls per request through the sandbox's request log (nothing else may call it meanwhile). */
  sandboxUrl?: string;
  /** A process whose CPU is charged to each request too (redis-server). */
  storePid?: number;
  /** Requests per second over all connections in the measured runs; unlimited (saturation) when absent. */
  overallRate?: number;
  /** A counter of the gateways' /metrics read once the runs are over (e.g. rate_limit_store_failures_total). */
  counter?: string;
  log: (message: string) => void;
}

async function probe(origin: string, call: HttpCall): Promise<string | undefined> {
  const response = await fetch(origin + call.path, { method: call.method, headers: call.headers, ...(call.body === undefined ? {} : { body: call.body }) });
  return call.validate(response.status, await response.text());
}

/** A counter without labels from a gateway's /metrics; 0 when absent. */
async function readCounter(origin: string, name: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? 0 : Number(line.slice(name.length + 1));
}

function absorb(figure: VariantFigure, result: LoadResult): void {
  figure.validResponses += result.valid;
  figure.failures += result.failures;
  for (const [reason, count] of result.failureReasons) {
    const known = figure.failureReasons.find(([r]) => r === reason);
    if (known) known[1] += count;
    else if (figure.failureReasons.length < 5) figure.failureReasons.push([reason, count]);
  }
}

/** Starts every variant, measures them in alternation, stops them; one figure per spec, in order. */
export async function measureVariants(run: VariantRun): Promise<VariantFigure[]> {
  const started: Array<{ child: Child; origin: string }> = [];
  const figures: VariantFigure[] = run.specs.map((spec) => ({
    label: spec.label, opsPerSecond: Number.NaN, throughputRuns: [], cpuUsPerOp: Number.NaN, cpuRuns: [], validResponses: 0, failures: 0, failureReasons: [],
  }));
  try {
    for (const [index, spec] of run.specs.entries()) {
      const gateway = await run.start(spec, index);
      started.push(gateway);
      run.children.push(gateway.child);
    }
    const usable: number[] = [];
    for (const [index, gateway] of started.entries()) {
      const problem = await probe(gateway.origin, run.call);
      const figure = figures[index] as VariantFigure;
      if (problem === undefined) usable.push(index);
      else {
        run.log(`${figure.label} answered wrongly, not measured: ${problem}`);
        figure.failures += 1;
        figure.failureReasons.push([`probe: ${problem}`, 1]);
      }
    }
    for (const index of usable) {
      assertRunning(run.children);
      absorb(figures[index] as VariantFigure, await runLoad({ origin: (started[index] as { origin: string }).origin, calls: [run.call], connections: run.connections, durationS: run.warmupS }));
    }
    const platform = new Map<number, { calls: number; sent: number }>();
    const storeCpu = new Map<number, { seconds: number; valid: number }>();
    for (let round = 0; round < run.runs; round += 1) {
      // Each round starts with the next variant, so that none is always measured first after a pause.
      for (const index of usable.map((_, i) => usable[(i + round) % usable.length] as number)) {
        const { child, origin } = started[index] as { child: Child; origin: string };
        const figure = figures[index] as VariantFigure;
        assertRunning(run.children);
        if (run.sandboxUrl) {
          // The previous run's requests in flight when it stopped still reach the platform: let them land first.
          await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
          await resetRequestLog(run.sandboxUrl);
        }
        const cpuBefore = readCpuSeconds(child.pid);
        const storeBefore = run.storePid === undefined ? 0 : readCpuSeconds(run.storePid);
        const result = await runLoad({ origin, calls: [run.call], connections: run.connections, durationS: run.saturationS, ...(run.overallRate === undefined ? {} : { overallRate: run.overallRate }) });
        const cpuAfter = readCpuSeconds(child.pid);
        const storeAfter = run.storePid === undefined ? 0 : readCpuSeconds(run.storePid);
        absorb(figure, result);
        figure.throughputRuns.push(result.valid / result.durationS);
        if (result.valid > 0) figure.cpuRuns.push(((cpuAfter - cpuBefore) / result.valid) * 1e6);
        if (run.storePid !== undefined) {
          const totals = storeCpu.get(index) ?? { seconds: 0, valid: 0 };
          totals.seconds += storeAfter - storeBefore;
          totals.valid += result.valid;
          storeCpu.set(index, totals);
        }
        if (run.sandboxUrl) {
          // Requests still in flight when the run stopped reach the platform too: count per request sent.
          await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
          const totals = platform.get(index) ?? { calls: 0, sent: 0 };
          totals.calls += await requestTotal(run.sandboxUrl);
          totals.sent += result.sent;
          platform.set(index, totals);
        }
      }
    }
    for (const index of usable) {
      const figure = figures[index] as VariantFigure;
      figure.opsPerSecond = median(figure.throughputRuns);
      figure.cpuUsPerOp = median(figure.cpuRuns);
      const calls = platform.get(index);
      if (calls && calls.sent > 0) figure.callsPerOp = calls.calls / calls.sent;
      const store = storeCpu.get(index);
      if (store && store.valid > 0) figure.storeCpuUsPerOp = (store.seconds / store.valid) * 1e6;
      if (run.counter !== undefined) figure.counter = await readCounter((started[index] as { origin: string }).origin, run.counter);
    }
    return figures;
  } finally {
    for (const { child } of started) {
      await child.stop();
      run.children.splice(run.children.indexOf(child), 1);
    }
  }
}

/** Resolves once a Redis server on `port` answers PING; fails after `timeoutMs` or when `child` exits. */
export async function waitForRedis(host: string, port: number, child: Child, timeoutMs = 10_000): Promise<void> {
  const since = performance.now();
  for (;;) {
    if (child.exit) throw new Error(`${child.name} exited with code ${child.exit.code} before it was ready; see ${child.logFile}`);
    const answered = await new Promise<boolean>((resolve) => {
      const socket = connect(port, host);
      const done = (ok: boolean) => {
        socket.destroy();
        resolve(ok);
      };
      socket.setTimeout(1_000, () => done(false));
      socket.once('error', () => done(false));
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (chunk: Buffer) => done(chunk.toString().startsWith('+PONG')));
    });
    if (answered) return;
    if (performance.now() - since > timeoutMs) throw new Error(`${child.name} not ready after ${timeoutMs} ms; see ${child.logFile}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One rate-limit check alone (bench/rate-limit-check.ts), in a process of its own, pinned to `cpu` when given. */
export async function measureRateLimitCheck(options: { node: string; root: string; redisUrl: string | undefined; cpu: number | undefined; checks: number }): Promise<RateLimitCheckCost> {
  const args = ['--disable-warning=ExperimentalWarning', 'bench/rate-limit-check.ts', '--checks', String(options.checks), ...(options.redisUrl ? ['--redis', options.redisUrl] : [])];
  const [command, argv] = options.cpu === undefined ? [options.node, args] : ['taskset', ['-c', String(options.cpu), options.node, ...args]];
  const { stdout } = await promisify(execFile)(command, argv, { cwd: options.root, encoding: 'utf8', timeout: 120_000 });
  return JSON.parse(stdout.trim().split('\n').pop() as string) as RateLimitCheckCost;
}
