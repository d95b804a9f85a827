import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The project's Node 24, as `npm start` runs it. */
const NODE = `${ROOT}node_modules/.bin/node`;

export interface GatewayProcess {
  child: ChildProcess;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL if it has not ended after 10 s. */
  stop(): Promise<void>;
}

/**
 * `node src/main.ts` as `npm start` runs it, with only the given environment
 * (plus PATH and HOME): no NODE_ENV=test, no jest options.
 */
export function startGatewayProcess(env: Record<string, string>): GatewayProcess {
  const child = spawn(NODE, ['--disable-warning=ExperimentalWarning', 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    out += chunk;
    for (const waiter of [...waiters]) {
      const match = out.match(waiter.pattern);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  });
  child.stderr!.on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const match = out.match(pattern);
        if (match) return resolve(match);
        const timer = setTimeout(() => reject(new Error(`no output matching ${pattern} within ${timeoutMs} ms; stdout:\n${out}\nstderr:\n${err}`)), timeoutMs);
        void exited.then(() => setTimeout(() => reject(new Error(`the gateway exited; stdout:\n${out}\nstderr:\n${err}`)), 50));
        waiters.push({ pattern, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      }),
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
