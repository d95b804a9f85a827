/**
 * The Workers line: saturation throughput of the gateway with WORKERS=2 against WORKERS=1, both
 * started in the same run, unpinned (two workers need both CPUs), measured in alternation so that
 * drift in the machine's other load falls on both alike. On a two-CPU machine the load generator
 * and the sandbox share those CPUs with the workers: the ratio is what a second core buys when the
 * clients and the platform also run there, not the gateway's scaling on dedicated cores.
 */
import { readFileSync } from 'node:fs';
import { runLoad } from './load.ts';
import { assertRunning, spawnLogged, waitForReady } from './processes.ts';
import type { Child } from './processes.ts';
import { median } from './stats.ts';
import type { TargetPlan, Workload, WorkloadId } from './workloads.ts';

const WORKER_COUNTS = [1, 2] as const;

export interface WorkersFigure {
  workload: WorkloadId;
  connections: number;
  /** Per WORKERS value: median operations/s over the runs, every run's figure, and failed responses. */
  results: Array<{ workers: number; opsPerSecond: number; runs: number[]; failures: number }>;
}

export interface WorkersSpec {
  node: string;
  /** The Node flags of `npm start`. */
  flags: string[];
  /** The gateway's entry file, as `npm start` names it. */
  entry: string;
  root: string;
  logDir: string;
  env: Record<string, string | undefined>;
  upstreamUrl: string;
  host: string;
  /** A port per WORKERS value, in WORKER_COUNTS order. */
  ports: readonly number[];
  workload: Workload;
  connections: number;
  warmupS: number;
  durationS: number;
  runs: number;
  children: Child[];
}

/** Resolves once the log shows every worker listening (the group's /healthz answers as soon as one does). */
async function allWorkersListening(child: Child): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (!readFileSync(child.logFile, 'utf8').includes('"msg":"workers started"')) {
    if (child.exit) throw new Error(`${child.name} exited before its workers started; see ${child.logFile}`);
    if (performance.now() > deadline) throw new Error(`${child.name}: workers not started after 30 s; see ${child.logFile}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function measureWorkers(spec: WorkersSpec): Promise<WorkersFigure> {
  const plan = spec.workload.plans.gateway as TargetPlan;
  const groups = WORKER_COUNTS.map((workers, i) => {
    const child = spawnLogged({
      name: `gateway-workers-${workers}`, command: spec.node, args: [...spec.flags, spec.entry], cwd: spec.root, logDir: spec.logDir,
      env: { ...spec.env, NODE_ENV: 'production', UPSTREAM_URL: spec.upstreamUrl, HOST: spec.host, PORT: String(spec.ports[i]), WORKERS: String(workers) },
    });
    spec.children.push(child);
    return { workers, child, origin: `http://${spec.host}:${spec.ports[i]}`, runs: [] as number[], failures: 0 };
  });
  try {
    const since = performance.now();
    for (const group of groups) {
      await waitForReady(`${group.origin}/healthz`, group.child, since);
      if (group.workers > 1) await allWorkersListening(group.child);
    }
    for (const group of groups) await runLoad({ origin: group.origin, calls: plan.calls, connections: spec.connections, durationS: spec.warmupS });
    for (let run = 0; run < spec.runs; run += 1) {
      // Alternate which goes first, so that a trend in the machine's load does not favour one.
      for (const group of run % 2 === 0 ? groups : [...groups].reverse()) {
        assertRunning(spec.children);
        const result = await runLoad({ origin: group.origin, calls: plan.calls, connections: spec.connections, durationS: spec.durationS });
        group.runs.push(result.valid / result.durationS);
        group.failures += result.failures;
      }
    }
  } finally {
    for (const group of groups) {
      await group.child.stop();
      spec.children.splice(spec.children.indexOf(group.child), 1);
    }
  }
  return {
    workload: spec.workload.id,
    connections: spec.connections,
    results: groups.map(({ workers, runs, failures }) => ({ workers, opsPerSecond: median(runs), runs, failures })),
  };
}

/** "WORKERS=2 1234 ops/s against WORKERS=1 800 ops/s (×1.54)". */
export function describeWorkers(figure: WorkersFigure): string {
  const [one, two] = figure.results;
  if (!one || !two) return 'not measured';
  const ratio = one.opsPerSecond > 0 ? two.opsPerSecond / one.opsPerSecond : Number.NaN;
  return `WORKERS=${two.workers} ${two.opsPerSecond.toFixed(0)} ops/s against WORKERS=${one.workers} ${one.opsPerSecond.toFixed(0)} ops/s (×${ratio.toFixed(2)})`;
}
