/**
 * The subscriptions' two-replica benchmark: two gateways as `npm start` runs them (the bundle,
 * NODE_ENV=production) sharing one real redis-server (REDIS_URL) and one sandbox (the platform, whose
 * request log counts the reads), each a child process; --per-replica raw SSE subscribers of one feed
 * with one token on each gateway, opened from this process. Two measurements:
 *
 *   1. platform reads per interval over --intervals intervals with one sandbox change each: one
 *      poller for the feed across both replicas (the target: at most 1.2);
 *   2. the shared Redis hung (SIGSTOP) for --hang-intervals intervals while the sandbox changes the
 *      feed every interval: the longest gap between two changes a subscriber receives (the target:
 *      one interval plus SUBSCRIPTION_STORE_TIMEOUT_MS, and the poll's own read, HANG_READ_MS: each
 *      replica's lease call gives up after the store timeout and it polls for itself); then Redis
 *      wakes and one replica takes the lease back;
 *   3. the polling replica (the one holding the feed's lease) killed with SIGKILL right after one of
 *      its polls, and a change made right after: the time until every subscriber of the surviving
 *      replica has it (the target: three intervals; the lease, just renewed, runs out two intervals
 *      later and the survivor's next tick takes it). The killed replica's subscribers reconnect to
 *      the survivor with their last cursor, as a client would, and must get what they missed.
 *
 * Throughout, every subscriber must get every change of the feed (each sandbox change of the
 * token's exceptions, `(id, updatedAt)`) exactly once, over its first connection and, for the
 * killed replica's subscribers, its second.
 *
 *   node --disable-warning=ExperimentalWarning bench/subscriptions-replicas.ts [--per-replica N] [--intervals N] [--poll-ms MS] [--hang-intervals N]
 *
 * Skipped (exit 0, one line) without redis-server. Exits 1 when a target is missed or a change was
 * missed or sent twice. A measurement, not a test: it is not part of `npm test`, and its table goes
 * to docs/benchmark.md.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { liveUpdatedAt } from '../sandbox/data/live.ts';
import { freePort } from '../scripts/free-port.ts';
import { readCommandLine } from '../src/settings/command-line.ts';
import { hasRedisServer, startRedisServer, type RedisServer } from '../test/support/redis-server.ts';
import { assertRunning, spawnLogged, waitForReady, type Child } from './lib/processes.ts';
import { fixtureAccounts, liveStep, recordedCalls, resetRequestLog, type RecordedCall } from './lib/sandbox-client.ts';
import { preparedStartCommand } from './lib/start-command.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const HOST = '127.0.0.1';
const TOKEN = 'demo-token-acme';
const FEED = 'subscription ($after: String) { exceptionsChanged(after: $after) { cursor node { id updatedAt } } }';
const READS_TARGET = 1.2;
const TAKEOVER_TARGET_INTERVALS = 3;
/** SUBSCRIPTION_STORE_TIMEOUT_MS of the gateways (its default). */
const STORE_TIMEOUT_MS = 250;
/** What one poll's read of the sandbox and its delivery may add to a gap, beside the interval and the store timeout. */
const HANG_READ_MS = 100;

const { values } = readCommandLine(
  {
    options: {
      'per-replica': { type: 'string', default: '5' },
      intervals: { type: 'string', default: '10' },
      'poll-ms': { type: 'string', default: '1000' },
      'hang-intervals': { type: 'string', default: '3' },
    },
  },
  {
    command: 'node bench/subscriptions-replicas.ts',
    summary: [
      'Subscriptions across two replicas on one Redis: platform reads per interval for subscribers of one feed on both,',
      'then the shared Redis stopped (SIGSTOP) for a few intervals: the longest gap a subscriber sees; then the polling replica killed (SIGKILL): how soon a change reaches the survivor\'s subscribers, and that the',
      'killed replica\'s subscribers, reconnected with their last cursor, miss nothing. Skipped without redis-server.',
    ].join('\n'),
    options: {
      'per-replica': { text: 'SSE subscribers of the one feed on each replica', value: 'N' },
      intervals: { text: 'intervals counted, one sandbox change each (measurement 1)', value: 'N' },
      'poll-ms': { text: 'SUBSCRIPTION_POLL_MS of the gateways', value: 'MS' },
      'hang-intervals': { text: 'intervals the shared Redis is stopped (SIGSTOP) for (measurement 2)', value: 'N' },
    },
    examples: ['node --disable-warning=ExperimentalWarning bench/subscriptions-replicas.ts --per-replica 5 --intervals 10 --poll-ms 1000'],
  },
);
const perReplica = Number(values['per-replica']);
const intervals = Number(values.intervals);
const pollMs = Number(values['poll-ms']);
const hangIntervals = Number(values['hang-intervals']);

