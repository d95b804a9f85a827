// A replica set on loopback, without Docker: the platform sandbox, Redis (two servers, when
// redis-server is installed), N gateway processes and HAProxy in front of them, as docs/scaling.md
// describes. `npm run replicas` runs it (scripts/replicas.ts); test/scale/replicas.test.ts uses it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.ts';
import { startSandbox, type Sandbox } from '../sandbox/index.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** The project's Node 24, as `npm start` runs the gateway. */
const NODE = `${ROOT}node_modules/.bin/node`;
export const HAPROXY = existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy';
const HAPROXY_CFG = `${ROOT}deploy/haproxy/haproxy.cfg`;

export const hasHaproxy = spawnSync(HAPROXY, ['-v']).status === 0;
export const hasRedis = spawnSync('redis-server', ['--version']).status === 0;

export interface ReplicaSetOptions {
  /** Gateway processes (default 3). */
  replicas?: number;
  /** HAProxy's health-check interval; the gateways' SHUTDOWN_DELAY_MS must exceed fall (2) × this plus one check. */
  checkIntervalMs?: number;
  /** SHUTDOWN_DELAY_MS of every gateway (default 3 × the check interval). */
  shutdownDelayMs?: number;
  /** Added to every gateway's environment (after the process's own, before the set's addresses). */
  env?: Record<string, string>;
  /** Each process's output line, with the name of the process it came from (default: kept, not printed). */
  onLine?: (name: string, line: string) => void;
}

export interface Watched {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Everything printed so far, stdout and stderr. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output; rejects after `timeoutMs` or once the process has exited without one. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface ReplicaGateway {
  name: string;
  /** `http://127.0.0.1:<port>`: its GraphQL port (/graphql). */
  url: string;
  /** `http://127.0.0.1:<port>`: its admin listener (/healthz, /readyz, /metrics). */
  adminUrl: string;
  process: Watched;
}

export interface ReplicaSet {
  /** HAProxy's front: `http://127.0.0.1:<port>/graphql`. */
  graphqlUrl: string;
  /** HAProxy's statistics page (`;csv` appended gives the CSV). */
  statsUrl: string;
  sandbox: Sandbox;
  /** `redis://…` of the persisted-query store (REDIS_URL), and of the rate budgets (RATE_LIMIT_REDIS_URL); undefined without redis-server. */
  redis: { persistedQueries: string; budgets: string } | undefined;
  cursorSecret: string;
  shutdownDelayMs: number;
  gateways: ReplicaGateway[];
  /** Starts gateway `index` (again) on its ports, once its previous process has exited; resolves once it listens. */
  startGateway(index: number): Promise<ReplicaGateway>;
  /** HAProxy's view of each gateway: `UP`, `DOWN`, `UP 1/2` … by name. */
  states(): Promise<Record<string, string>>;
  /** Where everything is, as `npm run replicas` prints it. */
  summary(): string;
  /** Stops HAProxy, then every gateway (each drains), Redis and the sandbox. */
  stop(): Promise<void>;
}

/**
 * The processes started in a process group of their own, and so out of reach of a terminal's Ctrl-C,
 * which signals the whole foreground group: if this process ends without stopping them, they are
 * killed as it exits.
 */
const ownGroups = new Set<ChildProcess>();
let killOwnGroupsOnExit = false;

function watch(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, onLine?: (name: string, line: string) => void, ownGroup = false): Watched {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: ownGroup });
  if (ownGroup) {
    ownGroups.add(child);
    child.once('exit', () => ownGroups.delete(child));
    if (!killOwnGroupsOnExit) {
      killOwnGroupsOnExit = true;
      process.once('exit', () => {
        for (const running of ownGroups) running.kill('SIGKILL');
      });
    }
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let text = '';
  const waiters = new Set<() => void>();
  for (const stream of [child.stdout!, child.stderr!]) {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      text += chunk;
      partial += chunk;
      const lines = partial.split('\n');
      partial = lines.pop()!;
      for (const line of lines) onLine?.(name, line);
      for (const waiter of [...waiters]) waiter();
    });
  }
  return {
    child,
    exited,
    output: () => text,
    waitFor: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = text.match(pattern);
          if (!match) return;
          done();
          resolve(match);
        };
        const fail = (why: string) => {
          done();
          reject(new Error(`${name}: ${why} before printing ${pattern}; its output:\n${text}`));
        };
        const timer = setTimeout(() => fail(`nothing within ${timeoutMs} ms`), timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        void exited.then(() => setTimeout(() => waiters.has(check) && fail('exited'), 50));
        check();
      }),
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * HAProxy's configuration: the shipped deploy/haproxy/haproxy.cfg with its server lines replaced by
 * one per gateway on loopback, each health-checked on its admin port.
 */
