/**
 * What each feature of the gateway costs per operation, measured inside one running gateway: this
 * process runs the gateway (from the sources, production settings) with its parts wrapped by a
 * FeatureSwitches (bench/lib/feature-switches.ts), the
 * sandbox and the load generator (autocannon) run as child processes, and while one continuous load
 * runs, each feature is turned off and on in alternating windows of a few hundred milliseconds. The
 * process's CPU time (every thread, from /proc/self/task/<tid>/schedstat, in nanoseconds) divided by
 * the requests that arrived gives the CPU per operation of each window; a feature's marginal cost is
 * "on" minus "off" of adjacent windows, as the median over many pairs with a 95 % interval of that
 * median (how well the run pins it down, narrowing as more pairs are taken) and the interquartile
 * range (how much one pair moves). The `control` switch turns nothing off: its interval is the
 * harness's resolution in that run, and a feature within it counts as within noise, not as measured.
 *
 *   node --disable-warning=ExperimentalWarning bench/feature-cost.ts [--pairs N] [--window-ms MS] [--connections N] [--workload a|b|c|d] [--features a,b]
 *
 * Why not two processes: two gateway processes on this 2-core machine differ by ~10 % run to run,
 * which hides a 10–50 µs effect; windows of one process share its warm-up, heap and load.
 *
 * Where taskset exists and there are two CPUs, this process (the gateway, every thread) runs on CPU 1
 * and the sandbox and the load generator on CPU 0, as in bench/run.ts: otherwise the scheduler moves
 * the gateway between CPUs and beside the load generator, and a window's CPU per request moves with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCommandLine } from '../src/settings/command-line.ts';
import { loadConfig } from '../src/settings/config.ts';
import { bufferedDestination, createLogger } from '../src/logger.ts';
import { startGateway } from '../src/server.ts';
import { FeatureSwitches, SWITCHABLE_FEATURES, type SwitchableFeature } from './lib/feature-switches.ts';
import { discoverFixtures } from './lib/sandbox-client.ts';
import { buildWorkloads } from './lib/workloads.ts';
import { canPin, pinProcess, readCpuNanoseconds } from './lib/processes.ts';
import { median, medianInterval, percentile } from './lib/stats.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const AUTOCANNON = path.join(ROOT, 'node_modules/autocannon/autocannon.js');
const HOST = '127.0.0.1';
const PORTS = { sandbox: 24910, content: 24911 } as const;
const TOKEN = 'demo-token-acme';

const { values } = readCommandLine(
  {
    options: {
      pairs: { type: 'string', default: '30' },
      'window-ms': { type: 'string', default: '300' },
      connections: { type: 'string', default: '8' },
      workload: { type: 'string', default: 'd' },
      features: { type: 'string' },
      env: { type: 'string', multiple: true, default: [] },
    },
  },
  {
    command: 'npm run bench:features',
    summary:
      "Each feature's marginal CPU per operation, measured inside one gateway under one continuous load: the\n" +
      'feature is switched off and on in alternating windows, with an A/A control (the "control" switch).',
    options: {
      pairs: { text: 'on/off window pairs per feature', value: 'N' },
      'window-ms': { text: 'length of a measured window (50 ms more settle before each)', value: 'MS' },
      connections: { text: 'autocannon connections', value: 'N' },
      workload: { text: 'the benchmark\'s workload whose request the load sends: (a) an exceptions page, (b) a LinX page, (c) three areas, (d) one document read', value: 'LETTER' },
      features: { text: `comma-separated features, all by default: ${SWITCHABLE_FEATURES.join(', ')}`, value: 'LIST' },
      env: { text: "a setting of the gateway (repeatable), e.g. a budget for the calls budget's draw", value: 'NAME=VALUE' },
    },
    examples: ['npm run bench:features -- --pairs 20 --features control,metrics', 'npm run bench:features -- --features control,"calls budget" --env RATE_LIMIT_PER_SECOND=1000000'],
  },
);
const pairs = Number(values.pairs);
const windowMs = Number(values['window-ms']);
const settleMs = 50;
const features = (values.features?.split(',') ?? [...SWITCHABLE_FEATURES]) as SwitchableFeature[];
for (const feature of features) {
  if (!(SWITCHABLE_FEATURES as readonly string[]).includes(feature)) throw new Error(`unknown feature "${feature}": one of ${SWITCHABLE_FEATURES.join(', ')}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function ready(url: string, timeoutMs = 30_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (performance.now() < until) {
    if (await fetch(url).then((response) => response.ok, () => false)) return;
    await sleep(20);
  }
  throw new Error(`${url} not ready`);
}

/** The workload's one request, exactly as `npm run bench` sends it (bench/lib/workloads.ts), with the sandbox's seeded ids. */
async function requestBody(workload: string): Promise<string> {
  const { fixtures } = await discoverFixtures(`http://${HOST}:${PORTS.sandbox}`, TOKEN);
  const calls = buildWorkloads(fixtures).find((candidate) => candidate.id === workload)?.plans.gateway?.calls ?? [];
  if (calls.length !== 1 || calls[0]!.body === undefined) throw new Error('--workload must be one of a, b, c, d');
  return calls[0]!.body;
}

/** The command and arguments that run `command` on `cpu` when pinning is possible. */
function onCpu(cpu: number | undefined, command: string, args: string[]): [string, string[]] {
  return cpu === undefined ? [command, args] : ['taskset', ['-c', String(cpu), command, ...args]];
}

