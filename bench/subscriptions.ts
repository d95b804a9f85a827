/**
 * The subscriptions' benchmark: the gateway as `npm start` runs it (the bundle, NODE_ENV=production)
 * over the sandbox, each a child process, and subscribers opened from this process as raw SSE
 * streams (the distinct-connections mode graphql-sse's client opens). Three measurements:
 *
 *   1. one feed, one token, --subscribers streams: platform reads per interval while the sandbox
 *      changes once per interval (the target: at most 1.05);
 *   2. one change delivered to every subscriber: the time from the poll's answer (the sandbox's
 *      answer to the gateway) to each subscriber's event, p50/p99 (the target: p99 at most 100 ms);
 *   3. --streams open SSE subscriptions held idle for --seconds: the gateway's RSS growth, its
 *      event-loop delay p99 from `nodejs_eventloop_lag_p99_seconds`, and its CPU share while only
 *      heartbeats flow (targets: 200 MiB, 50 ms, 5 % of a core); and, as the floor, the RSS growth
 *      of a bare Node server (bench/bare-sse.ts) holding as many idle event streams.
 *
 *   node --disable-warning=ExperimentalWarning bench/subscriptions.ts [--subscribers N] [--streams N] [--seconds S] [--poll-ms MS]
 *
 * A measurement, not a test: it is not part of `npm test`, and its table goes to docs/benchmark.md.
 * The figures of two replicas sharing one Redis come from bench/subscriptions-replicas.ts.
 * 10 000 streams need `ulimit -n` above 10 000 in this process (one descriptor each).
 */
import { mkdtempSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCommandLine } from '../src/settings/command-line.ts';
import { readCpuSeconds, readRssBytes, spawnLogged, waitForReady, type Child } from './lib/processes.ts';
import { liveStep, recordedCalls, resetRequestLog } from './lib/sandbox-client.ts';
import { preparedStartCommand } from './lib/start-command.ts';
import { percentileOfSorted } from './lib/stats.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const HOST = '127.0.0.1';
const TOKEN = 'demo-token-acme';
const MiB = 1024 * 1024;
const FEED = JSON.stringify({ query: 'subscription { exceptionsChanged { cursor node { id status updatedAt } } }' });

const { values } = readCommandLine(
  {
    options: {
      subscribers: { type: 'string', default: '1000' },
      streams: { type: 'string', default: '2000' },
      seconds: { type: 'string', default: '30' },
      'poll-ms': { type: 'string', default: '1000' },
    },
  },
  {
    command: 'node bench/subscriptions.ts',
    summary: 'Subscriptions: platform reads per interval for many subscribers of one feed, fan-out latency of one change,\nand the memory, event-loop delay and CPU of many idle streams.',
    options: {
      subscribers: { text: 'subscribers of the one feed (measurements 1 and 2)', value: 'N' },
      streams: { text: 'idle streams held open (measurement 3)', value: 'N' },
      seconds: { text: 'how long the idle streams are held', value: 'S' },
      'poll-ms': { text: 'SUBSCRIPTION_POLL_MS of the gateway', value: 'MS' },
    },
    examples: ['node --disable-warning=ExperimentalWarning bench/subscriptions.ts --subscribers 200 --streams 500 --seconds 10'],
  },
);
const subscribers = Number(values.subscribers);
const streams = Number(values.streams);
const seconds = Number(values.seconds);
const pollMs = Number(values['poll-ms']);

