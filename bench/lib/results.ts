/** The figures of one benchmark run and the targets they are judged against. */
import type { GrowthPoint } from './growth.ts';
import type { MachineInfo } from './machine.ts';
import type { WorkersFigure } from './workers.ts';
import type { TargetName, WorkloadId } from './workloads.ts';

interface LatencyFigure {
  /** Medians over the runs. */
  p50Ms: number;
  p99Ms: number;
  runs: Array<{ p50Ms: number; p99Ms: number; samples: number }>;
}

export interface CellResult {
  target: TargetName;
  latency?: LatencyFigure;
  /** Operations per second at saturation: median over the runs, and each run. */
  throughput?: { opsPerSecond: number; runs: number[] };
  /** CPU time of the target process per operation at saturation, µs (median over runs). */
  cpuUsPerOp?: number;
  /** Share of one CPU the target process used at saturation (median over runs). */
  cpuShare?: number;
  validResponses: number;
  failures: number;
  failureReasons: Array<[string, number]>;
}

export interface UpstreamFigure {
  target: 'gateway' | 'peer';
  /** Platform calls per GraphQL request sent during the saturation runs, from the sandbox's counters. */
  callsPerOpUnderLoad: number;
  /** Sequential probe requests, each with its own x-request-id. */
  probe: {
    requests: number;
    /** Calls per probe request, grouped by x-request-id; empty when the ids did not reach the platform. */
    callsPerRequest: number[];
    /** Calls repeating an identical method + path + query within one request. */
    duplicates: number;
    grouped: boolean;
    totalCalls: number;
  };
}

export interface WorkloadResult {
  id: WorkloadId;
  title: string;
  short: string;
  simpleConnection: boolean;
  /** The several-areas read (see Workload.composite). */
  composite?: boolean;
  cells: CellResult[];
  upstream: UpstreamFigure[];
}

export interface SoakFigure {
  seconds: number;
  workload: WorkloadId;
  startMiB: number;
  endMiB: number;
  peakMiB: number;
  growthPct: number;
  opsPerSecond: number;
  failures: number;
  failureReasons: Array<[string, number]>;
}

/** RSS of a process right after start-up and its peak over the workloads' saturation runs. */
interface RssFigure {
  idleMiB: number;
  saturationPeakMiB: number;
}

/** One gateway process started with its own settings, measured at saturation against the others. */
export interface VariantFigure {
  /** What sets it apart, as the environment it was started with (e.g. `UPSTREAM_SHARE_READS=false`). */
  label: string;
  /** Operations per second: median over the runs, and each run. */
  opsPerSecond: number;
  throughputRuns: number[];
  /** CPU of the gateway process per valid response, µs: median over the runs, and each run. */
  cpuUsPerOp: number;
  cpuRuns: number[];
  /** Platform calls per GraphQL request sent, over all runs (absent where not counted). */
  callsPerOp?: number;
  /** CPU of the store's process (redis-server) per valid response, µs (absent without one). */
  storeCpuUsPerOp?: number;
  /** The value of the counter the run reads from the gateway's /metrics afterwards, if any. */
  counter?: number;
  validResponses: number;
  failures: number;
  failureReasons: Array<[string, number]>;
}

/** Workload (f): one dashboard query from many connections at once, in-flight read sharing on and off. */
export interface SharedReadsFigure {
  connections: number;
  variants: VariantFigure[];
}

/** One rate-limit check alone, in a process of its own (bench/rate-limit-check.ts). */
export interface RateLimitCheckCost {
  /** Checks measured with Redis, and in memory. */
  checks: number;
  memoryChecks: number;
  /** µs of CPU per check. */
  memoryUs: number;
  redisUs?: number;
  /** Checks Redis failed or did not answer in time (each counted in memory instead). */
  redisFallbacks?: number;
}

/**
 * The same gateways on a request that makes platform calls: with a budget, each attempt sent also
 * draws from the caller's bucket (the per-call draw), on top of the operation's reservation.
 */
