/**
 * Liveness and readiness under a CPU flood: the gateway (production bundle, one process, admin port
 * on) over the sandbox, flooded by --connections clients of a heavy workload while this process
 * asks `/healthz` and `/readyz` on the admin port every --interval ms and times each answer. With
 * --baseline, another checkout's gateway gets the same flood afterwards, so a change is measured
 * before and after in one run. The table goes to docs/scaling.md.
 *
 *   node --disable-warning=ExperimentalWarning bench/probes-under-flood.ts [--workload c] [--connections 30] [--seconds 20] [--interval 250] [--baseline CHECKOUT]
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCommandLine } from '../src/settings/command-line.ts';
import { runLoad } from './lib/load.ts';
import { spawnLogged, waitForReady, type Child } from './lib/processes.ts';
import { discoverFixtures } from './lib/sandbox-client.ts';
import { preparedStartCommand } from './lib/start-command.ts';
import { percentileOfSorted } from './lib/stats.ts';
import { buildWorkloads, graphqlCall, type Fixtures, type HttpCall } from './lib/workloads.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const HOST = '127.0.0.1';
const PORTS = { sandbox: 24710, content: 24711, gateway: 24700, admin: 24709 } as const;

const { values } = readCommandLine(
  {
    options: {
      workload: { type: 'string', default: 'heavy' },
      connections: { type: 'string', default: '30' },
      seconds: { type: 'string', default: '20' },
      interval: { type: 'string', default: '250' },
      baseline: { type: 'string' },
    },
  },
  {
    command: 'node bench/probes-under-flood.ts',
    summary: 'Liveness and readiness under a CPU flood: the admin port\'s /healthz and /readyz timed while heavy queries\nsaturate the gateway, for this checkout and optionally another one.',
    options: {
      workload: { text: 'the flood: `heavy` (three lists of 100 rows, every field) or a benchmark workload by letter', value: 'NAME' },
      connections: { text: 'concurrent clients of the flood', value: 'N' },
      seconds: { text: 'length of the flood', value: 'S' },
      interval: { text: 'time between two asks of each probe', value: 'MS' },
      baseline: { text: 'a checkout of another revision (with its node_modules) flooded the same way afterwards', value: 'CHECKOUT' },
    },
    examples: ['node bench/probes-under-flood.ts --baseline ../before'],
  },
);

/** Three lists of 100 rows with every scalar field, in one query: each answer holds the loop for a few milliseconds. */
function heavyFlood(f: Fixtures): { title: string; calls: HttpCall[] } {
  const query = `query Heavy($account: ID!, $templateId: ID!, $templateVersionId: ID!) {
    exceptions(first: 100) { totalCount nodes { id entityId businessAccountId category type status description createdAt updatedAt notes { id title contentText createdAt } assignedTo { id firstName lastName email } } }
    documentAcceptances(financialAccountId: $account, first: 100) { nodes { id documentId documentVersion acceptorType acceptorId businessAccountId financialAccountId scopes metadata accepted respondedAt createdAt } }
    linxBatches(filter: { templateId: $templateId, templateVersionId: $templateVersionId }, first: 100) { nodes { id status templateId templateVersionId templateVersion templateDisplayName activeRequestsCount completedRequestsCount totalRequestsCount createdAt updatedAt } }
  }`;
  const variables = { account: f.financialAccountId, templateId: f.templateId, templateVersionId: f.templateVersionId };
  const validate = (status: number, body: string) => (status === 200 && !body.includes('"errors"') ? undefined : `status ${status}: ${body.slice(0, 200)}`);
  return { title: 'Heavy: three lists of 100 rows, every field', calls: [graphqlCall('heavy', f.token, 'Heavy', query, variables, validate)] };
}

interface ProbeTimes {
  ms: number[];
  statuses: Map<string, number>;
}

