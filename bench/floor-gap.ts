/**
 * The gateway against the design-card floor, workload by workload: saturation throughput and CPU
 * per operation of each, in alternating runs over one sandbox, so that both see the same machine.
 * Optionally writes the gateway's CPU profile and prints its heaviest functions by self time.
 * Quicker than `npm run bench` and only about the floor: for iterating on the gateway's own cost.
 *
 *   node --disable-warning=ExperimentalWarning bench/floor-gap.ts [--workloads abcd] [--rounds N] [--seconds S] [--profile DIR] [--baseline CHECKOUT]
 *
 * With --baseline, the gateway of another checkout (an earlier revision, say) runs beside this one
 * as a third target, so that a change is measured before and after in one run. Ratios are the
 * medians of each round's ratio, which the machine's drift between rounds affects less.
 *
 * Both run with the Node flags of `npm start`, in production mode, without read sharing, pinned to
 * CPU 1 while the sandbox and the load generator share CPU 0 (as in bench/run.ts).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCommandLine } from '../src/settings/command-line.ts';
import { runLoad } from './lib/load.ts';
import { canPin, type Child, readCpuSeconds, spawnLogged, waitForReady } from './lib/processes.ts';
import { discoverFixtures } from './lib/sandbox-client.ts';
import { preparedStartCommand } from './lib/start-command.ts';
import { buildWorkloads, type WorkloadId } from './lib/workloads.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const HOST = '127.0.0.1';
const PORTS = { sandbox: 24810, content: 24811, gateway: 24800, floor: 24801, baseline: 24802 } as const;

const { values } = readCommandLine(
  {
    options: {
      workloads: { type: 'string', default: 'abcd' },
      rounds: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '4' },
      connections: { type: 'string', default: '32' },
      profile: { type: 'string' },
      verbose: { type: 'boolean', default: false },
      baseline: { type: 'string' },
      'baseline-env': { type: 'string', multiple: true, default: [] },
    },
  },
  {
    command: 'node bench/floor-gap.ts',
    summary: 'The gateway against the design-card floor, workload by workload: saturation throughput and CPU per operation,\nin alternating runs over one sandbox. Quicker than `npm run bench`, for iterating on the gateway\'s own cost.',
    options: {
      workloads: { text: 'the workloads to run, by letter', value: 'LETTERS' },
      rounds: { text: 'alternating rounds', value: 'N' },
      seconds: { text: 'length of each run', value: 'S' },
      connections: { text: 'concurrent connections of the load', value: 'N' },
      profile: { text: 'write the gateway\'s CPU profile into DIR and print its heaviest functions', value: 'DIR' },
      verbose: { text: 'print every run' },
      baseline: { text: 'a checkout of another revision (with its node_modules) whose gateway runs as a third target', value: 'CHECKOUT' },
      'baseline-env': { text: 'a setting of the baseline\'s gateway (repeatable); with --baseline . it measures what a feature costs', value: 'NAME=VALUE' },
    },
    examples: ['node bench/floor-gap.ts --workloads ab --rounds 5', 'node bench/floor-gap.ts --baseline . --baseline-env COMPILED_EXECUTION=false'],
  },
);
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const connections = Number(values.connections);

/** This checkout's gateway as `npm start` runs it, built from the sources now. */
const START = preparedStartCommand(ROOT);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

/** Source maps of the bundle's files, read once each; undefined for a file without one. */
const sourceMaps = new Map<string, SourceMap | undefined>();

/**
 * A profile frame's place in the sources: a frame of the bundle (dist/) is mapped through the
 * bundle's source map to the package or src/ file it was built from, so both profiles name the same
 * places and the gateway's own code is told apart from the libraries bundled with it.
 */
function sourceOf(frame: ProfileNode['callFrame']): { url: string; line: number } {
  if (!/\/dist\/[^/]+\.js$/.test(frame.url)) return { url: frame.url, line: frame.lineNumber };
  const file = fileURLToPath(frame.url);
  if (!sourceMaps.has(file)) {
    sourceMaps.set(file, existsSync(`${file}.map`) ? new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]) : undefined);
  }
  const entry = sourceMaps.get(file)?.findEntry(frame.lineNumber, frame.columnNumber);
  if (entry === undefined || !('originalSource' in entry)) return { url: frame.url, line: frame.lineNumber };
  return { url: new URL(entry.originalSource, frame.url).href, line: entry.originalLine };
}

type TargetName = 'gateway' | 'floor' | 'baseline';

interface Window {
  /** ms since the process was spawned */
  from: number;
  to: number;
}