const log = (message: string): void => {
  process.stderr.write(`[subscriptions-replicas ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `condition` holds, checked every 10 ms; false when `timeoutMs` passed first. */
async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

/** As `until`, for a condition that must ask another process. */
async function untilAsync(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

/** A change of the feed as the subscriber and the sandbox both name it: the record and its `updatedAt`. */
const changeKey = (id: string, updatedAt: string): string => `${id}@${Date.parse(updatedAt)}`;

/**
 * One subscriber of the feed, as a client holds it: an SSE stream to one replica; when that stream
 * breaks, a new one to `origin` (by then another replica) with the last cursor it was sent (`after`).
 */
class Subscriber {
  readonly name: string;
  /** Where the next stream goes. */
  origin: string;
  /** Each change received, over every connection, with when it arrived (performance.now()). */
  readonly received: { key: string; at: number }[] = [];
  cursor: string | undefined;
  /** Streams opened so far; the newest is the one that counts. */
  connections = 0;
  /** Resolves once the stream opened after the first one broke answered (or could not be opened: `errors`). */
  reconnected: Promise<void> | undefined;
  /** What went wrong: an error event, a stream that could not be opened again. */
  readonly errors: string[] = [];
  #request: ClientRequest | undefined;
  #closed = false;

  constructor(name: string, origin: string) {
    this.name = name;
    this.origin = origin;
  }

  /** Opens a stream; resolves once the gateway answered with the event stream. */
  open(): Promise<void> {
    const connection = ++this.connections;
    const body = JSON.stringify({ query: FEED, variables: this.cursor === undefined ? {} : { after: this.cursor } });
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = request(`${this.origin}/graphql`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${TOKEN}` } }, (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`${this.name}: the stream was answered ${res.statusCode}`));
          res.resume();
          return;
        }
        answered = true;
        res.setEncoding('utf8');
        let buffered = '';
        res.on('data', (chunk: string) => {
          buffered += chunk;
          for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
            this.#event(buffered.slice(0, end));
            buffered = buffered.slice(end + 2);
          }
        });
        res.once('close', () => this.#broken(connection));
        res.once('error', () => this.#broken(connection));
        resolve();
      });
      req.once('error', (error) => (answered ? this.#broken(connection) : reject(error)));
      this.#request = req;
      req.end(body);
    });
  }

  #event(block: string): void {
    const lines = block.split('\n');
    if (!lines.includes('event: next')) return;
    const data = lines.find((line) => line.startsWith('data:'))?.slice(5);
    if (data === undefined) return;
    let edge: { cursor: string; node: { id: string; updatedAt: string } } | undefined;
    try {
      edge = (JSON.parse(data) as { data?: { exceptionsChanged?: typeof edge } }).data?.exceptionsChanged;
    } catch {
      // Reported below with the event's text: a throw here would end this process without stopping its children.
    }
    if (!edge) {
      this.errors.push(`an error event: ${data}`);
      return;
    }
    this.received.push({ key: changeKey(edge.node.id, edge.node.updatedAt), at: performance.now() });
    this.cursor = edge.cursor;
  }

  /** The newest stream ended without this process closing it (its replica died): a client resumes at `origin` with its last cursor. */
  #broken(connection: number): void {
    if (this.#closed || connection !== this.connections) return;
    this.reconnected = this.open().catch((error: unknown) => {
      this.errors.push(`could not reconnect: ${String(error)}`);
    });
  }

  close(): void {
    this.#closed = true;
    this.#request?.destroy();
  }
}

/** The feed's reads of the platform since the request log was last cleared. */
async function feedReads(platform: string): Promise<RecordedCall[]> {
  return (await recordedCalls(platform)).filter((r) => r.path === '/exceptions');
}