async function main(): Promise<void> {
  const env = { ...process.env, NODE_ENV: 'production' };
  const pinned = canPin();
  if (pinned) pinProcess(process.pid, 1);
  const others = pinned ? 0 : undefined;
  const sandbox = spawn(...onCpu(others, NODE, ['--disable-warning=ExperimentalWarning', 'sandbox/main.ts']), {
    cwd: ROOT,
    env: { ...env, SANDBOX_HOST: HOST, SANDBOX_PORT: String(PORTS.sandbox), SANDBOX_CONTENT_PORT: String(PORTS.content), SANDBOX_LATENCY_MS: '0' },
    stdio: 'ignore',
  });
  let load: ChildProcess | undefined;
  const switches = new FeatureSwitches();
  // Production settings, as the image runs; read sharing off so every request makes its platform call.
  const settings = Object.fromEntries(values.env.map((setting) => setting.split(/=(.*)/s).slice(0, 2)));
  const config = loadConfig({ ...env, HOST, PORT: '0', ADMIN_PORT: 'off', UPSTREAM_URL: `http://${HOST}:${PORTS.sandbox}`, UPSTREAM_SHARE_READS: 'false', ...settings });
  // The log lines go where a supervisor's pipe would take them, through the gateway's own buffered writer.
  const logger = createLogger(config.logLevel, { destination: bufferedDestination('/dev/null') });
  try {
    await ready(`http://${HOST}:${PORTS.sandbox}/__sandbox/requests`);
    const body = await requestBody(values.workload!);
    // The gateway's parts (its policies, stages, limits and observers) wrapped by the switches, from here.
    const gateway = await startGateway(config, `http://${HOST}:${PORTS.sandbox}`, { logger, parts: switches.parts() });
    let arrived = 0;
    gateway.server.on('request', () => arrived++);
    const check = await fetch(`${gateway.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body });
    const answer = (await check.json()) as { errors?: unknown };
    if (check.status !== 200 || answer.errors !== undefined) throw new Error(`the workload's request fails: ${JSON.stringify(answer).slice(0, 300)}`);

    const seconds = Math.ceil((features.length * pairs * 2 * (windowMs + settleMs)) / 1000) + 15;
    load = spawn(...onCpu(others, NODE, [AUTOCANNON, '-c', values.connections!, '-d', String(seconds), '-m', 'POST', '-H', 'content-type=application/json', '-H', `authorization=Bearer ${TOKEN}`, '-b', body, `${gateway.url}/graphql`]), { stdio: 'ignore' });
    // Warm-up: compiled execution, JIT and the heap settle before the first window.
    await sleep(5_000);

    /** CPU µs per request over one window with `feature` set to `on`. */
    const window = async (feature: SwitchableFeature, on: boolean): Promise<number> => {
      switches.set(feature, on);
      await sleep(settleMs);
      const cpu = readCpuNanoseconds('self');
      const requests = arrived;
      await sleep(windowMs);
      const done = arrived - requests;
      if (done < 20) throw new Error(`only ${done} requests in a ${windowMs} ms window: is the load running?`);
      return (readCpuNanoseconds('self') - cpu) / 1000 / done;
    };

    const rows: string[] = [];
    const everything: number[] = [];
    // The windows of "every feature" itself: the gateway with and without them, at one time of the run.
    const together = { on: [] as number[], off: [] as number[] };
    for (const feature of features) {
      const marginal: number[] = [];
      for (let pair = 0; pair < pairs; pair++) {
        // Alternate which setting goes first, so a drift in load falls on both.
        const onFirst = pair % 2 === 0;
        const first = await window(feature, onFirst);
        const second = await window(feature, !onFirst);
        const [on, off] = onFirst ? [first, second] : [second, first];
        marginal.push(on - off);
        everything.push(on);
        if (feature === 'every feature') {
          together.on.push(on);
          together.off.push(off);
        }
      }
      switches.set(feature, true);
      const middle = median(marginal);
      const [q1, q3] = [percentile(marginal, 25), percentile(marginal, 75)];
      const [low, high] = medianInterval(marginal);
      rows.push(`| ${feature} | ${middle.toFixed(1)} | ${low.toFixed(1)} … ${high.toFixed(1)} | ${q1.toFixed(1)} … ${q3.toFixed(1)} |`);
      console.error(`${feature}: ${middle.toFixed(1)} µs/op (95 % interval of the median ${low.toFixed(1)} … ${high.toFixed(1)}, IQR ${q1.toFixed(1)} … ${q3.toFixed(1)})`);
    }
    console.log(`\nworkload (${values.workload}), ${values.connections} connections, ${pairs} pairs of ${windowMs} ms windows per feature, ${pinned ? 'pinned (gateway on CPU 1, sandbox and load on CPU 0)' : 'not pinned'}; ` +
      `the gateway with every feature on: ${median(everything).toFixed(0)} µs CPU per operation (median of its windows)` +
      (together.on.length > 0 ? `; in the windows of "every feature", ${median(together.on).toFixed(0)} µs with them and ${median(together.off).toFixed(0)} µs without` : '') + '\n');
    // The interval is the median's resolution; the interquartile range is the spread of one pair.
    console.log('| feature | marginal µs per operation (median) | 95 % interval of the median | spread of one pair (interquartile range) |');
    console.log('|---|---|---|---|');
    for (const row of rows) console.log(row);
    await gateway.close();
  } finally {
    load?.kill('SIGTERM');
    sandbox.kill('SIGTERM');
  }
}

await main();
process.exit(0);
