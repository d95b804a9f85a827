/**
 * What a Relay page's cursors cost the gateway: the CPU per request of workload (a)'s exceptions
 * page of 20 (assignee and note on each) asked two ways, with every edge's `cursor` and the
 * `endCursor`, and the same page without them, in alternating rounds at a fixed rate over one
 * gateway; and the gateway's start-up (spawn → `/healthz` on its admin listener). Optionally writes
 * the gateway's CPU profile and prints its heaviest functions by self time.
 *
 *   node --disable-warning=ExperimentalWarning bench/relay-page-cost.ts [--rounds N] [--seconds S] [--rate R] [--profile DIR]
 *
 * The gateway runs with the Node flags of `npm start`, as in bench/run.ts, in production mode,
 * without read sharing. On a shared machine the figures move with the others' load: compare the two
 * rows of one run, which alternate so that a change in load falls on both, and the round-by-round
 * line, which pairs the two figures of each round (measured back to back).
 *
 * The gateway's CPU is read from every thread's /proc schedstat, in nanoseconds (clock ticks of 10 ms
 * would be 25 µs per page at 400 pages a second, twice the cursors' own cost). Where taskset exists
 * and there are two CPUs, the gateway runs on CPU 1 and the sandbox and this harness (the load) on
 * CPU 0, as in bench/run.ts: otherwise the scheduler moves the gateway beside the load, and a round's
 * CPU per page moves with it.
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Readable } from 'node:stream';
import { canPin, pinProcess, readCpuNanoseconds } from './lib/processes.ts';
import { preparedStartCommand } from './lib/start-command.ts';
import { readCommandLine } from '../src/settings/command-line.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const HOST = '127.0.0.1';
const TOKEN = 'demo-token-acme';
const FIELDS = 'id status assignedTo { id firstName lastName email } notes { id title contentText }';
const QUERIES = {
  'with cursors': `query RelayPage { exceptions(first: 20) { edges { cursor node { ${FIELDS} } } pageInfo { hasNextPage endCursor } totalCount } }`,
  'without cursors': `query RelayPage { exceptions(first: 20) { edges { node { ${FIELDS} } } pageInfo { hasNextPage } totalCount } }`,
} as const;
type Variant = keyof typeof QUERIES;

const { values } = readCommandLine(
  {
    options: {
      rounds: { type: 'string', default: '5' },
      seconds: { type: 'string', default: '8' },
      rate: { type: 'string', default: '400' },
      profile: { type: 'string' },
      only: { type: 'string' },
    },
  },
  {
    command: 'node bench/relay-page-cost.ts',
    summary: 'What a Relay page\'s cursors cost the gateway: CPU per request of a page of 20 exceptions with and without\ncursors, in alternating rounds at a fixed rate over one gateway, and its start-up.',
    options: {
      rounds: { text: 'alternating rounds of both variants', value: 'N' },
      seconds: { text: 'length of each round', value: 'S' },
      rate: { text: 'requests per second', value: 'R' },
      profile: { text: 'write the gateway\'s CPU profile into DIR and print its heaviest functions', value: 'DIR' },
      only: { text: 'only this variant ("with cursors" or "without cursors"), for a profile of it alone', value: 'VARIANT' },
    },
    examples: ['node bench/relay-page-cost.ts --rounds 3 --seconds 5'],
  },
);
const rounds = Number(values.rounds);
/** Least warm-up per variant before the measured rounds. */
const WARM_UP_SECONDS = 15;
const seconds = Number(values.seconds);
const rate = Number(values.rate);
const variants = (Object.keys(QUERIES) as Variant[]).filter((variant) => values.only === undefined || variant === values.only);
if (variants.length === 0) throw new Error(`--only must be one of: ${Object.keys(QUERIES).join(', ')}`);

/** This checkout's gateway as `npm start` runs it, built from the sources now. */
const START = preparedStartCommand(ROOT);

async function ready(url: string, timeoutMs = 30_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    const ok = await fetch(url).then((response) => response.ok, () => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`${url} not ready`);
}