const log = (message: string): void => {
  process.stderr.write(`[subscriptions ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One SSE subscription: calls `onEvent` with each `next` event's arrival time; resolves once the stream answered. */
function subscribe(origin: string, onEvent: (at: number) => void): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}/graphql`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${TOKEN}` } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (chunk.includes('event: next')) onEvent(performance.now());
      });
      resolve(res);
    });
    req.once('error', reject);
    req.end(FEED);
  });
}


async function main(): Promise<void> {
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'bench-subscriptions-'));
  const { flags, entry } = preparedStartCommand(ROOT);
  const children: Child[] = [];
  try {
    const sandbox = spawnLogged({ name: 'sandbox', command: NODE, args: ['--disable-warning=ExperimentalWarning', 'sandbox/main.ts'], env: { PATH: process.env.PATH, SANDBOX_PORT: '24910', SANDBOX_CONTENT_PORT: '24911' }, cwd: ROOT, logDir });
    children.push(sandbox);
    const platform = `http://${HOST}:24910`;
    await waitForReady(`${platform}/__sandbox/fixtures`, sandbox, performance.now());
    const gateway = spawnLogged({
      name: 'gateway',
      command: NODE,
      args: [...flags, entry],
      env: { PATH: process.env.PATH, NODE_ENV: 'production', HOST, PORT: '24900', ADMIN_PORT: '24909', UPSTREAM_URL: platform, LOG_LEVEL: 'warn', SUBSCRIPTION_POLL_MS: String(pollMs), SUBSCRIPTIONS_PER_TOKEN: String(Math.min(10_000, Math.max(subscribers, streams) + 10)), MAX_SUBSCRIPTIONS: String(Math.max(subscribers, streams) + 10), MAX_CONNECTIONS: String(Math.max(subscribers, streams) + 100) },
      cwd: ROOT,
      logDir,
    });
    children.push(gateway);
    const origin = `http://${HOST}:24900`;
    await waitForReady(`${origin}/healthz`, gateway, performance.now());

    // 1 and 2: one feed, many subscribers.
    log(`${subscribers} subscribers of one feed`);
    const arrivals: number[][] = Array.from({ length: subscribers }, () => []);
    const responses = await Promise.all(arrivals.map((list) => subscribe(origin, (at) => list.push(at))));
    await sleep(2 * pollMs);
    await resetRequestLog(platform);
    const intervals = 10;
    const answered: number[] = [];
    for (let n = 0; n < intervals; n++) {
      await liveStep(platform);
      answered.push(performance.now());
      await sleep(pollMs);
    }
    const reads = (await recordedCalls(platform)).filter((r) => r.path === '/exceptions').length;
    // The step lands before the next poll: the first event after a step, less the poll's time to answer, bounds the fan-out.
    const lastStep = answered.at(-1)!;
    // The poll after the last step may come up to an interval later than the loop's sleep: wait for it (bounded).
    for (let waited = 0; waited < 3 * pollMs && arrivals.some((list) => !list.some((at) => at > lastStep)); waited += 50) await sleep(50);
    const firsts = arrivals.map((list) => list.find((at) => at > lastStep)).filter((at): at is number => at !== undefined).sort((a, b) => a - b);
    const fanOut = firsts.map((at) => at - firsts[0]!);
    log(`platform reads per interval: ${(reads / intervals).toFixed(2)} (target ≤ 1.05)`);
    log(`fan-out of one change after the first subscriber has it: p50 ${percentileOfSorted(fanOut, 50).toFixed(1)} ms, p99 ${percentileOfSorted(fanOut, 99).toFixed(1)} ms (target p99 ≤ 100 ms); ${firsts.length}/${subscribers} received it`);
    for (const res of responses) res.destroy();
    await sleep(2 * pollMs);

    // 3: many idle streams.
    log(`${streams} idle streams for ${seconds} s`);
    const rssBefore = readRssBytes(gateway.pid);
    const idle = [];
    for (let n = 0; n < streams; n += 200) idle.push(...(await Promise.all(Array.from({ length: Math.min(200, streams - n) }, () => subscribe(origin, () => undefined)))));
    const cpuBefore = readCpuSeconds(gateway.pid);
    await sleep(seconds * 1000);
    const cpu = (readCpuSeconds(gateway.pid) - cpuBefore) / seconds;
    const rssGrowth = (readRssBytes(gateway.pid) - rssBefore) / MiB;
    const metrics = await (await fetch(`http://${HOST}:24909/metrics`)).text();
    const lag = Number(/^nodejs_eventloop_lag_p99_seconds (\S+)/m.exec(metrics)?.[1] ?? NaN) * 1000;
    log(`RSS growth ${rssGrowth.toFixed(0)} MiB (target ≤ 200), event-loop delay p99 ${lag.toFixed(1)} ms (target ≤ 50), CPU ${(cpu * 100).toFixed(1)} % of a core (target ≤ 5)`);
    for (const res of idle) res.destroy();
    await gateway.stop();

    // 3, the floor: the same streams held by Node's HTTP server alone.
    const bare = spawnLogged({ name: 'bare-sse', command: NODE, args: [...flags, 'bench/bare-sse.ts'], env: { PATH: process.env.PATH, PORT: '24920', HOST }, cwd: ROOT, logDir });
    children.push(bare);
    const bareOrigin = `http://${HOST}:24920`;
    await waitForReady(`${bareOrigin}/healthz`, bare, performance.now());
    const bareBefore = readRssBytes(bare.pid);
    const bareIdle = [];
    for (let n = 0; n < streams; n += 200) bareIdle.push(...(await Promise.all(Array.from({ length: Math.min(200, streams - n) }, () => subscribe(bareOrigin, () => undefined)))));
    await sleep(seconds * 1000);
    const bareGrowth = (readRssBytes(bare.pid) - bareBefore) / MiB;
    log(`the floor, a bare Node server holding ${streams} idle event streams: RSS growth ${bareGrowth.toFixed(0)} MiB; the gateway ${(rssGrowth - bareGrowth).toFixed(0)} MiB above it (${((rssGrowth - bareGrowth) * 1024 / streams).toFixed(1)} KiB a stream)`);
    for (const res of bareIdle) res.destroy();
  } finally {
    for (const child of children.reverse()) await child.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
