import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The checkout whose `dist/main.js` runs: this one, or GATEWAY_CHECKOUT's when set (another
 * checkout with its own build and node_modules, e.g. an earlier revision, to show that a test of
 * the real process fails there).
 */
const ROOT = process.env.GATEWAY_CHECKOUT === undefined ? fileURLToPath(new URL('../../', import.meta.url)) : `${process.env.GATEWAY_CHECKOUT.replace(/\/$/, '')}/`;
/** The project's Node 24, as `npm start` runs it. */
const NODE = `${ROOT}node_modules/.bin/node`;

export interface GatewayProcess {
  child: ChildProcess;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** Resolves with the first match of `pattern` in stderr. */
  waitForStderr(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL if it has not ended after 10 s. */
  stop(): Promise<void>;
}

/**
 * `node dist/main.js` as `npm start` runs it, with only the given environment
 * (plus PATH and HOME): no NODE_ENV=test, no jest options.
 */
export interface OutputWatch {
  /** Everything printed so far. */
  text(): string;
  /** Resolves with the first match of `pattern` in the output (rejects after `timeoutMs`, or once `exited` settles without one). */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
}

/** Collects a child's output stream and lets a test wait for a line of it. */
export function watchOutput(stream: NodeJS.ReadableStream, exited?: Promise<unknown>): OutputWatch {
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
        void exited?.then(() => setTimeout(() => reject(new Error(`the process exited; output so far:\n${text}`)), 50));
        waiters.push({ pattern, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      }),
  };
}

/**
 * `node dist/main.js` with only the given environment (plus PATH and HOME). Its admin listener takes
 * a free port unless `env` says otherwise: tests running side by side must not all want 9090.
 */
export function startGatewayProcess(env: Record<string, string>): GatewayProcess {
  const child = spawn(NODE, ['--disable-warning=ExperimentalWarning', 'dist/main.js'], {
    cwd: ROOT,
    // The embedded sandbox's live mode off unless a test asks for it: its records stay as seeded.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ADMIN_PORT: '0', SANDBOX_LIVE: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stdout = watchOutput(child.stdout!, exited);
  const stderr = watchOutput(child.stderr!, exited);
  return {
    child,
    stdout: stdout.text,
    stderr: stderr.text,
    waitFor: (pattern, timeoutMs) =>
      stdout.waitFor(pattern, timeoutMs).catch((error: Error) => {
        throw new Error(`${error.message}\nstderr:\n${stderr.text()}`);
      }),
    waitForStderr: stderr.waitFor,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface ProductionGateway {
  process: GatewayProcess;
  /** `http://127.0.0.1:<port>`: where /graphql is (and /healthz, /readyz). */
  origin: string;
  /** `http://127.0.0.1:<port>` of the admin listener (/healthz, /readyz, /metrics); undefined with ADMIN_PORT=off. */
  admin: string | undefined;
  /** The embedded sandbox's address, when the gateway started one (no UPSTREAM_URL given). */
  platform: string | undefined;
}

/**
 * The gateway as production runs it (`NODE_ENV=production`) on a free loopback port, over the
 * given UPSTREAM_URL or else its embedded sandbox on free ports, once it prints its endpoint.
 * `env` adds settings or overrides these.
 */
export async function startProductionGateway(env: Record<string, string> = {}, timeoutMs = 30_000): Promise<ProductionGateway> {
  const embedded = env.UPSTREAM_URL === undefined;
  const gateway = startGatewayProcess({
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: '0',
    ADMIN_HOST: '127.0.0.1',
    ...(embedded ? { SANDBOX_PORT: '0', SANDBOX_CONTENT_PORT: '0' } : {}),
    ...env,
  });
  try {
    const [, origin] = (await gateway.waitFor(/^GraphQL endpoint: (http:\/\/127\.0\.0\.1:\d+)\/graphql$/m, timeoutMs)) as [string, string];
    const platform = embedded ? (await gateway.waitFor(/^Platform: (http:\/\/127\.0\.0\.1:\d+) \(embedded sandbox/m, 10_000))[1] : undefined;
    const [, admin] = await gateway.waitFor(/^Admin(?: \([^)]*\): (http:\/\/127\.0\.0\.1:\d+)|: off)/m, 10_000);
    return { process: gateway, origin, admin, platform };
  } catch (error) {
    await gateway.stop();
    throw error;
  }
}
