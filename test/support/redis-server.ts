import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from '../../scripts/free-port.ts';

/** Whether Debian's redis-server is installed here; CI must have it. */
export const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

export interface RedisServer {
  url: string;
  child: ChildProcess;
  /** SIGTERM, resolved once the process has ended. */
  stop(): Promise<void>;
}

/** A real redis-server on a free loopback port, without persistence; `args` adds settings (`--maxmemory-policy`, …). */
export async function startRedisServer(args: string[] = []): Promise<RedisServer> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 5_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${output}`));
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    child,
    stop() {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      return new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}
