/**
 * The hostile soak (`npm run bench:hostile`): the gateway in production mode
 * over the sandbox, both as child processes, serving ordinary queries while
 * hostile clients send what they can to grow it: a fresh 95 kB operation name
 * per request, unknown 90 kB operation names, `_entities` lists of 2 000 and
 * of 25 representations, malformed representations, CSRF-refused posts, requests aborted mid-answer and bodies cut
 * mid-upload, and distinct 1.7 kB documents: three in four sent once, one in four as many times as the
 * gateway needs to compile it (COMPILED_QUERY_MIN_USES). After a warm-up of the same traffic (V8 sizes its heap and
 * Apollo's document cache fills), samples the gateway's RSS and the size of
 * /metrics every second for the measured window, then stops the gateway with
 * SIGTERM and prints a verdict:
 *
 *   - RSS flat: the median of the window's last 10 s is at most MAX_RSS_GROWTH
 *     above the median of its first 10 s;
 *   - /metrics under 1 MB at every sample;
 *   - every ordinary query answered with its data, no answer with status 5xx
 *     or INTERNAL_SERVER_ERROR;
 *   - the gateway exits 0 on SIGTERM.
 *
 *   node --disable-warning=ExperimentalWarning bench/hostile-soak.ts [--seconds N] [--warmup-seconds N] [--clients N] [--max-old-space-mib N] [--only distinct-documents] [--env NAME=VALUE]…
 *
 * --seconds N            the measured window (default 60)
 * --warmup-seconds N     traffic before the window, not judged (default 30)
 * --clients N            concurrent clients (default 8)
 * --max-old-space-mib N  starts the gateway with a V8 old-space limit: a gateway
 *                        that retained what hostile clients send would fail under it.
 * --only distinct-documents  every client sends only distinct documents, the
 *                        traffic that grows the caches of parsed and compiled
 *                        documents (Apollo's parsed-document cache holds about
 *                        1 100 of these: give the warm-up 45 s to fill it).
 * --env NAME=VALUE       a setting of the gateway (repeatable), e.g. COMPILED_EXECUTION=false
 *                        to compare with interpreted execution.
 *
 * Exits 0 when every check passes, 1 otherwise. A measurement, not a test:
 * it is not part of `npm test`.
 */
import { mkdtempSync, statSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCommandLine } from '../src/settings/command-line.ts';
import { loadConfig } from '../src/settings/config.ts';
import { readRssBytes, spawnLogged, waitForReady, type Child } from './lib/processes.ts';
import { verdictLines, type Check } from './lib/report.ts';
import { preparedStartCommand } from './lib/start-command.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HOST = '127.0.0.1';
const TOKEN = 'demo-token-acme';
const MiB = 1024 * 1024;
const WINDOW_S = 10;
const MAX_RSS_GROWTH = 0.1;
const MAX_METRICS_BYTES = 1_000_000;