export interface CallsDrawCostFigure {
  /** What each request asks, as the report names it. */
  request: string;
  connections: number;
  /** The fixed request rate of the measured runs, the same for every variant. */
  requestsPerSecond: number;
  variants: VariantFigure[];
}

/** What the per-caller rate limiter costs per request: without it, in memory, and with Redis. */
export interface RateLimitCostFigure {
  connections: number;
  /** The fixed request rate of the measured runs, the same for every variant. */
  requestsPerSecond: number;
  variants: VariantFigure[];
  /** Why a variant was not measured (redis-server missing). */
  skipped?: string;
  /** The check alone, without the rest of a request (absent when it could not be measured). */
  check?: RateLimitCheckCost;
  /** The same variants on a request with several platform calls (absent in reports made before it was measured). */
  calls?: CallsDrawCostFigure;
}

export interface BenchSettings {
  quick: boolean;
  runs: number;
  warmupS: number;
  latencyS: number;
  latencyRate: number;
  latencyConnections: number;
  saturationS: number;
  saturationConnections: number;
  soakS: number;
  pinned: boolean;
}

export interface BenchReport {
  command: string;
  date: string;
  elapsedS: number;
  revision: string;
  machine: MachineInfo;
  /** os.loadavg() (1, 5, 15 min) when the run started and ended: other work on the machine skews figures. */
  loadAverage: { start: number[]; end: number[] };
  versions: Array<[string, string]>;
  settings: BenchSettings;
  fixtures: string[];
  startupMs: number[];
  /** The design-card floor's start-up, spawn → /healthz 200 (absent in reports made before it was measured). */
  floorStartupMs?: number[];
  workloads: WorkloadResult[];
  /**
   * Gateway RSS: right after start-up, the peak over the saturation runs (the cost-growth cases
   * included), and the soak; `workloadPeakMiB` is its peak over the workloads' saturation runs only,
   * the runs the floor's peak is taken over.
   */
  memory: { idleMiB: number; saturationPeakMiB: number; workloadPeakMiB?: number; soak?: SoakFigure; floor?: RssFigure };
  /** How cost grows with rows, root fields and concurrency (absent in reports made before it was measured). */
  growth?: GrowthPoint[];
  /** Saturation throughput with WORKERS=2 against WORKERS=1 (absent in reports made before it was measured). */
  workers?: WorkersFigure;
  /** Workload (f) (absent in reports made before it was measured). */
  sharedReads?: SharedReadsFigure;
  /** The rate limiter's cost per request (absent in reports made before it was measured). */
  rateLimitCost?: RateLimitCostFigure;
  notes: string[];
}

export interface TargetCheck {
  name: string;
  goal: string;
  measured: string;
  /** undefined when the figure could not be measured. */
  pass: boolean | undefined;
}

export const GOALS = {
  /** Gateway's added latency may exceed the bare proxy's own added latency by this much. */
  addedP50OverBareMs: 0.5,
  addedP99OverBareMs: 2,
  vsBareProxy: 0.6,
  /** For the several-areas read, where the gateway's one request replaces the bare proxy's batch. */
  vsBareProxyComposite: 0.9,
  vsPeer: 2,
  /** Gateway CPU per operation ÷ the bare proxy's. */
  cpuVsBareProxy: 1.5,
  rssMiB: 150,
  soakGrowthPct: 10,
  startupMs: 600,
} as const;

export function cell(workload: WorkloadResult, target: TargetName): CellResult | undefined {
  return workload.cells.find((c) => c.target === target);
}

function addedLatency(workload: WorkloadResult, target: TargetName = 'gateway'): { p50Ms: number; p99Ms: number } | undefined {
  const measured = cell(workload, target)?.latency;
  const rest = cell(workload, 'rest')?.latency;
  if (!measured || !rest) return undefined;
  return { p50Ms: measured.p50Ms - rest.p50Ms, p99Ms: measured.p99Ms - rest.p99Ms };
}

