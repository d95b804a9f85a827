/** The figures of one benchmark run and the targets they are judged against. */
import type { MachineInfo } from './machine.ts';
import type { TargetName, WorkloadId } from './workloads.ts';

export interface LatencyFigure {
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
  workloads: WorkloadResult[];
  /** Gateway RSS: right after start-up, the peak over the saturation runs, and the soak. */
  memory: { idleMiB: number; saturationPeakMiB: number; soak?: SoakFigure };
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
  addedP50Ms: 1,
  addedP99Ms: 5,
  vsBareProxy: 0.6,
  vsPeer: 2,
  cpuUsPerSimpleQuery: 400,
  rssMiB: 150,
  soakGrowthPct: 10,
  startupMs: 1000,
} as const;

export function cell(workload: WorkloadResult, target: TargetName): CellResult | undefined {
  return workload.cells.find((c) => c.target === target);
}

export function addedLatency(workload: WorkloadResult): { p50Ms: number; p99Ms: number } | undefined {
  const gateway = cell(workload, 'gateway')?.latency;
  const rest = cell(workload, 'rest')?.latency;
  if (!gateway || !rest) return undefined;
  return { p50Ms: gateway.p50Ms - rest.p50Ms, p99Ms: gateway.p99Ms - rest.p99Ms };
}

export function throughputRatio(workload: WorkloadResult, versus: TargetName): number | undefined {
  const gateway = cell(workload, 'gateway')?.throughput?.opsPerSecond;
  const other = cell(workload, versus)?.throughput?.opsPerSecond;
  if (gateway === undefined || other === undefined || other === 0) return undefined;
  return gateway / other;
}

export function startupMedianMs(report: BenchReport): number | undefined {
  if (report.startupMs.length === 0) return undefined;
  const sorted = [...report.startupMs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function totalFailures(report: BenchReport): number {
  let sum = report.memory.soak?.failures ?? 0;
  for (const workload of report.workloads) for (const c of workload.cells) sum += c.failures;
  return sum;
}

const fixed = (value: number | undefined, digits: number, unit = ''): string =>
  value === undefined || !Number.isFinite(value) ? 'not measured' : `${value.toFixed(digits)}${unit}`;

function check(name: string, goal: string, value: number | undefined, measured: string, ok: (v: number) => boolean): TargetCheck {
  return { name, goal, measured, pass: value === undefined || !Number.isFinite(value) ? undefined : ok(value) };
}

/** Every target of the benchmark, judged on the report's figures. */
export function evaluateTargets(report: BenchReport): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const w of report.workloads) {
    const added = addedLatency(w);
    checks.push(check(`(${w.id}) added latency p50`, `≤ ${GOALS.addedP50Ms} ms`, added?.p50Ms, fixed(added?.p50Ms, 2, ' ms'), (v) => v <= GOALS.addedP50Ms));
    checks.push(check(`(${w.id}) added latency p99`, `≤ ${GOALS.addedP99Ms} ms`, added?.p99Ms, fixed(added?.p99Ms, 2, ' ms'), (v) => v <= GOALS.addedP99Ms));
  }
  for (const w of report.workloads) {
    if (cell(w, 'bare')) {
      const ratio = throughputRatio(w, 'bare');
      checks.push(check(`(${w.id}) throughput vs bare proxy`, `≥ ${GOALS.vsBareProxy}×`, ratio, fixed(ratio, 2, '×'), (v) => v >= GOALS.vsBareProxy));
    }
    const ratio = throughputRatio(w, 'peer');
    checks.push(check(`(${w.id}) throughput vs peer`, `≥ ${GOALS.vsPeer}×`, ratio, fixed(ratio, 2, '×'), (v) => v >= GOALS.vsPeer));
  }
  for (const w of report.workloads.filter((x) => x.simpleConnection)) {
    const cpu = cell(w, 'gateway')?.cpuUsPerOp;
    checks.push(check(`(${w.id}) gateway CPU per request`, `≤ ${GOALS.cpuUsPerSimpleQuery} µs`, cpu, fixed(cpu, 0, ' µs'), (v) => v <= GOALS.cpuUsPerSimpleQuery));
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