/**
 * The first group of each pattern's first match in what `stream` prints: the addresses a process
 * took on free ports. The stream is drained afterwards, so the process never blocks on a full pipe.
 */
function printed(stream: Readable, patterns: readonly RegExp[], timeoutMs = 30_000): Promise<string[]> {
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no lines matching ${patterns.join(', ')} within ${timeoutMs} ms:\n${text}`)), timeoutMs);
    stream.setEncoding('utf8');
    const read = (chunk: string) => {
      text += chunk;
      const matches = patterns.map((pattern) => pattern.exec(text)?.[1]);
      if (matches.some((match) => match === undefined)) return;
      clearTimeout(timer);
      stream.off('data', read);
      stream.resume();
      resolve(matches as string[]);
    };
    stream.on('data', read);
  });
}

/** The measured rounds' CPU seconds and pages of each variant, summed (warm-up rounds are taken out after). */
const totals: Record<Variant, { cpu: number; pages: number }> = { 'with cursors': { cpu: 0, pages: 0 }, 'without cursors': { cpu: 0, pages: 0 } };

/** CPU seconds of the gateway per request answered with a page, over one run of `variant`. */
async function round(pid: number, origin: string, variant: Variant, length = seconds): Promise<number> {
  const body = JSON.stringify({ query: QUERIES[variant] });
  const before = readCpuNanoseconds(pid);
  let pages = 0;
  let failures = 0;
  await new Promise<void>((resolve, reject) => {
    autocannon(
      {
        url: origin,
        connections: 8,
        overallRate: rate,
        duration: length,
        requests: [
          {
            method: 'POST',
            path: '/graphql',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
            body,
            onResponse: (status: number, text: string) => {
              const answer = JSON.parse(text) as { data?: { exceptions?: { edges?: unknown[] } }; errors?: unknown };
              if (status === 200 && answer.errors === undefined && answer.data?.exceptions?.edges?.length === 20) pages++;
              else failures++;
            },
          },
        ],
      },
      (error: Error | null) => (error ? reject(error) : resolve()),
    );
  });
  if (failures > 0) throw new Error(`${failures} answers without a page of 20 (${variant})`);
  const cpu = (readCpuNanoseconds(pid) - before) / 1e9;
  totals[variant].cpu += cpu;
  totals[variant].pages += pages;
  return cpu / pages;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

function frameName(node: ProfileNode): string {
  const frame = node.callFrame;
  const where = frame.url.replace(/^file:\/\/.*?\/(node_modules|src)\//, '$1/');
  return `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
}

/** The gateway's own functions (src/) with the most total time (theirs and their callees'), as shares of the busy samples. */
function heaviestOwn(file: string, count = 25): string[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[] };
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const total = new Map<string, number>();
  let busy = 0;
  for (const id of profile.samples) {
    if (byId.get(id)?.callFrame.functionName === '(idle)') continue;
    busy++;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at) as ProfileNode;
      if (!node.callFrame.url.includes('/src/')) continue;
      const name = frameName(node);
      if (seen.has(name)) continue;
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + 1);
    }
  }
  return [...total.entries()].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, samples]) => `${((100 * samples) / busy).toFixed(1).padStart(5)} %  ${name}`);
}

/** The functions with the most self time in a .cpuprofile, as shares of its busy (not idle) samples. */
function heaviest(file: string, count = 30): string[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[] };
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  for (const id of profile.samples) {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    const name = frameName(node);
    self.set(name, (self.get(name) ?? 0) + 1);
  }
  const total = [...self.values()].reduce((sum, samples) => sum + samples, 0);
  return [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, samples]) => `${((100 * samples) / total).toFixed(1).padStart(5)} %  ${name}`);
}