/** CPU per operation of `of` (the gateway unless told) ÷ the bare proxy's. */
function cpuRatio(workload: WorkloadResult, of: TargetName = 'gateway'): number | undefined {
  const measured = cell(workload, of)?.cpuUsPerOp;
  const bare = cell(workload, 'bare')?.cpuUsPerOp;
  if (measured === undefined || bare === undefined || bare === 0) return undefined;
  return measured / bare;
}

/** Saturation throughput of `of` (the gateway unless told) ÷ that of `versus`. */
export function throughputRatio(workload: WorkloadResult, versus: TargetName, of: TargetName = 'gateway'): number | undefined {
  const measured = cell(workload, of)?.throughput?.opsPerSecond;
  const other = cell(workload, versus)?.throughput?.opsPerSecond;
  if (measured === undefined || other === undefined || other === 0) return undefined;
  return measured / other;
}

export function startupMedianMs(report: BenchReport): number | undefined {
  if (report.startupMs.length === 0) return undefined;
  const sorted = [...report.startupMs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function totalFailures(report: BenchReport): number {
  let sum = report.memory.soak?.failures ?? 0;
  for (const workload of report.workloads) for (const c of workload.cells) sum += c.failures;
  for (const variant of [...(report.sharedReads?.variants ?? []), ...(report.rateLimitCost?.variants ?? []), ...(report.rateLimitCost?.calls?.variants ?? [])]) sum += variant.failures;
  return sum;
}

const fixed = (value: number | undefined, digits: number, unit = ''): string =>
  value === undefined || !Number.isFinite(value) ? 'not measured' : `${value.toFixed(digits)}${unit}`;

function check(name: string, goal: string, value: number | undefined, measured: string, ok: (v: number) => boolean): TargetCheck {
  return { name, goal, measured, pass: value === undefined || !Number.isFinite(value) ? undefined : ok(value) };
}

/** Differences of figures carry binary rounding: a difference equal to its goal (as printed) meets it. */
const ROUNDING = 1e-9;

/** The throughput goal against the bare proxy for a workload. */
function bareThroughputGoal(workload: WorkloadResult): number {
  return workload.composite ? GOALS.vsBareProxyComposite : GOALS.vsBareProxy;
}

/** What the design-card floor reached on one workload, against the gateway's goals for it. */
export interface FloorCheck {
  workload: WorkloadId;
  /** Floor throughput ÷ the bare proxy's, and the gateway's goal for that ratio (at least). */
  throughputVsBare: number | undefined;
  throughputGoal: number;
  /** Whether even the floor meets the throughput goal; undefined when not measured. */
  throughputReachable: boolean | undefined;
  /** Floor CPU per operation ÷ the bare proxy's, and the gateway's goal for that ratio (at most). */
  cpuVsBare: number | undefined;
  cpuGoal: number;
  cpuReachable: boolean | undefined;
}

/**
 * The floor against the gateway's targets, per workload it was measured on: a target the floor
 * misses is out of reach of a gateway built from the design card's libraries.
 */
export function floorChecks(report: BenchReport): FloorCheck[] {
  return report.workloads
    .filter((w) => cell(w, 'floor') && cell(w, 'bare'))
    .map((w) => {
      const throughput = throughputRatio(w, 'bare', 'floor');
      const cpu = cpuRatio(w, 'floor');
      const goal = bareThroughputGoal(w);
      return {
        workload: w.id,
        throughputVsBare: throughput,
        throughputGoal: goal,
        throughputReachable: throughput === undefined || !Number.isFinite(throughput) ? undefined : throughput >= goal,
        cpuVsBare: cpu,
        cpuGoal: GOALS.cpuVsBareProxy,
        cpuReachable: cpu === undefined || !Number.isFinite(cpu) ? undefined : cpu <= GOALS.cpuVsBareProxy,
      };
    });
}

/** Every target of the benchmark, judged on the report's figures. */
export function evaluateTargets(report: BenchReport): TargetCheck[] {
  const checks: TargetCheck[] = [];
  // Latency is judged against the bare proxy's own added latency: the hop itself costs that much.
  for (const w of report.workloads.filter((x) => cell(x, 'bare'))) {
    const added = addedLatency(w);
    const bare = addedLatency(w, 'bare');
    const over = (key: 'p50Ms' | 'p99Ms') => (added && bare ? added[key] - bare[key] : undefined);
    const p50 = over('p50Ms');
    const p99 = over('p99Ms');
    checks.push(check(`(${w.id}) added latency p50 over the bare proxy's`, `≤ +${GOALS.addedP50OverBareMs} ms`, p50, `${fixed(added?.p50Ms, 2, ' ms')} (bare ${fixed(bare?.p50Ms, 2, ' ms')})`, (v) => v <= GOALS.addedP50OverBareMs + ROUNDING));
    checks.push(check(`(${w.id}) added latency p99 over the bare proxy's`, `≤ +${GOALS.addedP99OverBareMs} ms`, p99, `${fixed(added?.p99Ms, 2, ' ms')} (bare ${fixed(bare?.p99Ms, 2, ' ms')})`, (v) => v <= GOALS.addedP99OverBareMs + ROUNDING));
  }
  for (const w of report.workloads) {
    if (cell(w, 'bare')) {
      const ratio = throughputRatio(w, 'bare');
      const goal = bareThroughputGoal(w);
      checks.push(check(`(${w.id}) throughput vs bare proxy`, `≥ ${goal}×`, ratio, fixed(ratio, 2, '×'), (v) => v >= goal));
    }
    const ratio = throughputRatio(w, 'peer');
    checks.push(check(`(${w.id}) throughput vs peer`, `≥ ${GOALS.vsPeer}×`, ratio, fixed(ratio, 2, '×'), (v) => v >= GOALS.vsPeer));
  }
  for (const w of report.workloads.filter((x) => cell(x, 'bare'))) {
    const ratio = cpuRatio(w);
    const gateway = cell(w, 'gateway')?.cpuUsPerOp;
    checks.push(check(`(${w.id}) gateway CPU per operation ÷ bare proxy's`, `≤ ${GOALS.cpuVsBareProxy}×`, ratio, `${fixed(ratio, 2, '×')} (${fixed(gateway, 0, ' µs')})`, (v) => v <= GOALS.cpuVsBareProxy));
  }
  const rss = report.memory.saturationPeakMiB;
  checks.push(check('Gateway RSS at saturation (peak)', `≤ ${GOALS.rssMiB} MiB`, rss, fixed(rss, 1, ' MiB'), (v) => v <= GOALS.rssMiB));
  const soak = report.memory.soak;
  checks.push(check(`Gateway RSS growth over a ${soak?.seconds ?? 0} s soak`, `≤ ${GOALS.soakGrowthPct} %`, soak?.growthPct, fixed(soak?.growthPct, 1, ' %'), (v) => v <= GOALS.soakGrowthPct));
  const startup = startupMedianMs(report);
  checks.push(check('Gateway start-up (spawn → /healthz 200)', `≤ ${GOALS.startupMs} ms`, startup, fixed(startup, 0, ' ms'), (v) => v <= GOALS.startupMs));
  const probes = report.workloads.flatMap((w) => w.upstream.filter((u) => u.target === 'gateway' && u.probe.grouped));
  const duplicates = probes.length === 0 ? undefined : probes.reduce((sum, u) => sum + u.probe.duplicates, 0);
  checks.push(check('Duplicate upstream calls within a GraphQL request', '0', duplicates, duplicates === undefined ? 'not measured' : String(duplicates), (v) => v === 0));
  const failures = totalFailures(report);
  checks.push(check('Failed responses (errors, wrong data, non-2xx)', '0', failures, String(failures), (v) => v === 0));
  return checks;
}