/** `subscription_polls_total` of one replica, by outcome. */
async function polls(adminOrigin: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${adminOrigin}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^subscription_polls_total\{outcome="(\w+)"\} (\S+)$/gm)) counts[match[1]!] = Number(match[2]);
  return counts;
}

interface Replica {
  name: string;
  origin: string;
  admin: string;
  child: Child;
}

async function main(): Promise<void> {
  if (!hasRedisServer) {
    log('redis-server is not installed: skipped (apt-get install redis-server)');
    return;
  }
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'bench-subscriptions-replicas-'));
  const { flags, entry } = preparedStartCommand(ROOT);
  const children: Child[] = [];
  let redis: RedisServer | undefined;
  const subscribers: Subscriber[] = [];
  const failures: string[] = [];
  try {
    redis = await startRedisServer();
    const [sandboxPort, contentPort] = [await freePort(), await freePort()];
    const sandbox = spawnLogged({ name: 'sandbox', command: NODE, args: ['--disable-warning=ExperimentalWarning', 'sandbox/main.ts'], env: { PATH: process.env.PATH, SANDBOX_PORT: String(sandboxPort), SANDBOX_CONTENT_PORT: String(contentPort) }, cwd: ROOT, logDir });
    children.push(sandbox);
    const platform = `http://${HOST}:${sandboxPort}`;
    await waitForReady(`${platform}/__sandbox/fixtures`, sandbox, performance.now());
    const businessAccounts = await fixtureAccounts(platform);
    const account = businessAccounts.find((candidate) => candidate.token === TOKEN)!.businessAccountId;

    // One CURSOR_SECRET for both, as docs/scaling.md asks: a cursor sealed by one opens on the other.
    const cursorSecret = randomBytes(32).toString('base64url');
    const replicas: Replica[] = [];
    for (const name of ['gateway-a', 'gateway-b']) {
      const [port, adminPort] = [await freePort(), await freePort()];
      const child = spawnLogged({
        name,
        command: NODE,
        args: [...flags, entry],
        env: { PATH: process.env.PATH, NODE_ENV: 'production', HOST, PORT: String(port), ADMIN_HOST: HOST, ADMIN_PORT: String(adminPort), UPSTREAM_URL: platform, LOG_LEVEL: 'warn', SUBSCRIPTION_POLL_MS: String(pollMs), SUBSCRIPTION_STORE_TIMEOUT_MS: String(STORE_TIMEOUT_MS), REDIS_URL: redis.url, CURSOR_SECRET: cursorSecret },
        cwd: ROOT,
        logDir,
      });
      children.push(child);
      replicas.push({ name, origin: `http://${HOST}:${port}`, admin: `http://${HOST}:${adminPort}`, child });
    }
    await Promise.all(replicas.map((replica) => waitForReady(`${replica.admin}/healthz`, replica.child, performance.now())));

    // Every change of the feed the sandbox made, as subscribers must receive it.
    const changes: string[] = [];
    const step = async (): Promise<string[]> => {
      const made = await liveStep(platform);
      const keys = made.filter((change) => change.businessAccountId === account && (change.kind === 'arrived' || change.kind === 'status')).map((change) => changeKey(change.id, liveUpdatedAt(change.step)));
      changes.push(...keys);
      return keys;
    };
    const has = (subscriber: Subscriber, keys: readonly string[]) => keys.every((key) => subscriber.received.some((event) => event.key === key));

    // 1: one feed, one token, subscribers on both replicas.
    log(`${perReplica} SSE subscribers on each of 2 replicas, one feed, one token; poll every ${pollMs} ms`);
    for (const replica of replicas) {
      for (let n = 0; n < perReplica; n++) subscribers.push(new Subscriber(`${replica.name}#${n + 1}`, replica.origin));
    }
    await Promise.all(subscribers.map((subscriber) => subscriber.open()));
    // Each replica's poller places its subscribers at the feed's head at its first poll or first received outcome.
    await sleep(2 * pollMs);
    const pollsBefore = await Promise.all(replicas.map((replica) => polls(replica.admin)));
    await resetRequestLog(platform);
    for (let n = 0; n < intervals; n++) {
      await step();
      await sleep(pollMs);
    }
    // Counted once every subscriber has the last change: the reads it took to deliver them all (the
    // poll after the last change may come up to an interval after the loop's sleep).
    if (!(await until(() => subscribers.every((subscriber) => has(subscriber, changes)), 3 * pollMs))) failures.push('a subscriber did not get every change of measurement 1');
    const reads = (await feedReads(platform)).length;
    const pollsAfter = await Promise.all(replicas.map((replica) => polls(replica.admin)));
    const polled = replicas.map((replica, index) => ({ replica, ok: (pollsAfter[index]!.ok ?? 0) - (pollsBefore[index]!.ok ?? 0), received: (pollsAfter[index]!.received ?? 0) - (pollsBefore[index]!.received ?? 0) }));
    const readsPerInterval = reads / intervals;
    log(`platform reads per interval: ${readsPerInterval.toFixed(2)} (${reads} in ${intervals} intervals; target ≤ ${READS_TARGET})`);
    log(`polls made / outcomes received: ${polled.map(({ replica, ok, received }) => `${replica.name} ${ok} / ${received}`).join(', ')}`);
    if (readsPerInterval > READS_TARGET) failures.push(`reads per interval ${readsPerInterval.toFixed(2)} > ${READS_TARGET}`);
    const pollers = polled.filter(({ ok }) => ok > 0);
    if (pollers.length !== 1) throw new Error(`expected one replica to poll, found ${pollers.length}: ${JSON.stringify(polled.map(({ replica, ok }) => [replica.name, ok]))}`);

    // 2: the shared Redis hangs: stopped, it keeps both replicas' connections open and takes their
    // writes, so only the store timeout tells them apart from a slow answer. A change every interval
    // (a step that changes none of the token's exceptions is stepped again, so that every interval has one).
    const stepWithChange = async (): Promise<void> => {
      for (let tries = 0; tries < 10 && (await step()).length === 0; tries++);
    };
    const hangStart = performance.now();
    redis.child.kill('SIGSTOP');
    log(`the shared Redis stopped (SIGSTOP) for ${hangIntervals} intervals; one change an interval`);
    const hangChanges = changes.length;
    for (let n = 0; n < hangIntervals + 2; n++) {
      if (n === hangIntervals) {
        redis.child.kill('SIGCONT');
        log('the shared Redis continued (SIGCONT)');
      }
      await stepWithChange();
      await sleep(pollMs);
    }
    const madeDuringHang = changes.slice(hangChanges);
    if (!(await until(() => subscribers.every((subscriber) => has(subscriber, madeDuringHang)), 4 * pollMs))) failures.push('a subscriber did not get every change made while Redis hung');
    const gaps = subscribers.map((subscriber) => {
      const times = subscriber.received.filter((event) => madeDuringHang.includes(event.key)).map((event) => event.at);
      const before = subscriber.received.filter((event) => event.at < hangStart).map((event) => event.at);
      const series = [Math.max(...before, hangStart), ...times].sort((a, b) => a - b);
      return Math.max(...series.slice(1).map((at, index) => at - series[index]!));
    });
    const longestGap = Math.max(...gaps);
    const gapTarget = pollMs + STORE_TIMEOUT_MS + HANG_READ_MS;
    log(`longest gap between two changes a subscriber received while Redis hung: ${longestGap.toFixed(0)} ms (target ≤ ${gapTarget}: one interval, the store timeout ${STORE_TIMEOUT_MS} ms and ${HANG_READ_MS} ms for the poll's read)`);
    if (longestGap > gapTarget) failures.push(`a gap of ${longestGap.toFixed(0)} ms while Redis hung > ${gapTarget} ms`);
    // Awake again, one replica takes the lease back: over the next two intervals one polls, the other receives.
    await sleep(2 * pollMs);
    const leaseBefore = await Promise.all(replicas.map((replica) => polls(replica.admin)));
    await sleep(3 * pollMs);
    const leaseAfter = await Promise.all(replicas.map((replica) => polls(replica.admin)));
    const pollingAgain = replicas.filter((_, index) => (leaseAfter[index]!.ok ?? 0) > (leaseBefore[index]!.ok ?? 0));
    log(`after the hang: ${pollingAgain.map((replica) => replica.name).join(' and ')} polling (target: one)`);
    if (pollingAgain.length !== 1) throw new Error(`expected one replica to poll once Redis answered again, found ${pollingAgain.length}`);
    const leader = pollingAgain[0]!;
    const survivor = replicas.find((replica) => replica !== leader)!;

    // 3: the polling replica killed right after one of its polls (its lease just renewed: the longest
    // wait for another replica to take it), and a change right after that.
    await resetRequestLog(platform);
    if (!(await untilAsync(async () => (await feedReads(platform)).length > 0, 2 * pollMs))) throw new Error(`${leader.name} made no poll within two intervals`);
    await resetRequestLog(platform);
    const orphans = subscribers.filter((subscriber) => subscriber.origin === leader.origin);
    for (const subscriber of orphans) subscriber.origin = survivor.origin;
    leader.child.stopRequested = true;
    const killedAt = performance.now();
    leader.child.process.kill('SIGKILL');
    await leader.child.exited;
    const after = await step();
    const [changedAt, changedAtEpoch] = [performance.now(), Date.now()];
    log(`${leader.name} (the poller) killed with SIGKILL right after its poll; one change ${(changedAt - killedAt).toFixed(0)} ms later`);
    const delivered = await until(() => subscribers.every((subscriber) => has(subscriber, after)), (TAKEOVER_TARGET_INTERVALS + 3) * pollMs);
    await Promise.all(orphans.map((subscriber) => subscriber.reconnected));
    const reached = (group: readonly Subscriber[]) =>
      group.map((subscriber) => Math.max(...after.map((key) => subscriber.received.find((event) => event.key === key)?.at ?? Infinity)) - changedAt);
    const stayed = subscribers.filter((subscriber) => !orphans.includes(subscriber));
    const stayedLatency = reached(stayed);
    const orphanLatency = reached(orphans);
    const takeoverReads = await feedReads(platform);
    const slowest = Math.max(...stayedLatency);
    log(`the change reached the survivor's ${stayed.length} subscribers in ${Math.min(...stayedLatency).toFixed(0)}–${slowest.toFixed(0)} ms (${(slowest / pollMs).toFixed(2)} intervals; target ≤ ${TAKEOVER_TARGET_INTERVALS})`);
    log(`the killed replica's ${orphans.length} subscribers, reconnected to ${survivor.name} with their last cursor: ${orphans.filter((subscriber) => has(subscriber, after)).length}/${orphans.length} got the change, in ${Math.min(...orphanLatency).toFixed(0)}–${Math.max(...orphanLatency).toFixed(0)} ms`);
    log(`platform reads from the kill to the delivery: ${takeoverReads.length} (${takeoverReads.map((read) => `${(read.at ?? Number.NaN) - changedAtEpoch} ms`).join(', ')} after the change)`);
    if (!delivered) failures.push('a subscriber did not get the change made after the kill');
    if (slowest > TAKEOVER_TARGET_INTERVALS * pollMs) failures.push(`the change took ${(slowest / pollMs).toFixed(2)} intervals > ${TAKEOVER_TARGET_INTERVALS}`);

    // Every subscriber: every change exactly once, none other.
    const expected = [...changes].sort();
    let exact = 0;
    for (const subscriber of subscribers) {
      const got = subscriber.received.map((event) => event.key).sort();
      if (JSON.stringify(got) === JSON.stringify(expected)) exact += 1;
      else
        failures.push(`${subscriber.name} (${subscriber.connections} connections) got ${got.length} events for ${expected.length} changes: missing ${expected.filter((key) => !got.includes(key)).length}, twice or unknown ${got.length - new Set(got).size + got.filter((key) => !expected.includes(key)).length}`);
    }
    // A subscriber of the survivor kept its one stream; one of the killed replica's opened a second.
    for (const subscriber of subscribers) if (subscriber.connections !== (orphans.includes(subscriber) ? 2 : 1)) failures.push(`${subscriber.name} opened ${subscriber.connections} streams`);
    for (const subscriber of subscribers) failures.push(...subscriber.errors.map((error) => `${subscriber.name}: ${error}`));
    log(`${exact}/${subscribers.length} subscribers got each of the ${expected.length} changes exactly once (${orphans.length} of them over two connections)`);
    assertRunning(children);
  } finally {
    for (const subscriber of subscribers) subscriber.close();
    for (const child of children.reverse()) await child.stop();
    await redis?.stop();
  }
  for (const failure of failures) log(`MISSED: ${failure}`);
  if (failures.length > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
