import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { watchOutput } from '../support/gateway-process.ts';
import { bearer, postGraphQL, postJson } from '../support/graphql-client.ts';
import { until } from '../support/time.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = `${ROOT}node_modules/.bin/node`;

/** Resolves with the error code of a fresh TCP connection attempt, or 'connected'. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

let sandbox: Sandbox;
let child: ChildProcess | undefined;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterEach(() => {
  // `npm start` runs in its own process group: a failed test must not leave its gateway behind.
  if (child && child.exitCode === null && child.signalCode === null) {
    if (child.spawnargs[0] === 'npm') process.kill(-child.pid!, 'SIGKILL');
    else child.kill('SIGKILL');
  }
  child = undefined;
});
afterAll(async () => {
  await sandbox.close();
});

/** Pids of the processes started (directly or not) by `pid`, from /proc. */
function descendantsOf(pid: number): { pid: number; command: string }[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone in the meantime.
    }
  }
  const found: { pid: number; command: string }[] = [];
  const visit = (parent: number) => {
    for (const child of parents.get(parent) ?? []) {
      let command: string;
      try {
        command = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').join(' ').trim();
      } catch {
        continue;
      }
      found.push({ pid: child, command });
      visit(child);
    }
  };
  visit(pid);
  return found;
}

/** The environment of a shell outside jest: no NODE_ENV=test, no jest NODE_OPTIONS. */
function plainEnv(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _jestOptions, NODE_ENV: _jestEnv, ...env } = process.env;
  return env;
}

describe('SIGTERM', () => {
  it.each([
    ['test', 'test'],
    ['production, as the container runs it', 'production'],
  ])('stops accepting connections, lets the in-flight query finish with data, then exits 0 (NODE_ENV=%s)', async (_label, nodeEnv) => {
    child = spawn(NODE, ['--disable-warning=ExperimentalWarning', 'dist/main.js'], {
      cwd: ROOT,
      env: { ...plainEnv(), UPSTREAM_URL: sandbox.url, HOST: '127.0.0.1', PORT: '0', ADMIN_PORT: '0', NODE_ENV: nodeEnv, LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '8000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child!.once('exit', (code, signal) => resolve({ code, signal })));
    const stdout = watchOutput(child.stdout!);
    const stderr = watchOutput(child.stderr!);

    const [, port] = await stdout.waitFor(/GraphQL endpoint: http:\/\/127\.0\.0\.1:(\d+)\/graphql/, 20_000);
    const url = `http://127.0.0.1:${port}`;
    const token = sandbox.tokens[0]!.token;
    const expectedIds = sandbox.store.exceptions(sandbox.tokens[0]!.businessAccountId).slice(0, 2).map((r) => r.id);

    // Long enough for a busy machine to handle the signal and close the listener before the answer comes.
    sandbox.faults.set('exceptions', { latencyMs: 4000 });
    sandbox.resetRequests();
    const inFlight = postGraphQL(`${url}/graphql`, { query: '{ exceptions(first: 2) { nodes { id } } }' }, bearer(token)).then((answer) => ({ ...answer, at: performance.now() }));

    // The query has reached the platform (and waits there) before the signal is sent.
    await until('the query at the platform', () => (sandbox.requests.some((r) => r.route === 'exceptions') ? true : undefined), 20_000, 20);
    expect(sandbox.requests.filter((r) => r.route === 'exceptions')).toHaveLength(1);

    child.kill('SIGTERM');
    await stdout.waitFor(/"msg":"shutting down"/, 20_000);

    // The listener closes while the query is still in flight: new connections are refused.
    const refusedAt = await until('the listener closed', async () => ((await tryConnect(Number(port))) === 'ECONNREFUSED' ? performance.now() : undefined), 20_000, 20);

    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { exceptions: { nodes: expectedIds.map((id) => ({ id })) } } });
    expect(answer.at).toBeGreaterThan(refusedAt);

    expect(await exited).toEqual({ code: 0, signal: null });
    expect(stdout.text()).toMatch(/"msg":"stopped"/);
    expect(stderr.text()).toBe('');
  }, 120_000);

  it.each([
    ['the gateway process', 'gateway'],
    ['npm itself, as a process manager does', 'npm'],
  ])('stops `npm start` (embedded sandbox, no NODE_ENV) at once when idle on a SIGTERM to %s, and npm exits 0', async (_label, target) => {
    child = spawn('npm', ['start'], {
      cwd: ROOT,
      detached: true,
      env: { ...plainEnv(), HOST: '127.0.0.1', PORT: '0', ADMIN_PORT: '0', SANDBOX_PORT: '0', SANDBOX_CONTENT_PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child!.once('exit', (code, signal) => resolve({ code, signal })));
    const stdout = watchOutput(child.stdout!);
    watchOutput(child.stderr!);
    const [, port] = await stdout.waitFor(/GraphQL endpoint: http:\/\/127\.0\.0\.1:(\d+)\/graphql/, 30_000);
    expect(stdout.text()).toContain('(embedded sandbox');
    const answer = await postJson(`http://127.0.0.1:${port}/graphql`, { query: '{ exceptions(first: 1) { totalCount } }' }, bearer('demo-token-acme'));
    expect(answer.status).toBe(200);

    const gateway = descendantsOf(child.pid!).filter((p) => /^\S*node /.test(p.command) && p.command.endsWith('scripts/start.mjs'));
    expect(gateway).toHaveLength(1);
    // The start script execs node, so npm's child is the gateway itself and npm's forwarded signal reaches it.
    expect(descendantsOf(child.pid!).map((p) => p.pid)).toEqual([gateway[0]!.pid]);
    process.kill(target === 'npm' ? child.pid! : gateway[0]!.pid, 'SIGTERM');

    await stdout.waitFor(/"msg":"stopped"/, 20_000);
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(stdout.text()).not.toMatch(/shutdown did not complete/);
    expect(stdout.text().match(/"msg":"shutting down"/g)).toHaveLength(1);
  }, 120_000);
});
