/**
 * The benchmark harness (`npm run bench`): starts the sandbox, the bare
 * proxy, the peer gateway, the design-card floor and the gateway as child
 * processes on fixed loopback ports, drives the workloads with autocannon from this process,
 * validates every response, and writes bench/results.md, results.svg and
 * results.png.
 *
 *   node --disable-warning=ExperimentalWarning bench/run.ts [--quick] [--soak-seconds N] [--runs N] [--rate N]
 *
 * --quick      one run of short durations, under a minute (indicative figures)
 * --rate-limit-only  only the cost of the per-caller budget, printed (no results written)
 * --workers-only   only the Workers line (WORKERS=2 against WORKERS=1, over the sandbox); prints it, writes no results
 * --soak-seconds N   length of the memory soak (default 60 s; the 10-minute figure needs 600)
 *
 * With taskset and two CPUs, this process (the load generator) and the
 * sandbox run on CPU 0 and the systems under test on CPU 1.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCommandLine } from '../src/settings/command-line.ts';
import { renderChartSvg } from './lib/chart.ts';
import { buildGrowthCases } from './lib/growth.ts';
import type { GrowthPoint } from './lib/growth.ts';
import { runLoad } from './lib/load.ts';
import type { LoadResult } from './lib/load.ts';
import { describeMachine, gitRevision, packageVersion } from './lib/machine.ts';
import { assertRunning, canPin, findExecutable, pinProcess, readCpuSeconds, readRssBytes, sampleRss, spawnLogged, waitForReady } from './lib/processes.ts';
import type { Child } from './lib/processes.ts';
import { renderRateLimitCost, renderReport } from './lib/report.ts';
import { evaluateTargets } from './lib/results.ts';
import type { BenchReport, BenchSettings, CellResult, RateLimitCostFigure, SharedReadsFigure, SoakFigure, UpstreamFigure, VariantFigure, WorkloadResult } from './lib/results.ts';
import { discoverFixtures, groupCalls, recordedCalls, requestTotal, resetRequestLog } from './lib/sandbox-client.ts';
import { median, percentile, windowMedian, growthPercent } from './lib/stats.ts';
import { preparedStartCommand } from './lib/start-command.ts';
import { describeWorkers, measureWorkers } from './lib/workers.ts';
import type { WorkersSpec } from './lib/workers.ts';
import { measureRateLimitCheck, measureVariants, waitForRedis } from './lib/variants.ts';
import type { VariantSpec } from './lib/variants.ts';
import { buildWorkloads, dashboardCall, pingCall, TARGET_LABELS, TARGETS } from './lib/workloads.ts';
import type { Fixtures, HttpCall, TargetName, TargetPlan, Workload, WorkloadId } from './lib/workloads.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The gateway as `npm start` runs it (its Node flags and the built entry), built from the sources now. */
const START = preparedStartCommand(ROOT);
const BENCH = path.join(ROOT, 'bench');
const PEER = path.join(BENCH, 'peer');
const HOST = '127.0.0.1';
// Below the ephemeral range (32768+), so that no outgoing connection or port-0 listener can hold them.
const PORTS = { gateway: 24600, sandbox: 24610, content: 24611, bare: 24620, peer: 24630, floor: 24640, variants: 24650, redis: 24660, workers1: 24670, workers2: 24680 } as const;
/** Gateways started side by side for (f) and the rate limiter's cost, on PORTS.variants and the ports after it. */
const MAX_VARIANTS = 3;
/**
 * The gateway of workloads (a)–(e), the growth cases, the soak and the Workers line makes every call its
 * requests need, as the bare proxy, the floor and the peer do: their connections all send the same
 * query with the same token, which in-flight read sharing (on by default) would turn into fewer
 * platform calls than the others make. Workload (f) measures the sharing itself.
 */
const WITHOUT_SHARED_READS = { UPSTREAM_SHARE_READS: 'false' } as const;
/** Workload (f): connections asking for the same dashboard with the same token at once. */
const SHARED_READS_CONNECTIONS = 50;
/** High enough that no request of the benchmark is refused: the limiter checks every request and refuses none. */
const UNREFUSED_RATE = '1000000';
/**
 * The rate limiter's cost is measured at this fixed rate, below every variant's saturation: at
 * saturation a variant whose requests wait on Redis has more of them in flight, so the gateway
 * batches its socket work differently and its CPU per request is not comparable.
 */
const RATE_LIMIT_COST_RATE = 1_000;
/**
 * The per-call draw is measured on the dashboard query (three platform calls per request) at this
 * fixed rate: each request costs the gateway several times the cheapest one's CPU, so the rate is
 * lower to stay below every variant's saturation on one CPU.
 */
const CALLS_DRAW_COST_RATE = 300;
const DEMO_TOKEN = 'demo-token-acme';
const SOAK_WORKLOAD: WorkloadId = 'c';
/** Three areas per request: the gateway's own work dominates, so the line shows what a second worker adds. */
const WORKERS_WORKLOAD: WorkloadId = 'c';
const MiB = 1024 * 1024;

interface Settings extends BenchSettings {
  startupAttempts: number;
  /** Sequential requests per GraphQL target whose platform calls are grouped by request id. */
  probeRequests: number;
  workersOnly: boolean;
  rateLimitOnly: boolean;
}