const env = { PATH: process.env.PATH, HOME: process.env.HOME };
const pinned = canPin();
if (pinned) pinProcess(process.pid, 0);
// Every listener on a free port: benchmarks and tests may run side by side on one machine.
const sandbox = spawn(NODE, ['--disable-warning=ExperimentalWarning', 'sandbox/main.ts'], {
  cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'],
  env: { ...env, SANDBOX_HOST: HOST, SANDBOX_PORT: '0', SANDBOX_CONTENT_PORT: '0', SANDBOX_LATENCY_MS: '0' },
});
const profileFlags = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${values.profile}`] : [];
try {
  const [platform] = (await printed(sandbox.stdout!, [/^Platform sandbox: (http:\S+)$/m])) as [string];
  await ready(`${platform}/__sandbox/requests`);
  const spawned = performance.now();
  const gateway = spawn(NODE, [...START.flags, ...profileFlags, START.entry], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...env, NODE_ENV: 'production', UPSTREAM_URL: platform, UPSTREAM_SHARE_READS: 'false', HOST, PORT: '0', ADMIN_HOST: HOST, ADMIN_PORT: '0' },
  });
  try {
    const [origin, admin] = (await printed(gateway.stdout!, [/^GraphQL endpoint: (http:\S+)\/graphql$/m, /^Admin \([^)]*\): (http:\S+)$/m])) as [string, string];
    await ready(`${admin}/healthz`);
    console.log(`start-up ${(performance.now() - spawned).toFixed(0)} ms (spawn → admin /healthz)`);
    const pid = gateway.pid as number;
    if (pinned) pinProcess(pid, 1);
    // Warm-up: compiled execution, the JIT, the keep-alive pool, the heap's size. Rounds measured
    // while the gateway still speeds up would favour whichever variant runs second in a pair.
    for (const variant of variants) await round(pid, origin, variant, Math.max(seconds, WARM_UP_SECONDS));
    for (const variant of variants) totals[variant] = { cpu: 0, pages: 0 };
    const figures: Record<Variant, number[]> = { 'with cursors': [], 'without cursors': [] };
    for (let index = 0; index < rounds; index++) {
      for (const variant of index % 2 === 0 ? variants : [...variants].reverse()) figures[variant].push(await round(pid, origin, variant));
    }
    for (const variant of variants) console.log(`${variant.padEnd(16)} ${figures[variant].map((s) => (s * 1e6).toFixed(0)).join(' ')} µs CPU per page, median ${(median(figures[variant]) * 1e6).toFixed(0)}`);
    if (variants.length === 2) {
      const [withCursors, without] = [median(figures['with cursors']), median(figures['without cursors'])];
      console.log(`cursors add ${((withCursors / without - 1) * 100).toFixed(1)} % (medians of the rounds)`);
      const perPage = (variant: Variant) => totals[variant].cpu / totals[variant].pages;
      console.log(`all rounds together: ${(perPage('with cursors') * 1e6).toFixed(0)} against ${(perPage('without cursors') * 1e6).toFixed(0)} µs CPU per page, cursors add ${((perPage('with cursors') / perPage('without cursors') - 1) * 100).toFixed(1)} %`);
      // Each round's two figures were measured back to back: their difference and ratio see the same load.
      const pairs = figures['with cursors'].map((seconds, index) => [seconds, figures['without cursors'][index] as number] as const);
      const differences = pairs.map(([withOne, withoutOne]) => (withOne - withoutOne) * 1e6);
      const ratios = pairs.map(([withOne, withoutOne]) => withOne / withoutOne);
      console.log(`round by round: cursors add ${(median(differences)).toFixed(0)} µs, ${((median(ratios) - 1) * 100).toFixed(1)} % (medians of ${pairs.length} rounds)`);
    }
  } finally {
    gateway.kill('SIGTERM');
    await new Promise((resolve) => gateway.once('exit', resolve));
  }
  if (values.profile) {
    const newest = readdirSync(values.profile).filter((name) => name.endsWith('.cpuprofile')).sort().at(-1);
    if (newest) console.log(['self time:', ...heaviest(path.join(values.profile, newest)), 'total time, src/:', ...heaviestOwn(path.join(values.profile, newest))].join('\n'));
  }
} finally {
  sandbox.kill('SIGTERM');
}