function haproxyConfig(gateways: { port: number; adminPort: number }[]): string {
  const shipped = readFileSync(HAPROXY_CFG, 'utf8');
  const servers = gateways.map((g, i) => `    server gateway-${i + 1} 127.0.0.1:${g.port} port ${g.adminPort}`).join('\n');
  const replaced = shipped.replace(/^(\s*server gateway-\d+ .*\n)+/m, `${servers}\n`);
  if (replaced === shipped) throw new Error(`${HAPROXY_CFG}: no "server gateway-N" lines to replace`);
  return replaced;
}

/** Server states of the gateways backend, from HAProxy's CSV statistics. */
async function serverStates(statsUrl: string): Promise<Record<string, string>> {
  const csv = await (await fetch(`${statsUrl};csv`)).text();
  const [header, ...rows] = csv.trim().split('\n');
  const columns = header!.replace(/^# /, '').split(',');
  const status = columns.indexOf('status');
  const states: Record<string, string> = {};
  for (const row of rows) {
    const cells = row.split(',');
    if (cells[0] === 'gateways' && cells[1]!.startsWith('gateway-')) states[cells[1]!] = cells[status]!;
  }
  return states;
}

/** A redis-server on a free loopback port, without persistence; `track` gets the process at once, so a failed start is still stopped. */
async function startRedis(name: string, policy: 'allkeys-lru' | 'noeviction', track: (process: Watched) => void): Promise<{ url: string; process: Watched }> {
  const port = await freePort();
  // Its start-up chatter is not echoed: the summary says where it is. In a process group of its own:
  // a Ctrl-C in the terminal would stop it at once, while the gateways still drain and use it
  // (each would log a store error); it is stopped after them.
  const process = watch(name, 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory', '64mb', '--maxmemory-policy', policy], { PATH: globalThis.process.env.PATH }, undefined, true);
  track(process);
  await process.waitFor(/Ready to accept connections/, 20_000);
  return { url: `redis://127.0.0.1:${port}`, process };
}

export async function startReplicaSet(options: ReplicaSetOptions = {}): Promise<ReplicaSet> {
  if (!hasHaproxy) throw new Error(`HAProxy not found (${HAPROXY}): apt-get install -y --no-install-recommends haproxy`);
  const count = options.replicas ?? 3;
  const checkIntervalMs = options.checkIntervalMs ?? 1_000;
  const shutdownDelayMs = options.shutdownDelayMs ?? 3 * checkIntervalMs;
  const { onLine } = options;
  const started: Watched[] = [];
  let sandbox: Sandbox | undefined;
  let haproxy: Watched | undefined;
  const gateways: ReplicaGateway[] = [];
  const stopAll = async () => {
    await haproxy?.stop();
    await Promise.all(gateways.map((g) => g.process.stop()));
    await Promise.all(started.map((p) => p.stop()));
    await sandbox?.close();
  };

  try {
    sandbox = await startSandbox({ host: '127.0.0.1', port: 0, contentPort: 0 });
    // Two servers, as production should have them: persisted queries are a cache (evict the least
    // recently used when full), rate budgets are not (an evicted budget would hand a caller a fresh one).
    let redis: ReplicaSet['redis'];
    if (hasRedis) {
      const track = (process: Watched) => started.push(process);
      const [persisted, budgets] = await Promise.all([startRedis('redis-persisted-queries', 'allkeys-lru', track), startRedis('redis-budgets', 'noeviction', track)]);
      redis = { persistedQueries: persisted.url, budgets: budgets.url };
    }
    const cursorSecret = options.env?.CURSOR_SECRET ?? process.env.CURSOR_SECRET ?? randomBytes(32).toString('base64url');
    const ports = await Promise.all(Array.from({ length: count }, async () => ({ port: await freePort(), adminPort: await freePort() })));
    // The caller's environment reaches every gateway (RATE_LIMIT_PER_SECOND=… npm run replicas), except jest's options.
    const { NODE_OPTIONS: _nodeOptions, ...inherited } = process.env;
    const platform = sandbox.url;

    const startGateway = async (index: number): Promise<ReplicaGateway> => {
      const { port, adminPort } = ports[index]!;
      const name = `gateway-${index + 1}`;
      const gateway = watch(name, NODE, ['--disable-warning=ExperimentalWarning', 'dist/main.js'], {
        ...inherited,
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        ...options.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        ADMIN_HOST: '127.0.0.1',
        ADMIN_PORT: String(adminPort),
        WORKERS: '1',
        UPSTREAM_URL: platform,
        CURSOR_SECRET: cursorSecret,
        SHUTDOWN_DELAY_MS: String(shutdownDelayMs),
        // HAProxy is the only proxy in front: its X-Forwarded-For entry names the client.
        TRUSTED_PROXIES: '127.0.0.1/32',
        ...(redis ? { REDIS_URL: redis.persistedQueries, RATE_LIMIT_REDIS_URL: redis.budgets } : {}),
      }, onLine);
      const replica = { name, url: `http://127.0.0.1:${port}`, adminUrl: `http://127.0.0.1:${adminPort}`, process: gateway };
      // Tracked before it listens, so that a failed start is still stopped.
      gateways[index] = replica;
      await gateway.waitFor(/^Admin \(.*\): http:\/\/127\.0\.0\.1:\d+$/m, 40_000);
      return replica;
    };
    await Promise.all(ports.map((_, index) => startGateway(index)));

    const [front, stats] = [await freePort(), await freePort()];
    const dir = mkdtempSync(join(tmpdir(), 'replicas-'));
    const cfg = join(dir, 'haproxy.cfg');
    writeFileSync(cfg, haproxyConfig(ports));
    const graphqlUrl = `http://127.0.0.1:${front}/graphql`;
    const statsUrl = `http://127.0.0.1:${stats}/stats`;
    haproxy = watch('haproxy', HAPROXY, ['-db', '-f', cfg], {
      PATH: process.env.PATH,
      HAPROXY_BIND: `127.0.0.1:${front}`,
      HAPROXY_STATS_BIND: `127.0.0.1:${stats}`,
      CHECK_INTERVAL: `${checkIntervalMs}ms`,
    }, onLine);
    // HAProxy has read its configuration once it serves statistics.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const states = await serverStates(statsUrl).catch(() => ({}) as Record<string, string>);
      if (gateways.every((g) => states[g.name] === 'UP')) break;
      if (Date.now() > deadline) throw new Error(`HAProxy did not see every gateway UP within 20 s: ${JSON.stringify(states)}; its output:\n${haproxy.output()}`);
      if (haproxy.child.exitCode !== null) throw new Error(`HAProxy exited: ${haproxy.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    rmSync(dir, { recursive: true, force: true });

    const set: ReplicaSet = {
      graphqlUrl,
      statsUrl,
      sandbox,
      redis,
      cursorSecret,
      shutdownDelayMs,
      gateways,
      startGateway,
      states: () => serverStates(statsUrl),
      summary: () =>
        [
          `GraphQL (HAProxy, ${count} gateways): ${graphqlUrl}`,
          `HAProxy statistics: ${statsUrl}`,
          ...gateways.map((g) => `  ${g.name}: ${g.url}/graphql  admin ${g.adminUrl} (health checks: GET /readyz every ${checkIntervalMs} ms)`),
          `Platform sandbox: ${platform} (content URLs on ${sandbox!.documentsUrl})`,
          redis
            ? `Redis: persisted queries ${redis.persistedQueries} (allkeys-lru, REDIS_URL), rate budgets ${redis.budgets} (noeviction, RATE_LIMIT_REDIS_URL)`
            : 'Redis: none (redis-server is not installed): each gateway keeps its own persisted queries and rate budgets',
          `Shared by every gateway: CURSOR_SECRET, SHUTDOWN_DELAY_MS=${shutdownDelayMs}, TRUSTED_PROXIES=127.0.0.1/32`,
          `Demo tokens: ${sandbox!.tokens.map((t) => t.token).join(', ')}`,
          'Ctrl-C stops everything.',
          '',
        ].join('\n'),
      stop: stopAll,
    };
    return set;
  } catch (error) {
    await stopAll();
    throw error;
  }
}