function readSettings(): Settings {
  const { values } = readCommandLine(
    {
      options: {
        quick: { type: 'boolean', default: false },
        'soak-seconds': { type: 'string' },
        runs: { type: 'string' },
        rate: { type: 'string' },
        'workers-only': { type: 'boolean', default: false },
        'rate-limit-only': { type: 'boolean', default: false },
      },
    },
    {
      command: 'npm run bench',
      summary: [
        'The benchmark (about 10 minutes; docs/benchmark.md): the sandbox, a bare proxy, the design-card floor,',
        'Hive Gateway and this gateway (built first) on loopback, driven by autocannon; writes bench/results.md,',
        'results.svg and results.png.',
      ].join('\n'),
      options: {
        quick: { text: 'one run of short durations, under a minute (indicative figures)' },
        'soak-seconds': { text: 'length of the memory soak (default 60; the 10-minute figure needs 600)', value: 'N' },
        runs: { text: 'runs of each measurement (default 3, 1 with --quick)', value: 'N' },
        rate: { text: 'requests per second of the latency measurement (default 200)', value: 'N' },
        'workers-only': { text: 'only the Workers line (WORKERS=2 against WORKERS=1); prints it, writes no results' },
        'rate-limit-only': { text: 'only the cost of the per-caller budget (its check per request, its draw per platform call); prints it, writes no results' },
      },
      examples: ['npm run bench -- --quick', 'npm run bench -- --quick --rate-limit-only'],
    },
  );
  const positive = (text: string | undefined, name: string): number | undefined => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number, got "${text}"`);
    return value;
  };
  const quick = values.quick;
  return {
    quick,
    runs: positive(values.runs, 'runs') ?? (quick ? 1 : 3),
    warmupS: quick ? 0.3 : 1,
    latencyS: quick ? 0.5 : 3,
    latencyRate: positive(values.rate, 'rate') ?? 200,
    // One connection: the latency of a request is not inflated by queueing behind others.
    latencyConnections: 1,
    saturationS: quick ? 0.7 : 3,
    saturationConnections: 32,
    soakS: positive(values['soak-seconds'], 'soak-seconds') ?? (quick ? 3 : 60),
    pinned: false,
    startupAttempts: quick ? 1 : 3,
    probeRequests: quick ? 5 : 10,
    workersOnly: values['workers-only'],
    rateLimitOnly: values['rate-limit-only'],
  };
}

const log = (message: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};

function nodeBinary(): string {
  if (Number(process.versions.node.split('.')[0]) >= 24) return process.execPath;
  const local = path.join(ROOT, 'node_modules', '.bin', 'node');
  if (existsSync(local)) return local;
  throw new Error('Node 24 is required: run with node_modules/.bin/node');
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

/** Composes the peer's supergraph when the OpenAPI description or the compose config is newer. */
function composePeer(node: string): void {
  const bin = path.join(PEER, 'node_modules', '.bin', 'mesh-compose');
  if (!existsSync(bin)) {
    // The peer has its own lock file, so a fresh clone installs it on the first run only.
    log('installing the peer gateway (npm ci --prefix bench/peer)');
    execFileSync('npm', ['ci', '--prefix', PEER, '--no-audit', '--no-fund'], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const output = path.join(PEER, 'supergraph.graphql');
  const inputs = [path.join(ROOT, 'openapi', 'platform.yaml'), path.join(PEER, 'mesh.config.mjs')];
  if (existsSync(output) && inputs.every((input) => statSync(input).mtimeMs < statSync(output).mtimeMs)) return;
  log('composing the peer supergraph from openapi/platform.yaml');
  execFileSync(node, [bin, '-o', 'supergraph.graphql'], { cwd: PEER, stdio: ['ignore', 'ignore', 'pipe'] });
}

interface Targets {
  origins: Record<TargetName, string>;
  /** The process doing the work of each target; none for direct REST (that is the sandbox itself). */
  pids: Partial<Record<TargetName, number>>;
}

/** How this run was started, as a reader would retype it. */
function invocation(): string {
  const args = process.argv.slice(2).join(' ');
  if (process.env.npm_lifecycle_event === 'bench') return `npm run bench${args ? ` -- ${args}` : ''}`;
  return `node_modules/.bin/node --disable-warning=ExperimentalWarning bench/run.ts${args ? ` ${args}` : ''}`;
}

function reportedSettings({ startupAttempts: _startup, probeRequests: _probes, workersOnly: _workersOnly, ...reported }: Settings): BenchSettings {
  return reported;
}

function operationsOf(result: LoadResult, plan: TargetPlan): number {
  return plan.shape === 'parallel' ? result.valid / plan.calls.length : result.valid;
}

/** p50 and p99 of one run; for a parallel plan the slowest call's, per percentile. */
function runLatency(result: LoadResult, plan: TargetPlan): { p50Ms: number; p99Ms: number; samples: number } {
  const series = plan.calls.map((call) => result.latencyByLabel.get(call.label) ?? new Float64Array());
  return {
    p50Ms: Math.max(...series.map((s) => percentile(s, 50))),
    p99Ms: Math.max(...series.map((s) => percentile(s, 99))),
    samples: series.reduce((sum, s) => sum + s.length, 0),
  };
}

/** Sends one request of each call and validates it, before any load. */
async function probeOnce(origin: string, call: HttpCall, requestId?: string): Promise<string | undefined> {
  const response = await fetch(origin + call.path, {
    method: call.method,
    headers: requestId ? { ...call.headers, 'x-request-id': requestId } : call.headers,
    ...(call.body === undefined ? {} : { body: call.body }),
  });
  return call.validate(response.status, await response.text());
}

class Accumulator {
  readonly cell: CellResult;
  readonly latencyRuns: Array<{ p50Ms: number; p99Ms: number; samples: number }> = [];
  readonly throughputRuns: number[] = [];
  readonly cpuRuns: number[] = [];
  readonly shareRuns: number[] = [];

  constructor(target: TargetName) {
    this.cell = { target, validResponses: 0, failures: 0, failureReasons: [] };
  }

  absorb(result: LoadResult): void {
    this.cell.validResponses += result.valid;
    this.cell.failures += result.failures;
    for (const [reason, count] of result.failureReasons) {
      const known = this.cell.failureReasons.find(([r]) => r === reason);
      if (known) known[1] += count;
      else if (this.cell.failureReasons.length < 5) this.cell.failureReasons.push([reason, count]);
    }
  }

  finish(): CellResult {
    if (this.latencyRuns.length > 0) {
      this.cell.latency = {
        p50Ms: median(this.latencyRuns.map((r) => r.p50Ms)),
        p99Ms: median(this.latencyRuns.map((r) => r.p99Ms)),
        runs: this.latencyRuns,
      };
    }
    if (this.throughputRuns.length > 0) this.cell.throughput = { opsPerSecond: median(this.throughputRuns), runs: this.throughputRuns };
    if (this.cpuRuns.length > 0) this.cell.cpuUsPerOp = median(this.cpuRuns);
    if (this.shareRuns.length > 0) this.cell.cpuShare = median(this.shareRuns);
    return this.cell;
  }
}

/** One line per variant for the console: throughput, CPU per operation, platform calls per request. */
function describeVariants(variants: VariantFigure[]): string {
  return variants
    .map((v) => `${v.label}: ${v.opsPerSecond.toFixed(0)} ops/s ${v.cpuUsPerOp.toFixed(0)} µs/op${v.callsPerOp === undefined ? '' : ` ${v.callsPerOp.toFixed(2)} calls/op`}${v.failures ? ` ${v.failures} FAILED` : ''}`)
    .join(' · ');
}

/** Peak RSS over the workloads' saturation runs, per process whose memory is reported, MiB. */
type RssPeaks = Record<'gateway' | 'floor', number>;

async function measureWorkload(workload: Workload, targets: Targets, settings: Settings, sandboxUrl: string, peaks: RssPeaks, children: readonly Child[]): Promise<WorkloadResult> {
  const planned = TARGETS.filter((t) => workload.plans[t] !== undefined);
  const cells = new Map(planned.map((t) => [t, new Accumulator(t)]));
  const usable: TargetName[] = [];

  for (const target of planned) {
    const plan = workload.plans[target] as TargetPlan;
    const problems = (await Promise.all(plan.calls.map((call) => probeOnce(targets.origins[target], call)))).filter((p) => p !== undefined);
    if (problems.length === 0) usable.push(target);
    else {
      log(`(${workload.id}) ${TARGET_LABELS[target]} answered wrongly, not measured: ${problems[0]}`);
      const acc = cells.get(target) as Accumulator;
      acc.cell.failures += 1;
      acc.cell.failureReasons.push([`probe: ${problems[0] as string}`, 1]);
    }
  }

  const upstream: UpstreamFigure[] = [];
  for (const target of usable.filter((t): t is 'gateway' | 'peer' => t === 'gateway' || t === 'peer')) {
    const call = (workload.plans[target] as TargetPlan).calls[0] as HttpCall;
    await resetRequestLog(sandboxUrl);
    const ids = Array.from({ length: settings.probeRequests }, (_, i) => `bench-${workload.id}-${target}-${i}-${process.pid}`);
    for (const id of ids) {
      const problem = await probeOnce(targets.origins[target], call, id);
      if (problem) throw new Error(`(${workload.id}) ${target} probe failed: ${problem}`);
    }
    const calls = await recordedCalls(sandboxUrl);
    const grouping = groupCalls(calls, ids);
    upstream.push({ target, callsPerOpUnderLoad: Number.NaN, probe: { requests: ids.length, ...grouping, totalCalls: calls.length } });
  }

  const load = async (target: TargetName, connections: number, durationS: number, overallRate?: number): Promise<LoadResult> => {
    const plan = workload.plans[target] as TargetPlan;
    assertRunning(children);
    return runLoad({ origin: targets.origins[target], calls: plan.calls, connections, durationS, ...(overallRate === undefined ? {} : { overallRate: overallRate * plan.calls.length }) });
  };

  for (const target of usable) (cells.get(target) as Accumulator).absorb(await load(target, settings.saturationConnections, settings.warmupS));

  // Platform calls and GraphQL requests sent over all saturation runs, per target.
  const platformCalls = new Map<TargetName, { calls: number; ops: number }>();

  for (let run = 0; run < settings.runs; run += 1) {
    for (const target of usable) {
      const result = await load(target, settings.latencyConnections, settings.latencyS, settings.latencyRate);
      const acc = cells.get(target) as Accumulator;
      acc.absorb(result);
      acc.latencyRuns.push(runLatency(result, workload.plans[target] as TargetPlan));
    }
    for (const target of usable) {
      const plan = workload.plans[target] as TargetPlan;
      const pid = targets.pids[target];
      const counting = target === 'gateway' || target === 'peer';
      if (counting) await resetRequestLog(sandboxUrl);
      const cpuBefore = pid === undefined ? 0 : readCpuSeconds(pid);
      const sampled = target === 'gateway' || target === 'floor' ? target : undefined;
      const rss = sampled && pid !== undefined ? sampleRss(pid, 200) : undefined;
      const result = await load(target, settings.saturationConnections, settings.saturationS);
      const cpuAfter = pid === undefined ? 0 : readCpuSeconds(pid);
      if (sampled && rss) peaks[sampled] = Math.max(peaks[sampled], ...rss.stop().map((b) => b / MiB));
      const acc = cells.get(target) as Accumulator;
      acc.absorb(result);
      const ops = operationsOf(result, plan);
      acc.throughputRuns.push(ops / result.durationS);
      if (pid !== undefined && ops > 0) {
        acc.cpuRuns.push(((cpuAfter - cpuBefore) / ops) * 1e6);
        acc.shareRuns.push((cpuAfter - cpuBefore) / result.durationS);
      }
      if (counting) {
        // Requests still in flight when the run stopped reach the platform too: let them land, and
        // count per request sent rather than per response received.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const totals = platformCalls.get(target) ?? { calls: 0, ops: 0 };
        totals.calls += await requestTotal(sandboxUrl);
        totals.ops += result.sent;
        platformCalls.set(target, totals);
      }
    }
  }

  assertRunning(children);
  for (const figure of upstream) {
    const totals = platformCalls.get(figure.target);
    if (totals && totals.ops > 0) figure.callsPerOpUnderLoad = totals.calls / totals.ops;
  }
  const result: WorkloadResult = {
    id: workload.id,
    title: workload.title,
    short: workload.short,
    simpleConnection: workload.simpleConnection,
    // The several-areas read is judged against its own throughput goal.
    ...(workload.composite ? { composite: true } : {}),
    cells: [],
    upstream,
  };
  for (const target of planned) result.cells.push((cells.get(target) as Accumulator).finish());
  const summary = result.cells
    .map((c) => `${c.target} ${c.latency ? `p50 ${c.latency.p50Ms.toFixed(2)} ms` : '-'} ${c.throughput ? `${c.throughput.opsPerSecond.toFixed(0)} ops/s` : ''}${c.failures ? ` ${c.failures} FAILED` : ''}`)
    .join(' · ');
  log(`(${workload.id}) ${summary}`);
  return result;
}

/** One saturation run per growth case and target: CPU per operation, throughput and latency percentiles. */
async function measureGrowth(fixtures: Parameters<typeof buildGrowthCases>[0], targets: Targets, settings: Settings, children: readonly Child[]): Promise<GrowthPoint[]> {
  const points: GrowthPoint[] = [];
  for (const growthCase of buildGrowthCases(fixtures)) {
    for (const [target, call] of Object.entries(growthCase.calls) as Array<['bare' | 'gateway', HttpCall]>) {
      const origin = targets.origins[target];
      const problem = await probeOnce(origin, call);
      if (problem) {
        log(`growth ${growthCase.series} ${growthCase.x}: ${target} answered wrongly, not measured: ${problem}`);
        points.push({ series: growthCase.series, x: growthCase.x, target, opsPerSecond: Number.NaN, p50Ms: Number.NaN, p99Ms: Number.NaN, failures: 1 });
        continue;
      }
      assertRunning(children);
      const pid = targets.pids[target];
      await runLoad({ origin, calls: [call], connections: growthCase.connections, durationS: settings.warmupS });
      const cpuBefore = pid === undefined ? 0 : readCpuSeconds(pid);
      const result = await runLoad({ origin, calls: [call], connections: growthCase.connections, durationS: settings.saturationS });
      const cpuAfter = pid === undefined ? 0 : readCpuSeconds(pid);
      const latencies = result.latencyByLabel.get(call.label) ?? new Float64Array();
      points.push({
        series: growthCase.series,
        x: growthCase.x,
        target,
        opsPerSecond: result.valid / result.durationS,
        ...(pid !== undefined && result.valid > 0 ? { cpuUsPerOp: ((cpuAfter - cpuBefore) / result.valid) * 1e6 } : {}),
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        failures: result.failures,
      });
    }
    const mine = points.filter((p) => p.series === growthCase.series && p.x === growthCase.x);
    log(`growth ${growthCase.series} ${growthCase.x}: ${mine.map((p) => `${p.target} ${p.cpuUsPerOp?.toFixed(0) ?? '-'} µs/op ${p.opsPerSecond.toFixed(0)} ops/s p50 ${p.p50Ms.toFixed(2)} p99 ${p.p99Ms.toFixed(2)} ms`).join(' · ')}`);
  }
  return points;
}

async function soak(workload: Workload, targets: Targets, seconds: number): Promise<SoakFigure> {
  const pid = targets.pids.gateway as number;
  const plan = workload.plans.gateway as TargetPlan;
  const sampler = sampleRss(pid, Math.min(1_000, Math.max(100, (seconds * 1_000) / 60)));
  const result = await runLoad({ origin: targets.origins.gateway, calls: plan.calls, connections: 32, durationS: seconds });
  const samples = sampler.stop().map((b) => b / MiB);
  const startMiB = windowMedian(samples, 0, 0.2);
  const endMiB = windowMedian(samples, 0.8, 1);
  return {
    seconds,
    workload: workload.id,
    startMiB,
    endMiB,
    peakMiB: Math.max(...samples),
    growthPct: growthPercent(startMiB, endMiB),
    opsPerSecond: result.valid / result.durationS,
    failures: result.failures,
    failureReasons: [...result.failureReasons],
  };
}

/**
 * Spawns a server `attempts` times, each after the previous one stopped, and keeps the last
 * running: spawn → `readyUrl` 200 of each attempt.
 */
async function startTimed(spawn: () => Child, readyUrl: string, attempts: number, children: Child[]): Promise<{ child: Child; startupMs: number[] }> {
  const startupMs: number[] = [];
  let child: Child | undefined;
  for (let attempt = 0; attempt < Math.max(1, attempts); attempt += 1) {
    if (child) {
      await child.stop();
      children.splice(children.indexOf(child), 1);
    }
    const spawnedAt = performance.now();
    child = spawn();
    children.push(child);
    startupMs.push(await waitForReady(readyUrl, child, spawnedAt));
  }
  return { child: child as Child, startupMs };
}

/** The Workers line's processes: two gateways (WORKERS=1 and 2) over the run's sandbox, with the flags of `npm start`. */
function workersSpec(node: string, logDir: string, env: Record<string, string | undefined>, sandboxUrl: string, workload: Workload, settings: Settings, children: Child[]): WorkersSpec {
  return {
    node, flags: START.flags, entry: START.entry, root: ROOT, logDir, env, upstreamUrl: sandboxUrl, host: HOST, ports: [PORTS.workers1, PORTS.workers2], workload,
    connections: settings.saturationConnections, warmupS: settings.warmupS, durationS: settings.saturationS, runs: settings.runs, children,
  };
}

/** What the run's gateways share, for the spare gateways and the rate limiter's measurements. */
interface SpareContext {
  node: string;
  logDir: string;
  baseEnv: Record<string, string | undefined>;
  sandboxUrl: string;
  cpu: (n: number) => number | undefined;
}

/** Spare gateways of the same build, each started with one setting changed, on CPU 1 like the others. */
function spareGatewayOf({ node, logDir, baseEnv, sandboxUrl, cpu }: SpareContext) {
  return (name: string) => async (spec: VariantSpec, index: number): Promise<{ child: Child; origin: string }> => {
    const port = PORTS.variants + index;
    const origin = `http://${HOST}:${port}`;
    const child = spawnLogged({
      name: `${name}-${index}`, command: node, args: [...START.flags, START.entry], cwd: ROOT, logDir, cpu: cpu(1),
      env: { ...baseEnv, NODE_ENV: 'production', UPSTREAM_URL: sandboxUrl, HOST, PORT: String(port), ...spec.env },
    });
    try {
      await waitForReady(`${origin}/healthz`, child, performance.now());
    } catch (error) {
      await child.stop();
      throw error;
    }
    return { child, origin };
  };
}