/** Asks `url` every `interval` ms until `stop`, each ask bounded at 5 s (a probe's answer past that counts as 5 s, status `timeout`). */
async function probe(url: string, interval: number, stopped: () => boolean): Promise<ProbeTimes> {
  const times: ProbeTimes = { ms: [], statuses: new Map() };
  while (!stopped()) {
    const started = performance.now();
    let status: string;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      const body = await response.text();
      status = response.status === 200 ? '200' : `${response.status} ${(JSON.parse(body) as { status?: string }).status ?? ''}`.trim();
    } catch {
      status = 'timeout';
    }
    times.ms.push(performance.now() - started);
    times.statuses.set(status, (times.statuses.get(status) ?? 0) + 1);
    const wait = interval - (performance.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return times;
}

function row(label: string, times: ProbeTimes): string {
  const sorted = [...times.ms].sort((a, b) => a - b);
  const statuses = [...times.statuses].map(([status, count]) => `${status} ×${count}`).join(', ');
  return `| ${label} | ${percentileOfSorted(sorted, 50).toFixed(0)} ms | ${percentileOfSorted(sorted, 99).toFixed(0)} ms | ${(sorted.at(-1) ?? NaN).toFixed(0)} ms | ${statuses} |`;
}

async function flood(name: string, root: string, sandboxUrl: string, logDir: string): Promise<string[]> {
  const { flags, entry } = preparedStartCommand(root);
  const gateway: Child = spawnLogged({
    name,
    command: path.join(root, 'node_modules/.bin/node'),
    args: [...flags, entry],
    cwd: root,
    logDir,
    env: { PATH: process.env.PATH, NODE_ENV: 'production', UPSTREAM_URL: sandboxUrl, HOST, PORT: String(PORTS.gateway), ADMIN_PORT: String(PORTS.admin), LOG_LEVEL: 'warn', UPSTREAM_SHARE_READS: 'false' },
  });
  try {
    await waitForReady(`http://${HOST}:${PORTS.admin}/healthz`, gateway, performance.now());
    const { fixtures } = await discoverFixtures(sandboxUrl, 'demo-token-acme');
    const known = buildWorkloads(fixtures).find((w) => w.id === values.workload);
    const workload = values.workload === 'heavy' ? heavyFlood(fixtures) : known && { title: known.title, calls: known.plans.gateway!.calls };
    if (workload === undefined) throw new Error(`no workload ${values.workload}`);
    let done = false;
    const admin = `http://${HOST}:${PORTS.admin}`;
    const probes = Promise.all([probe(`${admin}/healthz`, Number(values.interval), () => done), probe(`${admin}/readyz`, Number(values.interval), () => done)]);
    const load = await runLoad({ origin: `http://${HOST}:${PORTS.gateway}`, calls: workload.calls, connections: Number(values.connections), durationS: Number(values.seconds) });
    done = true;
    const [healthz, readyz] = await probes;
    console.log(`${name}: ${workload.title}, ${load.valid} valid answers in ${load.durationS} s, ${load.failures} failures`);
    return [row(`\`/healthz\` ${name}`, healthz), row(`\`/readyz\` ${name}`, readyz)];
  } finally {
    await gateway.stop();
  }
}

async function main(): Promise<void> {
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'bench-probes-'));
  const sandbox = spawnLogged({
    name: 'sandbox', command: path.join(ROOT, 'node_modules/.bin/node'), args: ['--disable-warning=ExperimentalWarning', 'sandbox/main.ts'], cwd: ROOT, logDir,
    env: { PATH: process.env.PATH, SANDBOX_HOST: HOST, SANDBOX_PORT: String(PORTS.sandbox), SANDBOX_CONTENT_PORT: String(PORTS.content), SANDBOX_LATENCY_MS: '0' },
  });
  try {
    const sandboxUrl = `http://${HOST}:${PORTS.sandbox}`;
    await waitForReady(`${sandboxUrl}/__sandbox/requests`, sandbox, performance.now());
    const rows: string[] = [];
    if (values.baseline !== undefined) rows.push(...(await flood('before', path.resolve(values.baseline), sandboxUrl, logDir)));
    rows.push(...(await flood('after', ROOT, sandboxUrl, logDir)));
    console.log(['| probe (admin port) | median | p99 | max | answers |', '|---|---|---|---|---|', ...rows].join('\n'));
  } finally {
    await sandbox.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
