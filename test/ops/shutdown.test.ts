import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = `${ROOT}node_modules/.bin/node`;

/** The process's output so far, and a way to wait for a line matching a pattern. */
function watch(stream: NodeJS.ReadableStream): { text: () => string; waitFor: (pattern: RegExp, timeoutMs: number) => Promise<RegExpMatchArray> } {
  let text = '';
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    text += chunk;
    for (const waiter of [...waiters]) {
      const match = text.match(waiter.pattern);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  });
  return {
    text: () => text,
    waitFor: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const match = text.match(pattern);
        if (match) return resolve(match);
        const timer = setTimeout(() => reject(new Error(`no output matching ${pattern} within ${timeoutMs} ms; output so far:\n${text}`)), timeoutMs);
        waiters.push({ pattern, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      }),
  };
}

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
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await sandbox.close();
});

describe('SIGTERM', () => {
  it('stops accepting connections, lets the in-flight query finish with data, then exits 0', async () => {
    const { NODE_OPTIONS: _jestOptions, ...env } = process.env;
    child = spawn(NODE, ['--disable-warning=ExperimentalWarning', 'src/main.ts'], {
      cwd: ROOT,
      env: { ...env, UPSTREAM_URL: sandbox.url, HOST: '127.0.0.1', PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '8000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child!.once('exit', (code, signal) => resolve({ code, signal })));
    const stdout = watch(child.stdout!);
    const stderr = watch(child.stderr!);

    const [, port] = await stdout.waitFor(/GraphQL endpoint: http:\/\/127\.0\.0\.1:(\d+)\/graphql/, 20_000);
    const url = `http://127.0.0.1:${port}`;
    const token = sandbox.tokens[0]!.token;
    const expectedIds = sandbox.store.exceptions(sandbox.tokens[0]!.businessAccountId).slice(0, 2).map((r) => r.id);

    sandbox.faults.set('exceptions', { latencyMs: 1500 });
    sandbox.resetRequests();
    const inFlight = fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ exceptions(first: 2) { nodes { id } } }' }),
    }).then(async (response) => ({ status: response.status, body: await response.json(), at: performance.now() }));

    // The query has reached the platform (and waits there) before the signal is sent.
    const deadline = performance.now() + 5_000;
    while (!sandbox.requests.some((r) => r.route === 'exceptions') && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(sandbox.requests.filter((r) => r.route === 'exceptions')).toHaveLength(1);

    child.kill('SIGTERM');
    await stdout.waitFor(/"msg":"shutting down"/, 2_000);

    // The listener closes while the query is still in flight: new connections are refused.
    let refusedAt: number | undefined;
    for (let i = 0; i < 50 && refusedAt === undefined; i++) {
      if ((await tryConnect(Number(port))) === 'ECONNREFUSED') refusedAt = performance.now();
      else await new Promise((r) => setTimeout(r, 20));
    }
    expect(refusedAt).toBeDefined();

    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { exceptions: { nodes: expectedIds.map((id) => ({ id })) } } });
    expect(answer.at).toBeGreaterThan(refusedAt!);

    expect(await exited).toEqual({ code: 0, signal: null });
    expect(stdout.text()).toMatch(/"msg":"stopped"/);
    expect(stderr.text()).toBe('');
  }, 30_000);
});