interface LimiterRun extends SpareContext {
  settings: Settings;
  children: Child[];
  fixtures: Fixtures;
  spareGateway: ReturnType<typeof spareGatewayOf>;
  stopping: () => boolean;
}

/**
 * The rate limiter's cost: the cheapest request (no platform call) and a request with three platform
 * calls (each attempt draws from the bucket), each without the limit, with it in memory and with it
 * in Redis, then the check alone. Undefined when the run was stopped meanwhile.
 */
async function measureRateLimitCost(run: LimiterRun): Promise<RateLimitCostFigure | undefined> {
  const { node, logDir, baseEnv, cpu, settings, children, fixtures, sandboxUrl, spareGateway } = run;
  const variantSettings = { warmupS: settings.warmupS, saturationS: settings.saturationS, runs: settings.runs, children, log };
  log(`rate limiter: the cheapest request at ${RATE_LIMIT_COST_RATE} requests/s without the limit, with it in memory, and with it in Redis`);
  const redisServer = findExecutable('redis-server');
  const limit = { RATE_LIMIT_PER_SECOND: UNREFUSED_RATE, RATE_LIMIT_BURST: UNREFUSED_RATE };
  let redis: Child | undefined;
  if (redisServer) {
    redis = spawnLogged({
      name: 'redis', command: redisServer, args: ['--port', String(PORTS.redis), '--bind', HOST, '--save', '', '--appendonly', 'no'], cwd: ROOT, logDir, cpu: cpu(0), env: baseEnv,
    });
    children.push(redis);
    await waitForRedis(HOST, PORTS.redis, redis);
  } else {
    log('redis-server not found (apt-get install -y redis-server): the limiter with Redis is not measured');
  }
  // Without the limit, with it in memory, and with it in Redis; `extra` is set on all three alike.
  const limiterSpecs = (extra: Record<string, string>): VariantSpec[] => [
    { label: 'no RATE_LIMIT_PER_SECOND', env: { ...extra } },
    { label: `RATE_LIMIT_PER_SECOND=${UNREFUSED_RATE} (in memory)`, env: { ...extra, ...limit } },
    ...(redis ? [{ label: `RATE_LIMIT_PER_SECOND=${UNREFUSED_RATE}, RATE_LIMIT_REDIS_URL`, env: { ...extra, ...limit, RATE_LIMIT_REDIS_URL: `redis://${HOST}:${PORTS.redis}` } }] : []),
  ];
  const rateLimitCost: RateLimitCostFigure = {
    connections: settings.saturationConnections,
    requestsPerSecond: RATE_LIMIT_COST_RATE,
    ...(redis ? {} : { skipped: 'redis-server was not found (apt-get install -y redis-server): the limiter with Redis was not measured.' }),
    variants: await measureVariants({
      ...variantSettings,
      specs: limiterSpecs({}),
      call: pingCall(fixtures.token),
      connections: settings.saturationConnections,
      overallRate: RATE_LIMIT_COST_RATE,
      start: spareGateway('gateway-rate-limit'),
      ...(redis ? { storePid: redis.pid } : {}),
      counter: 'rate_limit_store_failures_total',
    }),
  };
  if (run.stopping()) return undefined;
  log(`per-call draw: the dashboard query (three platform calls) at ${CALLS_DRAW_COST_RATE} requests/s without the limit, with it in memory, and with it in Redis`);
  rateLimitCost.calls = {
    request: 'Workload (c)\'s three-area dashboard query (three platform calls)',
    connections: settings.saturationConnections,
    requestsPerSecond: CALLS_DRAW_COST_RATE,
    variants: await measureVariants({
      ...variantSettings,
      // Sharing off: identical requests in flight at once would otherwise send, and draw for, fewer calls than they make.
      specs: limiterSpecs(WITHOUT_SHARED_READS),
      call: dashboardCall(fixtures),
      connections: settings.saturationConnections,
      overallRate: CALLS_DRAW_COST_RATE,
      start: spareGateway('gateway-calls-draw'),
      sandboxUrl,
      ...(redis ? { storePid: redis.pid } : {}),
      counter: 'rate_limit_store_failures_total',
    }),
  };
  log(`per-call draw: ${describeVariants(rateLimitCost.calls.variants)}`);
  rateLimitCost.check = await measureRateLimitCheck({ node, root: ROOT, redisUrl: redis ? `redis://${HOST}:${PORTS.redis}` : undefined, cpu: cpu(1), checks: settings.quick ? 5_000 : 20_000 });
  if (redis) {
    await redis.stop();
    children.splice(children.indexOf(redis), 1);
  }
  log(`rate limiter: ${describeVariants(rateLimitCost.variants)}; the check alone ${rateLimitCost.check.memoryUs.toFixed(1)} µs in memory${rateLimitCost.check.redisUs === undefined ? '' : `, ${rateLimitCost.check.redisUs.toFixed(1)} µs with Redis`}`);
  return rateLimitCost;
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadAtStart = os.loadavg();
  const settings = readSettings();
  const node = nodeBinary();
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-bench-'));
  const children: Child[] = [];
  const notes: string[] = [];
  let stopping = false;
  // The platform goes last, so that servers finishing in-flight requests do not fail against it.
  const stopAll = async (): Promise<void> => {
    stopping = true;
    await Promise.all(children.filter((child) => child.name !== 'sandbox').map((child) => child.stop()));
    await Promise.all(children.filter((child) => child.name === 'sandbox').map((child) => child.stop()));
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping the servers`);
      void stopAll().finally(() => process.exit(130));
    });
  }

  try {
    const ports: Array<[string, number]> = [...Object.entries(PORTS), ...Array.from({ length: MAX_VARIANTS - 1 }, (_, i): [string, number] => [`variants+${i + 1}`, PORTS.variants + i + 1])];
    for (const [name, port] of ports) {
      if (!(await portFree(port))) throw new Error(`port ${port} (${name}) is in use on ${HOST}; stop whatever listens there`);
    }
    for (const file of ['sandbox/main.ts', START.entry]) {
      if (!existsSync(path.join(ROOT, file))) throw new Error(`${file} does not exist yet`);
    }
    settings.pinned = canPin();
    if (settings.pinned) pinProcess(process.pid, 0);
    else notes.push('Processes were not pinned to CPUs (taskset missing or fewer than two CPUs): load generator and targets compete for the same cores.');
    const cpu = (n: number): number | undefined => (settings.pinned ? n : undefined);
    // ADMIN_PORT=off: the gateways are measured as before the admin listener, with /healthz and /metrics
    // on their one port, and several gateways of a run never contend for the admin port's 9090.
    const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, ADMIN_PORT: 'off' };
    const ts = ['--disable-warning=ExperimentalWarning'];

    log(`logs in ${logDir}`);
    if (!settings.workersOnly && !settings.rateLimitOnly) composePeer(node);
    const sandboxUrl = `http://${HOST}:${PORTS.sandbox}`;
    const origins: Record<TargetName, string> = {
      rest: sandboxUrl,
      bare: `http://${HOST}:${PORTS.bare}`,
      floor: `http://${HOST}:${PORTS.floor}`,
      gateway: `http://${HOST}:${PORTS.gateway}`,
      peer: `http://${HOST}:${PORTS.peer}`,
    };
    // The proxies connect to the platform lazily, so all three can boot at once.
    const sandbox = spawnLogged({
      name: 'sandbox', command: node, args: [...ts, 'sandbox/main.ts'], cwd: ROOT, logDir, cpu: cpu(0),
      env: { ...baseEnv, SANDBOX_HOST: HOST, SANDBOX_PORT: String(PORTS.sandbox), SANDBOX_CONTENT_PORT: String(PORTS.content), SANDBOX_LATENCY_MS: '0' },
    });
    children.push(sandbox);
    const booted = performance.now();
    if (settings.workersOnly) {
      await waitForReady(`${sandboxUrl}/__sandbox/requests`, sandbox, booted);
      const { fixtures } = await discoverFixtures(sandboxUrl, DEMO_TOKEN);
      const workload = buildWorkloads(fixtures).find((w) => w.id === WORKERS_WORKLOAD) as Workload;
      log(`workers: ${describeWorkers(await measureWorkers(workersSpec(node, logDir, { ...baseEnv, ...WITHOUT_SHARED_READS }, sandboxUrl, workload, settings, children)))}`);
      return;
    }
    if (settings.rateLimitOnly) {
      await waitForReady(`${sandboxUrl}/__sandbox/requests`, sandbox, booted);
      const { fixtures } = await discoverFixtures(sandboxUrl, DEMO_TOKEN);
      const spare = spareGatewayOf({ node, logDir, baseEnv, sandboxUrl, cpu });
      const figure = await measureRateLimitCost({ node, logDir, baseEnv, cpu, settings, children, fixtures, sandboxUrl, spareGateway: spare, stopping: () => stopping });
      if (figure) process.stdout.write(`${renderRateLimitCost(figure).join('\n')}\n`);
      return;
    }
    const bare = spawnLogged({
      name: 'bare-proxy', command: node, args: [...ts, 'bench/bare-proxy.ts'], cwd: ROOT, logDir, cpu: cpu(1),
      env: { ...baseEnv, NODE_ENV: 'production', UPSTREAM_URL: sandboxUrl, HOST, PORT: String(PORTS.bare) },
    });
    const peer = spawnLogged({
      name: 'peer', command: node, args: ['server.mjs'], cwd: PEER, logDir, cpu: cpu(1),
      env: { ...baseEnv, NODE_ENV: 'production', UPSTREAM_URL: sandboxUrl, HOST, PORT: String(PORTS.peer) },
    });
    children.push(bare, peer);
    await waitForReady(`${sandboxUrl}/__sandbox/requests`, sandbox, booted);
    const [{ fixtures, description }] = await Promise.all([
      discoverFixtures(sandboxUrl, DEMO_TOKEN),
      waitForReady(`${origins.bare}/__sandbox/requests`, bare, booted),
      waitForReady(`${origins.peer}/healthcheck`, peer, booted),
    ]);
    log(`data: ${description.join('; ')}`);

    // Start-up is measured with nothing else starting on the CPU of the systems under test. The gateway
    // goes first, so that its figure (a target) is not helped by the floor having loaded the same
    // libraries into the page cache. The floor runs with the gateway's Node flags (heap sizing among
    // them), so that the two differ only in code.
    const { child: gateway, startupMs } = await startTimed(() => spawnLogged({
      name: 'gateway', command: node, args: [...START.flags, START.entry], cwd: ROOT, logDir, cpu: cpu(1),
      env: { ...baseEnv, ...WITHOUT_SHARED_READS, NODE_ENV: 'production', UPSTREAM_URL: sandboxUrl, HOST, PORT: String(PORTS.gateway) },
    }), `${origins.gateway}/healthz`, settings.startupAttempts, children);
    const idleMiB = readRssBytes(gateway.pid) / MiB;
    log(`gateway ready in ${startupMs.map((ms) => ms.toFixed(0)).join(', ')} ms`);
    const floorStart = await startTimed(() => spawnLogged({
      name: 'design-card-floor', command: node, args: [...START.flags, 'bench/design-card-floor.ts'], cwd: ROOT, logDir, cpu: cpu(1),
      env: { ...baseEnv, NODE_ENV: 'production', UPSTREAM_URL: sandboxUrl, HOST, PORT: String(PORTS.floor) },
    }), `${origins.floor}/healthz`, settings.startupAttempts, children);
    const floor = floorStart.child;
    const floorIdleMiB = readRssBytes(floor.pid) / MiB;
    log(`design-card floor ready in ${floorStart.startupMs.map((ms) => ms.toFixed(0)).join(', ')} ms`);
    const targets: Targets = { origins, pids: { bare: bare.pid, floor: floor.pid, gateway: gateway.pid, peer: peer.pid } };

    const peaks: RssPeaks = { gateway: 0, floor: 0 };
    const workloads = buildWorkloads(fixtures);
    const results: WorkloadResult[] = [];
    for (const workload of workloads) {
      if (stopping) return;
      log(`(${workload.id}) ${workload.title}`);
      results.push(await measureWorkload(workload, targets, settings, sandboxUrl, peaks, children));
    }
    if (stopping) return;
    const spareGateway = spareGatewayOf({ node, logDir, baseEnv, sandboxUrl, cpu });
    const variantSettings = { warmupS: settings.warmupS, saturationS: settings.saturationS, runs: settings.runs, children, log };

    log(`(f) the dashboard query from ${SHARED_READS_CONNECTIONS} connections with one token, in-flight read sharing on and off`);
    const sharedReads: SharedReadsFigure = {
      connections: SHARED_READS_CONNECTIONS,
      variants: await measureVariants({
        ...variantSettings,
        specs: [
          { label: 'UPSTREAM_SHARE_READS=true', env: { UPSTREAM_SHARE_READS: 'true' } },
          { label: 'UPSTREAM_SHARE_READS=false', env: { UPSTREAM_SHARE_READS: 'false' } },
        ],
        call: dashboardCall(fixtures),
        connections: SHARED_READS_CONNECTIONS,
        start: spareGateway('gateway-share-reads'),
        sandboxUrl,
      }),
    };
    log(`(f) ${describeVariants(sharedReads.variants)}`);

    if (stopping) return;
    const rateLimitCost = await measureRateLimitCost({ node, logDir, baseEnv, cpu, settings, children, fixtures, sandboxUrl, spareGateway, stopping: () => stopping });
    if (rateLimitCost === undefined) return;

    if (peaks.gateway === 0) peaks.gateway = readRssBytes(gateway.pid) / MiB;
    if (peaks.floor === 0) peaks.floor = readRssBytes(floor.pid) / MiB;
    const workloadPeakMiB = peaks.gateway;

    log('cost growth: rows, root fields, concurrency');
    const growthRss = sampleRss(gateway.pid, 200);
    const growth = await measureGrowth(fixtures, targets, settings, children);
    // The 256-connection case is part of saturation too.
    const saturationPeakMiB = Math.max(workloadPeakMiB, ...growthRss.stop().map((b) => b / MiB));

    log(`soak: ${settings.soakS} s of (${SOAK_WORKLOAD}) against the gateway`);
    assertRunning(children);
    const soakFigure = await soak(workloads.find((w) => w.id === SOAK_WORKLOAD) as Workload, targets, settings.soakS);
    assertRunning(children);
    log(`soak: RSS ${soakFigure.startMiB.toFixed(1)} → ${soakFigure.endMiB.toFixed(1)} MiB (${soakFigure.growthPct.toFixed(1)} %)`);

    log(`workers: WORKERS=2 against WORKERS=1 on (${WORKERS_WORKLOAD}), unpinned`);
    const workersFigure = await measureWorkers(workersSpec(node, logDir, { ...baseEnv, ...WITHOUT_SHARED_READS }, sandboxUrl, workloads.find((w) => w.id === WORKERS_WORKLOAD) as Workload, settings, children));
    log(`workers: ${describeWorkers(workersFigure)}`);

    await stopAll();
    if (loadAtStart[0] !== undefined && loadAtStart[0] > os.cpus().length / 2) {
      notes.push(`The machine was busy with other work when the run started (1-minute load average ${loadAtStart[0].toFixed(2)} on ${os.cpus().length} CPUs): processes outside the benchmark competed for both CPUs, so latencies and throughputs are pessimistic and noisy.`);
    }

    const rootModules = path.join(ROOT, 'node_modules');
    const peerModules = path.join(PEER, 'node_modules');
    const report: BenchReport = {
      command: invocation(),
      date: new Date().toISOString(),
      elapsedS: (performance.now() - started) / 1000,
      revision: gitRevision(ROOT),
      loadAverage: { start: loadAtStart, end: os.loadavg() },
      machine: describeMachine(execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()),
      versions: [
        ['Gateway stack', ['@apollo/server', 'graphql', 'got', 'dataloader'].map((p) => `${p} ${packageVersion(rootModules, p)}`).join(', ')],
        ['Peer stack', ['@graphql-hive/gateway', '@graphql-mesh/compose-cli', '@omnigraph/openapi', 'graphql'].map((p) => `${p} ${packageVersion(peerModules, p)}`).join(', ')],
        ['Load generator', `autocannon ${packageVersion(rootModules, 'autocannon')}`],
      ],
      settings: reportedSettings(settings),
      fixtures: description,
      startupMs,
      floorStartupMs: floorStart.startupMs,
      workloads: results,
      memory: { idleMiB, saturationPeakMiB, workloadPeakMiB, soak: soakFigure, floor: { idleMiB: floorIdleMiB, saturationPeakMiB: peaks.floor } },
      growth,
      workers: workersFigure,
      sharedReads,
      rateLimitCost,
      notes: [
        `The gateway runs with the Node flags of \`npm start\` (${START.flags.join(' ')}), and so does the design-card floor.`,
        ...notes,
        `Server logs of this run: ${logDir}.`,
        'Direct REST is the sandbox itself (zero added latency), on the load generator\'s CPU; the bare proxy, the design-card floor, the gateway and the peer each run alone on the other CPU while measured.',
        'Latency runs use one connection so a request never queues behind another; autocannon\'s rate limit releases each second\'s requests back to back, so they measure service time rather than queueing.',
      ],
    };
    writeOutputs(report);
    const failed = evaluateTargets(report).filter((c) => c.pass === false).map((c) => c.name);
    log(`done in ${report.elapsedS.toFixed(0)} s; ${failed.length === 0 ? 'all targets met' : `targets missed: ${failed.join(', ')}`}`);
  } finally {
    await stopAll();
  }
}

function writeOutputs(report: BenchReport): void {
  writeFileSync(path.join(BENCH, 'results.md'), renderReport(report));
  const svgPath = path.join(BENCH, 'results.svg');
  const pngPath = path.join(BENCH, 'results.png');
  writeFileSync(svgPath, renderChartSvg(report));
  if (findExecutable('rsvg-convert')) {
    execFileSync('rsvg-convert', ['--format', 'png', '--output', pngPath, svgPath]);
  } else {
    log('rsvg-convert not found (apt-get install -y librsvg2-bin): results.png was not updated');
  }
  log(`wrote ${path.relative(ROOT, path.join(BENCH, 'results.md'))}, results.svg${findExecutable('rsvg-convert') ? ', results.png' : ''}`);
}

main().catch((error: unknown) => {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