const log = (message: string): void => {
  process.stderr.write(`[hostile ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A port the system says is free now (bound to port 0, then released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

interface Tally {
  sent: number;
  /** Answers received (each sample records it, for the throughput over the window). */
  answered: number;
  /** Ordinary queries answered with exactly their data. */
  valid: number;
  /** Answers that break a rule: status 5xx, INTERNAL_SERVER_ERROR, an ordinary query without its data. */
  broken: number;
  reasons: Map<string, number>;
}

type Kind = 'ordinary' | 'long-name' | 'unknown-operation' | 'entities-flood' | 'entities-malformed' | 'csrf' | 'aborted' | 'cut-upload' | 'distinct-document';

const KINDS: readonly Kind[] = ['ordinary', 'long-name', 'unknown-operation', 'entities-flood', 'entities-malformed', 'csrf', 'aborted', 'cut-upload', 'distinct-document'];

/** How often each kind is picked: half the traffic is ordinary. */
const WEIGHTS: Record<Kind, number> = { ordinary: 9, 'long-name': 2, 'unknown-operation': 1, 'entities-flood': 1, 'entities-malformed': 1, csrf: 1, aborted: 1, 'cut-upload': 1, 'distinct-document': 1 };
const PICKS: Kind[] = KINDS.flatMap((kind) => Array.from({ length: WEIGHTS[kind] }, () => kind));

/** Executions after which the gateway, with its default settings, compiles a document. */
const COMPILED_AFTER_USES = loadConfig({ NODE_ENV: 'production' }).compiledExecution.minUses;
const NODE_FIELDS = 'id category type status description assignedTo { id firstName lastName email } entity { __typename ... on FinancialAccount { id } ... on CustomerAccount { id } ... on Transaction { id } } createdBy { id type } createdAt';
/**
 * A 1.7 kB document of its own for each n (an alias names n), as a client that
 * builds its queries at run time sends: every one compiles to different code.
 */
const distinctDocument = (n: number): string =>
  `query DistinctDocument { page${n}: exceptions(first: 5) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { ${NODE_FIELDS} } } } ` +
  `oldest: exceptions(first: 2, orderBy: [{field: CREATED_AT, direction: ASC}]) { totalCount nodes { ${NODE_FIELDS} } } ` +
  `fresh: exceptions(first: 2, filter: {status: [NEW]}) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } nodes { ${NODE_FIELDS} notes { id title contentText createdAt } } } ` +
  `unassigned: exceptions(first: 2, filter: {unassigned: true}, orderBy: [{field: CREATED_AT, direction: DESC}]) { totalCount pageInfo { hasNextPage endCursor } nodes { ${NODE_FIELDS} } } ` +
  `inProgress: exceptions(first: 2, filter: {status: [IN_PROGRESS]}) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } nodes { id status description createdAt } } }`;

const ORDINARY = 'query Inbox { exceptions(first: 5) { totalCount nodes { id status } } }';
const LONG_NAME_CHARS = 95_000;
/** Representations per `_entities` flood: alternately far over MAX_ENTITY_REPRESENTATIONS (refused) and at its default (served). */
const FLOOD_SIZES = [2_000, 25] as const;

interface Answer {
  status: number;
  body: { data?: unknown; errors?: { extensions?: { code?: string } }[] } | undefined;
}

async function postJson(url: string, body: string, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Answer> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers }, body, signal });
  const text = await response.text();
  let parsed: Answer['body'];
  try {
    parsed = JSON.parse(text) as Answer['body'];
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed };
}

/** Sends a POST whose body stops half-way, then drops the connection. */
function cutUpload(port: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ host: HOST, port }, () => {
      const body = JSON.stringify({ query: `{ ${'__typename '.repeat(3_000)}}` });
      socket.write(`POST /graphql HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, body.length / 2)}`);
      setTimeout(() => socket.destroy(), 5);
    });
    socket.once('close', () => resolve());
    socket.once('error', () => resolve());
  });
}

/** Judges an answer; `served` means it must carry data and no error at all. */
function check(tally: Tally, kind: Kind, answer: Answer, expected?: unknown, served = false): void {
  const fail = (reason: string): void => {
    tally.broken += 1;
    const key = `${kind}: ${reason}`;
    tally.reasons.set(key, (tally.reasons.get(key) ?? 0) + 1);
  };
  tally.answered += 1;
  if (answer.status >= 500) return fail(`HTTP ${answer.status}`);
  const codes = answer.body?.errors?.map((error) => error.extensions?.code) ?? [];
  if (codes.includes('INTERNAL_SERVER_ERROR')) return fail('INTERNAL_SERVER_ERROR');
  if (served && (answer.status !== 200 || codes.length > 0 || !answer.body?.data)) return fail(`not served: ${codes.join(', ') || `HTTP ${answer.status}`}`);
  if (expected !== undefined) {
    if (JSON.stringify(withoutActualCost(answer.body)) !== JSON.stringify(withoutActualCost(expected))) return fail('wrong data');
    const cost = costOf(answer.body);
    // The platform calls this answer's own request made: none when it joined an identical read in flight (UPSTREAM_SHARE_READS).
    if (cost === undefined || !(cost.actualQueryCost >= 0 && cost.actualQueryCost <= cost.requestedQueryCost)) return fail('cost out of its estimate');
    tally.valid += 1;
  }
}

interface Cost {
  requestedQueryCost: number;
  actualQueryCost: number;
}

function costOf(body: unknown): Cost | undefined {
  return (body as { extensions?: { cost?: Cost } } | undefined)?.extensions?.cost;
}

/**
 * An answer as every identical request gets it: its data, errors and estimate. `actualQueryCost` is
 * the calls its own request sent, 0 for one that joined an identical read in flight, so it differs
 * between answers of one query under concurrency and is judged on its own (within the estimate).
 */
function withoutActualCost(body: unknown): unknown {
  const cost = costOf(body);
  if (cost === undefined) return body;
  const { actualQueryCost: _actual, ...estimate } = cost;
  const extensions = (body as { extensions: Record<string, unknown> }).extensions;
  return { ...(body as object), extensions: { ...extensions, cost: estimate } };
}

async function client(kindOf: () => Kind, url: string, port: number, until: number, expected: unknown, tally: Tally, counter: { next: number }): Promise<void> {
  while (performance.now() < until) {
    const kind = kindOf();
    const n = counter.next++;
    tally.sent += 1;
    try {
      switch (kind) {
        case 'distinct-document': {
          // One in four as many times as the gateway needs to compile it (the last request compiles it), the others once.
          const body = JSON.stringify({ query: distinctDocument(n) });
          const uses = n % 4 === 0 ? COMPILED_AFTER_USES : 1;
          for (let use = 1; use <= uses; use += 1) {
            if (use > 1) tally.sent += 1;
            check(tally, kind, await postJson(url, body), undefined, true);
          }
          break;
        }
        case 'ordinary':
          check(tally, kind, await postJson(url, JSON.stringify({ query: ORDINARY })), expected);
          break;
        case 'long-name':
          check(tally, kind, await postJson(url, JSON.stringify({ query: `query Op${n}_${'x'.repeat(LONG_NAME_CHARS)} { __typename }` })));
          break;
        case 'unknown-operation':
          check(tally, kind, await postJson(url, JSON.stringify({ query: ORDINARY, operationName: `${n}${'o'.repeat(90_000)}` })));
          break;
        case 'entities-flood': {
          const representations = Array.from({ length: FLOOD_SIZES[n % 2]! }, (_, i) => ({ __typename: 'FinancialAccount', id: `fa-${n}-${i}` }));
          check(tally, kind, await postJson(url, JSON.stringify({ query: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on FinancialAccount { id } } }', variables: { r: representations } })));
          break;
        }
        case 'entities-malformed': {
          const representations = [{ __typename: `Nope${n}${'x'.repeat(20_000)}`, id: 'x' }, { __typename: 'FinancialAccount' }, 'x'];
          check(tally, kind, await postJson(url, JSON.stringify({ query: 'query($r: [_Any!]!) { _entities(representations: $r) { __typename } }', variables: { r: representations } })));
          break;
        }
        case 'csrf':
          check(tally, kind, await postJson(url, JSON.stringify({ query: ORDINARY }), { 'content-type': 'text/plain' }));
          break;
        case 'aborted': {
          const controller = new AbortController();
          setTimeout(() => controller.abort(), 1);
          await postJson(url, JSON.stringify({ query: ORDINARY }), {}, controller.signal).catch(() => undefined);
          break;
        }
        case 'cut-upload':
          await cutUpload(port);
          break;
      }
    } catch (error) {
      tally.broken += 1;
      const key = `${kind}: ${error instanceof Error ? error.message : String(error)}`;
      tally.reasons.set(key, (tally.reasons.get(key) ?? 0) + 1);
    }
  }
}

interface Sample {
  atS: number;
  gatewayRss: number;
  /** V8 heap in use, from the gateway's own /metrics. */
  gatewayHeapUsed: number;
  sandboxRss: number;
  metricsBytes: number;
  /** Answers received so far. */
  answered: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function main(): Promise<void> {
  const { values } = readCommandLine(
    {
      options: {
        seconds: { type: 'string', default: '60' },
        'warmup-seconds': { type: 'string', default: '30' },
        clients: { type: 'string', default: '8' },
        'max-old-space-mib': { type: 'string' },
        only: { type: 'string' },
        env: { type: 'string', multiple: true },
      },
    },
    {
      command: 'npm run bench:hostile',
      summary: [
        'The hostile soak: the gateway in production mode over the sandbox serves ordinary queries while hostile',
        'clients try to grow it; samples its RSS and /metrics, stops it with SIGTERM and prints a verdict',
        '(RSS flat, /metrics under 1 MB, every ordinary query answered, exit 0). Exits 0 when every check passes.',
      ].join('\n'),
      options: {
        seconds: { text: 'the measured window, in seconds', value: 'N' },
        'warmup-seconds': { text: 'traffic before the window, not judged', value: 'N' },
        clients: { text: 'concurrent clients', value: 'N' },
        'max-old-space-mib': { text: 'start the gateway with this V8 old-space limit', value: 'N' },
        only: { text: 'only this traffic: distinct-documents', value: 'KIND' },
        env: { text: 'a setting of the gateway (repeatable), e.g. COMPILED_EXECUTION=false', value: 'NAME=VALUE' },
      },
      examples: ['npm run bench:hostile -- --seconds 120 --max-old-space-mib 96'],
    },
  );
  // Settings of the gateway other than its defaults, to compare with (`--env COMPILED_EXECUTION=false`).
  const gatewayEnv = Object.fromEntries((values.env ?? []).map((pair) => {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error('--env takes NAME=VALUE');
    return [pair.slice(0, at), pair.slice(at + 1)];
  }));
  const only = values.only;
  if (only !== undefined && only !== 'distinct-documents') throw new Error('--only takes distinct-documents');
  const warmupS = Number(values['warmup-seconds']);
  if (!Number.isInteger(warmupS) || warmupS < 0) throw new Error('--warmup-seconds must be a non-negative integer');
  const oldSpace = values['max-old-space-mib'];
  if (oldSpace !== undefined && !/^\d+$/.test(oldSpace)) throw new Error('--max-old-space-mib must be a number of MiB');
  const seconds = Number(values.seconds);
  const clients = Number(values.clients);
  if (!Number.isInteger(seconds) || seconds < 2 * WINDOW_S) throw new Error(`--seconds must be an integer of at least ${2 * WINDOW_S}`);
  if (!Number.isInteger(clients) || clients < 1) throw new Error('--clients must be a positive integer');

  const logDir = mkdtempSync(path.join(os.tmpdir(), 'gateway-hostile-'));
  // ADMIN_PORT=off: the gateway is measured as before the admin listener, with /healthz and /metrics on its one port.
  const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, ADMIN_PORT: 'off' };
  const ts = ['--disable-warning=ExperimentalWarning'];
  const [sandboxPort, contentPort, gatewayPort] = [await freePort(), await freePort(), await freePort()];
  const sandboxUrl = `http://${HOST}:${sandboxPort}`;
  const origin = `http://${HOST}:${gatewayPort}`;
  const children: Child[] = [];
  log(`logs in ${logDir}`);
  try {
    const sandbox = spawnLogged({
      name: 'sandbox', command: process.execPath, args: [...ts, 'sandbox/main.ts'], cwd: ROOT, logDir,
      env: { ...baseEnv, SANDBOX_HOST: HOST, SANDBOX_PORT: String(sandboxPort), SANDBOX_CONTENT_PORT: String(contentPort) },
    });
    children.push(sandbox);
    await waitForReady(`${sandboxUrl}/__sandbox/requests`, sandbox, performance.now());
    const gateway = spawnLogged({
      name: 'gateway', command: process.execPath, args: [...ts, ...(oldSpace ? [`--max-old-space-size=${oldSpace}`] : []), preparedStartCommand(ROOT).entry], cwd: ROOT, logDir,
      env: { ...baseEnv, ...gatewayEnv, NODE_ENV: 'production', UPSTREAM_URL: sandboxUrl, HOST, PORT: String(gatewayPort) },
    });
    children.push(gateway);
    await waitForReady(`${origin}/healthz`, gateway, performance.now());

    const url = `${origin}/graphql`;
    const reference = await postJson(url, JSON.stringify({ query: ORDINARY }));
    if (reference.status !== 200 || reference.body?.errors || !reference.body?.data) throw new Error(`the ordinary query fails before the soak: ${JSON.stringify(reference.body)}`);
    const expected = reference.body;

    const tally: Tally = { sent: 0, answered: 0, valid: 0, broken: 0, reasons: new Map() };
    const samples: Sample[] = [];
    const started = performance.now() + warmupS * 1000;
    const until = started + seconds * 1000;
    let seed = 1;
    // A fixed pseudo-random mix, so two runs send the same traffic.
    const kindOf = (): Kind => {
      if (only === 'distinct-documents') return 'distinct-document';
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return PICKS[(seed >>> 16) % PICKS.length]!;
    };
    const sampler = (async () => {
      await sleep(warmupS * 1000);
      while (performance.now() < until) {
        const metrics = Buffer.from(await (await fetch(`${origin}/metrics`)).arrayBuffer());
        const heapUsed = Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(metrics.toString('utf8'))?.[1] ?? Number.NaN);
        samples.push({ atS: (performance.now() - started) / 1000, gatewayRss: readRssBytes(gateway.pid), gatewayHeapUsed: heapUsed, sandboxRss: readRssBytes(sandbox.pid), metricsBytes: metrics.byteLength, answered: tally.answered });
        await sleep(1_000);
      }
    })();
    log(`${warmupS} s of warm-up, then ${seconds} s measured: traffic from ${clients} clients, ${only === 'distinct-documents' ? 'distinct documents only' : 'half of it hostile'}`);
    const counter = { next: 0 };
    await Promise.all([...Array.from({ length: clients }, () => client(kindOf, url, gatewayPort, until, expected, tally, counter)), sampler]);

    const logBytes = statSync(gateway.logFile).size;
    const stopStarted = performance.now();
    gateway.stopRequested = true;
    gateway.process.kill('SIGTERM');
    const exitCode = await Promise.race([gateway.exited, sleep(20_000).then(() => 'timeout' as const)]);
    const stopMs = performance.now() - stopStarted;

    const early = samples.filter((s) => s.atS < WINDOW_S).map((s) => s.gatewayRss);
    const late = samples.filter((s) => s.atS >= seconds - WINDOW_S).map((s) => s.gatewayRss);
    const baseline = median(early);
    const end = median(late);
    const growth = (end - baseline) / baseline;
    const answeredOver = (from: number, to: number): number => {
      const inside = samples.filter((s) => s.atS >= from && s.atS < to);
      return inside.length < 2 ? 0 : (inside.at(-1)!.answered - inside[0]!.answered) / (inside.at(-1)!.atS - inside[0]!.atS);
    };
    const firstRate = answeredOver(0, WINDOW_S);
    const lastRate = answeredOver(seconds - WINDOW_S, seconds + 1);
    const peakMetrics = Math.max(...samples.map((s) => s.metricsBytes));
    const lastMetrics = samples.at(-1)!.metricsBytes;
    const ordinarySent = tally.valid + [...tally.reasons].filter(([key]) => key.startsWith('ordinary:')).reduce((sum, [, count]) => sum + count, 0);

    const checks: Check[] = [
      ['RSS flat', growth <= MAX_RSS_GROWTH, `median ${(baseline / MiB).toFixed(0)} MiB in the first ${WINDOW_S} s → ${(end / MiB).toFixed(0)} MiB in the last ${WINDOW_S} s (${(growth * 100).toFixed(1)} %, limit ${MAX_RSS_GROWTH * 100} %); peak ${(Math.max(...samples.map((s) => s.gatewayRss)) / MiB).toFixed(0)} MiB`],
      ['/metrics under 1 MB', peakMetrics < MAX_METRICS_BYTES, `largest ${(peakMetrics / 1024).toFixed(1)} kB, last ${(lastMetrics / 1024).toFixed(1)} kB`],
      ['answers correct', tally.broken === 0, `${tally.valid} of ${ordinarySent} ordinary queries with their data; ${tally.broken} broken answers${tally.reasons.size ? `: ${[...tally.reasons].map(([k, v]) => `${k} ×${v}`).join('; ')}` : ''}`],
      ['SIGTERM exits 0', exitCode === 0, `exit ${String(exitCode)} after ${stopMs.toFixed(0)} ms`],
    ];
    const lines = [
      '',
      `Hostile soak${only ? ` (${only} only)` : ''}: ${warmupS} s warm-up + ${seconds} s measured, ${clients} clients, ${tally.sent} requests (${(tally.sent / (warmupS + seconds)).toFixed(0)}/s), gateway in production mode`,
      `  every 5 s of the measured window:`,
      `  gateway RSS MiB: ${samples.filter((_, i) => i % 5 === 0).map((s) => (s.gatewayRss / MiB).toFixed(0)).join(' ')}`,
      `  gateway heap used MiB: ${samples.filter((_, i) => i % 5 === 0).map((s) => (s.gatewayHeapUsed / MiB).toFixed(0)).join(' ')}`,
      `  sandbox RSS MiB: ${samples.filter((_, i) => i % 5 === 0).map((s) => (s.sandboxRss / MiB).toFixed(0)).join(' ')}`,
      `  /metrics kB: ${samples.filter((_, i) => i % 5 === 0).map((s) => (s.metricsBytes / 1024).toFixed(0)).join(' ')}`,
      `  gateway log: ${(logBytes / 1024).toFixed(0)} kB (${(logBytes / Math.max(1, tally.sent)).toFixed(0)} bytes per request)`,
      `  throughput: ${firstRate.toFixed(0)} answers/s in the first ${WINDOW_S} s, ${lastRate.toFixed(0)}/s in the last ${WINDOW_S} s (not judged: on a shared machine it moves with the neighbours' load)`,
      ...verdictLines(checks),
      '',
    ];
    process.stdout.write(lines.join('\n'));
  } finally {
    await Promise.all(children.map((child) => child.stop()));
  }
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
