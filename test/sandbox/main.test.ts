import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ConfigError, optionsFromEnv } from '../../sandbox/env.ts';
import { startSandbox } from '../../sandbox/index.ts';
import { watchOutput } from '../support/gateway-process.ts';

const MAIN = fileURLToPath(new URL('../../sandbox/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Run { code: number | null; stdout: string; stderr: string }

/** Runs the standalone sandbox; `whenReady` gets the printed output once the banner is out, then the process gets SIGTERM. */
function run(env: Record<string, string>, whenReady?: (stdout: string) => Promise<void>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', MAIN], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let signalled = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!signalled && whenReady && stdout.includes('Seeded ids:')) {
        signalled = true;
        whenReady(stdout).then(() => child.kill('SIGTERM'), (error: unknown) => {
          child.kill('SIGKILL');
          reject(error);
        });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('npm run sandbox', () => {
  it('prints its URLs and demo tokens, serves, and exits cleanly on SIGTERM', async () => {
    let served = 0;
    const result = await run({ SANDBOX_PORT: '0', SANDBOX_CONTENT_PORT: '0', SANDBOX_LINX_ENVELOPE: 'true' }, async (stdout) => {
      const url = /Platform sandbox: (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      const res = await fetch(`${url}/exceptions?size=1`, { headers: { authorization: 'Bearer demo-token-globex' } });
      served = ((await res.json()) as { totalElements: number }).totalElements;
    });
    expect(result.code).toBe(0);
    expect(served).toBe(260);
    expect(result.stdout).toMatch(/Content host: http:\/\/127\.0\.0\.1:\d+\n/);
    expect(result.stdout).toContain('LinX answers: page envelope');
    expect(result.stdout).toContain('demo-token-acme  Acme Payroll Inc (3f6c1e2a-8b4d-4c7e-9f10-2a5b6c7d8e01)');
    expect(result.stdout).toContain('demo-token-globex  Globex Lending LLC (9a2d4b6f-1c3e-4a5b-8d7c-6e5f4a3b2c02)');
  });

  it('refuses a bad variable with a message naming it and exit code 1', async () => {
    const result = await run({ SANDBOX_PORT: 'http' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('sandbox: SANDBOX_PORT must be a port number between 0 and 65535, got "http"');
    expect(result.stdout).toBe('');
  });

  it('refuses a port in use with a message naming the variables', async () => {
    const blocker = await startSandbox();
    try {
      const port = new URL(blocker.url).port;
      const result = await run({ SANDBOX_PORT: port, SANDBOX_CONTENT_PORT: '0' });
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(`sandbox: port ${port} is already in use; choose another with SANDBOX_PORT / SANDBOX_CONTENT_PORT (0 picks a free one)`);
    } finally {
      await blocker.close();
    }
  });
});

describe('sandbox environment', () => {
  it('defaults to 127.0.0.1:4010 and :4011, bare LinX arrays and no added latency', () => {
    expect(optionsFromEnv({})).toEqual({ host: '127.0.0.1', port: 4010, contentPort: 4011, linxEnvelope: false, latencyMs: 0 });
  });

  it('reads every variable', () => {
    expect(optionsFromEnv({ SANDBOX_HOST: '::1', SANDBOX_PORT: '5010', SANDBOX_CONTENT_PORT: '5011', SANDBOX_LINX_ENVELOPE: 'TRUE', SANDBOX_LATENCY_MS: '25' }))
      .toEqual({ host: '::1', port: 5010, contentPort: 5011, linxEnvelope: true, latencyMs: 25 });
    expect(optionsFromEnv({ SANDBOX_LINX_ENVELOPE: '0', SANDBOX_PORT: '0', SANDBOX_CONTENT_PORT: '0' })).toMatchObject({ linxEnvelope: false, port: 0, contentPort: 0 });
    expect(optionsFromEnv({ SANDBOX_PUBLIC_CONTENT_ORIGIN: 'http://localhost:4011' })).toMatchObject({ publicContentOrigin: 'http://localhost:4011' });
  });

  it('signs content URLs for the public content origin when one is given', async () => {
    const sandbox = await startSandbox({ publicContentOrigin: 'http://files.example.test:4011/' });
    try {
      expect(sandbox.documentsUrl).toBe('http://files.example.test:4011');
      const ba = sandbox.tokens[0]!;
      const scanned = sandbox.store.documents(ba.businessAccountId).find((d) => d.status === 'SCANNED')!;
      const response = await fetch(`${sandbox.url}/v1/documents/${scanned.id}`, { headers: { authorization: `Bearer ${ba.token}` } });
      const body = (await response.json()) as { url: { value: string }; thumbnailUrl: { value: string } };
      expect(body.url.value.startsWith('http://files.example.test:4011/')).toBe(true);
      expect(body.thumbnailUrl.value.startsWith('http://files.example.test:4011/')).toBe(true);
    } finally {
      await sandbox.close();
    }
  });

  it.each([
    [{ SANDBOX_PORT: 'http' }, 'SANDBOX_PORT must be a port number between 0 and 65535, got "http"'],
    [{ SANDBOX_CONTENT_PORT: '70000' }, 'SANDBOX_CONTENT_PORT must be a port number between 0 and 65535, got "70000"'],
    [{ SANDBOX_PORT: '4500', SANDBOX_CONTENT_PORT: '4500' }, 'SANDBOX_PORT and SANDBOX_CONTENT_PORT must differ, both are 4500'],
    [{ SANDBOX_LINX_ENVELOPE: 'maybe' }, 'SANDBOX_LINX_ENVELOPE must be true or false, got "maybe"'],
    [{ SANDBOX_LATENCY_MS: '-5' }, 'SANDBOX_LATENCY_MS must be an integer number of milliseconds between 0 and 600000, got "-5"'],
    [{ SANDBOX_LATENCY_MS: '1.5' }, 'SANDBOX_LATENCY_MS must be an integer number of milliseconds between 0 and 600000, got "1.5"'],
    [{ SANDBOX_HOST: 'my host' }, 'SANDBOX_HOST must be a host name or an IP address, got "my host"'],
    [{ SANDBOX_PUBLIC_CONTENT_ORIGIN: 'localhost:4011' }, 'SANDBOX_PUBLIC_CONTENT_ORIGIN must be an http(s) origin such as http://localhost:4011, got "localhost:4011"'],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => optionsFromEnv(env)).toThrow(new ConfigError(message));
  });
});

describe('`npm run sandbox` as a process manager runs it', () => {
  let npm: ChildProcess | undefined;
  afterEach(() => {
    // Its own process group: whatever the test found, nothing it started outlives it.
    if (npm?.pid !== undefined) {
      try {
        process.kill(-npm.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });

  it('stops on a SIGTERM sent to npm itself: the port closes and npm exits 0', async () => {
    const { NODE_OPTIONS: _jestOptions, ...env } = process.env;
    npm = spawn('npm', ['run', 'sandbox'], { cwd: ROOT, detached: true, env: { ...env, SANDBOX_PORT: '0', SANDBOX_CONTENT_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => npm!.once('exit', (code) => resolve(code)));
    const stdout = watchOutput(npm.stdout!, exited);
    watchOutput(npm.stderr!);
    const [, port] = await stdout.waitFor(/Platform sandbox: http:\/\/127\.0\.0\.1:(\d+)/, 20_000);
    const reachable = () =>
      new Promise<boolean>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1', () => (socket.destroy(), resolve(true)));
        socket.once('error', () => resolve(false));
      });
    expect(await reachable()).toBe(true);

    process.kill(npm.pid!, 'SIGTERM');
    expect(await exited).toBe(0);
    expect(await reachable()).toBe(false);
  }, 120_000);
});