/** Self time of one profile by place (package, src/ folder, node: module or native function) and by function, in samples. */
function selfTimes(dir: string, window: { from: number; to: number }): { interval: number; byPlace: Map<string, number>; byFunction: Map<string, number> } {
  const file = readdirSync(dir).filter((name) => name.endsWith('.cpuprofile')).sort().at(-1);
  if (file === undefined) throw new Error(`no profile in ${dir}`);
  const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  // Only the samples of the measured rounds: start-up, warm-up and shutdown are not per operation.
  let at = 0;
  let counted = 0;
  for (const [index, id] of profile.samples.entries()) {
    at += (profile.timeDeltas[index] as number) / 1000;
    if (at < window.from || at > window.to) continue;
    counted++;
    const frame = (byId.get(id) as ProfileNode).callFrame;
    if (frame.functionName === '(idle)' || frame.functionName === '(program)') continue;
    const source = sourceOf(frame);
    const where = source.url.replace(/^file:\/\/.*?\/(node_modules|src|bench)\//, '$1/');
    const name = `${frame.functionName || '(anonymous)'} ${where}:${source.line + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + 1);
    const place = where.startsWith('node_modules/')
      ? where.split('/').slice(0, where.startsWith('node_modules/@') ? 3 : 2).join('/')
      : where.startsWith('src/') ? where.split('/').slice(0, 2).join('/') : where !== '' ? where : frame.functionName || '(native)';
    byPlace.set(place, (byPlace.get(place) ?? 0) + 1);
  }
  return { interval: ((window.to - window.from) * 1000) / counted, byPlace, byFunction };
}

/** The two profiles side by side in µs of self time per operation, the largest differences first. */
function compareProfiles(dir: string, operations: { gateway: number; floor: number }, windows: { gateway: Window; floor: Window }, count = 45): string[] {
  const gateway = selfTimes(path.join(dir, 'gateway'), windows.gateway);
  const floor = selfTimes(path.join(dir, 'floor'), windows.floor);
  /** Each place or function's µs per operation in both, the largest differences first. */
  const rows = (key: 'byPlace' | 'byFunction') => {
    const names = new Set([...gateway[key].keys(), ...floor[key].keys()]);
    return [...names]
      .map((name) => ({
        name,
        g: ((gateway[key].get(name) ?? 0) * gateway.interval) / operations.gateway,
        f: ((floor[key].get(name) ?? 0) * floor.interval) / operations.floor,
      }))
      .sort((a, b) => Math.abs(b.g - b.f) - Math.abs(a.g - a.f));
  };
  const table = (key: 'byPlace' | 'byFunction') =>
    rows(key).slice(0, count).map((row) => `${row.g.toFixed(1).padStart(7)} ${row.f.toFixed(1).padStart(7)} ${(row.g - row.f).toFixed(1).padStart(7)}  ${row.name}`);
  // Every function, for reading past the heaviest afterwards: the bundle's chunks are renamed by the
  // next build, so the profiles cannot be mapped to the sources later.
  const tsv = rows('byFunction').map((row) => [row.g.toFixed(2), row.f.toFixed(2), row.name].join('\t'));
  writeFileSync(path.join(dir, 'functions.tsv'), ['gateway µs/op\tfloor µs/op\tfunction', ...tsv].join('\n') + '\n');
  const sum = (times: ReturnType<typeof selfTimes>, n: number) => ([...times.byPlace.values()].reduce((a, b) => a + b, 0) * times.interval) / n;
  return [
    `busy µs per operation over the whole run (profiled): gateway ${sum(gateway, operations.gateway).toFixed(0)}, floor ${sum(floor, operations.floor).toFixed(0)}`,
    'gateway   floor    diff  (µs of self time per operation) by place:', ...table('byPlace'), '', 'by function:', ...table('byFunction'),
  ];
}

async function main(): Promise<void> {
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'floor-gap-'));
  const pin = canPin();
  const cpu = (n: number) => (pin ? n : undefined);
  const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, ADMIN_PORT: 'off' };
  const children: Child[] = [];
  const operations: Record<TargetName, number> = { gateway: 0, floor: 0, baseline: 0 };
  const spawned: Record<TargetName, number> = { gateway: 0, floor: 0, baseline: 0 };
  const windows: Record<TargetName, Window> = { gateway: { from: Infinity, to: 0 }, floor: { from: Infinity, to: 0 }, baseline: { from: Infinity, to: 0 } };
  try {
    const sandbox = spawnLogged({
      name: 'sandbox', command: NODE, args: ['--disable-warning=ExperimentalWarning', 'sandbox/main.ts'], cwd: ROOT, logDir, cpu: cpu(0),
      env: { ...baseEnv, SANDBOX_HOST: HOST, SANDBOX_PORT: String(PORTS.sandbox), SANDBOX_CONTENT_PORT: String(PORTS.content), SANDBOX_LATENCY_MS: '0' },
    });
    children.push(sandbox);
    const sandboxUrl = `http://${HOST}:${PORTS.sandbox}`;
    await waitForReady(`${sandboxUrl}/__sandbox/requests`, sandbox, performance.now());
    const profileFlags = (name: string) => (values.profile === undefined ? [] : ['--cpu-prof', '--cpu-prof-interval=250', `--cpu-prof-dir=${path.join(values.profile, name)}`]);
    spawned.gateway = performance.now();
    const gateway = spawnLogged({
      name: 'gateway', command: NODE, args: [...START.flags, ...profileFlags('gateway'), START.entry], cwd: ROOT, logDir, cpu: cpu(1),
      env: { ...baseEnv, UPSTREAM_SHARE_READS: 'false', NODE_ENV: 'production', UPSTREAM_URL: sandboxUrl, HOST, PORT: String(PORTS.gateway) },
    });
    children.push(gateway);
    spawned.floor = performance.now();
    const floor = spawnLogged({
      name: 'floor', command: NODE, args: [...START.flags, ...profileFlags('floor'), 'bench/design-card-floor.ts'], cwd: ROOT, logDir, cpu: cpu(1),
      env: { ...baseEnv, NODE_ENV: 'production', UPSTREAM_URL: sandboxUrl, HOST, PORT: String(PORTS.floor) },
    });
    children.push(floor);
    let baseline: Child | undefined;
    if (values.baseline !== undefined) {
      spawned.baseline = performance.now();
      const root = path.resolve(values.baseline);
      const { flags, entry } = preparedStartCommand(root);
      baseline = spawnLogged({
        name: 'baseline', command: path.join(root, 'node_modules/.bin/node'), args: [...flags, entry], cwd: root, logDir, cpu: cpu(1),
        env: { ...baseEnv, UPSTREAM_SHARE_READS: 'false', NODE_ENV: 'production', UPSTREAM_URL: sandboxUrl, HOST, PORT: String(PORTS.baseline), ...Object.fromEntries(values['baseline-env'].map((setting) => setting.split(/=(.*)/s).slice(0, 2))) },
      });
      children.push(baseline);
    }
    const gatewayMs = await waitForReady(`http://${HOST}:${PORTS.gateway}/healthz`, gateway, performance.now());
    await waitForReady(`http://${HOST}:${PORTS.floor}/healthz`, floor, performance.now());
    if (baseline) await waitForReady(`http://${HOST}:${PORTS.baseline}/healthz`, baseline, performance.now());
    console.log(`gateway ready after ${gatewayMs.toFixed(0)} ms of polling`);
    const { fixtures } = await discoverFixtures(sandboxUrl, 'demo-token-acme');
    const workloads = buildWorkloads(fixtures).filter((w) => values.workloads.includes(w.id as WorkloadId));
    const processes = { gateway, floor, ...(baseline ? { baseline } : {}) } as Record<TargetName, Child>;
    const names = Object.keys(processes) as TargetName[];
    console.log(['workload', ...names.map((name) => `${name} ops/s`), ...names.map((name) => `${name} µs/op`), 'gateway÷floor ops', 'gateway÷floor µs', ...(baseline ? ['gateway÷baseline ops', 'gateway÷baseline µs'] : [])].join(' | '));
    for (const workload of workloads) {
      const samples = Object.fromEntries(names.map((name) => [name, { ops: [] as number[], cpu: [] as number[] }])) as Record<TargetName, { ops: number[]; cpu: number[] }>;
      const calls = workload.plans.gateway?.calls ?? [];
      const origin = (name: TargetName) => `http://${HOST}:${PORTS[name]}`;
      for (const name of names) await runLoad({ origin: origin(name), calls, connections, durationS: 1 });
      for (let round = 0; round < rounds; round++) {
        for (const name of names) {
          const pid = processes[name].pid;
          const before = readCpuSeconds(pid);
          const window = windows[name];
          window.from = Math.min(window.from, performance.now() - spawned[name]);
          const result = await runLoad({ origin: origin(name), calls, connections, durationS: seconds });
          if (result.failures > 0) throw new Error(`${name} (${workload.id}): ${[...result.failureReasons.keys()].join('; ')}`);
          operations[name] += result.valid;
          window.to = performance.now() - spawned[name];
          samples[name].ops.push(result.valid / result.durationS);
          samples[name].cpu.push((1e6 * (readCpuSeconds(pid) - before)) / result.valid);
        }
      }
      if (values.verbose) console.log(JSON.stringify(samples, (_k, v: unknown) => (typeof v === 'number' ? Math.round(v) : v)));
      const ratio = (a: number[], b: number[]) => median(a.map((value, i) => value / (b[i] as number))).toFixed(2);
      console.log([
        `(${workload.id})`,
        ...names.map((name) => median(samples[name].ops).toFixed(0)),
        ...names.map((name) => median(samples[name].cpu).toFixed(0)),
        ratio(samples.gateway.ops, samples.floor.ops),
        ratio(samples.gateway.cpu, samples.floor.cpu),
        ...(baseline ? [ratio(samples.gateway.ops, samples.baseline.ops), ratio(samples.gateway.cpu, samples.baseline.cpu)] : []),
      ].join(' | '));
    }
  } finally {
    for (const child of children.reverse()) await child.stop();
  }
  if (values.profile !== undefined) for (const line of compareProfiles(values.profile, operations, windows)) console.log(line);
}

await main();
