/**
 * Child processes of the benchmark: started pinned to a CPU where `taskset`
 * exists, logged to files (so that their output costs the harness nothing),
 * observed through /proc, and always stopped.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, openSync, readdirSync, readFileSync, closeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Child {
  name: string;
  pid: number;
  logFile: string;
  process: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  /** How the process ended, once it has. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  /** True once stop() was called: an exit before that was not ours. */
  stopRequested: boolean;
  stop(): Promise<void>;
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findExecutable(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir && executable(candidate)) return candidate;
  }
  return undefined;
}

/** CPUs this process may run on (affinity-aware). */
function availableCpus(): number {
  return os.availableParallelism();
}

/** Whether processes can be put on separate CPUs: taskset exists and two CPUs are available. */
export function canPin(): boolean {
  return findExecutable('taskset') !== undefined && availableCpus() >= 2;
}

/** Moves a running process (and its future threads) onto one CPU. */
export function pinProcess(pid: number, cpu: number): void {
  execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
}

export interface SpawnOptions {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  logDir: string;
  /** Run on this CPU only (taskset -c); unpinned when undefined. */
  cpu?: number;
}

export function spawnLogged(options: SpawnOptions): Child {
  const logFile = path.join(options.logDir, `${options.name}.log`);
  const fd = openSync(logFile, 'a');
  const [command, args] = options.cpu === undefined
    ? [options.command, options.args]
    : ['taskset', ['-c', String(options.cpu), options.command, ...options.args]];
  // taskset execs the command, so the pid observed is the pid of the server itself.
  const child = spawn(command, args, { cwd: options.cwd, env: options.env as NodeJS.ProcessEnv, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  if (child.pid === undefined) throw new Error(`could not start ${options.name}`);
  const handle: Child = {
    name: options.name,
    pid: child.pid,
    logFile,
    process: child,
    exited: new Promise<number | null>((resolve) => {
      child.once('exit', (code, signal) => {
        handle.exit = { code, signal };
        resolve(code);
      });
    }),
    stopRequested: false,
    stop: async () => {
      handle.stopRequested = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await handle.exited;
      clearTimeout(timer);
    },
  };
  return handle;
}

/**
 * Throws when a child ended without being asked to: every figure measured
 * after that would be about a dead process (or, for the sandbox, about
 * connection errors).
 */
export function assertRunning(children: readonly Child[]): void {
  for (const child of children) {
    if (child.exit && !child.stopRequested) {
      const how = child.exit.signal ? `was killed by ${child.exit.signal}` : `exited with code ${child.exit.code}`;
      throw new Error(`${child.name} (pid ${child.pid}) ${how} during the run, not by the benchmark; see ${child.logFile}`);
    }
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `url` until it answers 200; resolves with the milliseconds since
 * `since` (a performance.now() value). Fails fast when the process exits.
 */
export async function waitForReady(url: string, child: Child, since: number, timeoutMs = 30_000, intervalMs = 5): Promise<number> {
  let exitCode: number | null | undefined;
  void child.exited.then((code) => {
    exitCode = code;
  });
  for (;;) {
    if (exitCode !== undefined) throw new Error(`${child.name} exited with code ${exitCode} before it was ready; see ${child.logFile}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await response.arrayBuffer();
      if (response.status === 200) return performance.now() - since;
    } catch {
      // Not listening yet.
    }
    if (performance.now() - since > timeoutMs) throw new Error(`${child.name} not ready after ${timeoutMs} ms; see ${child.logFile}`);
    await sleep(intervalMs);
  }
}

let clockTicks: number | undefined;

function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** User plus system CPU time of a process so far, in seconds (from /proc/<pid>/stat). */
export function readCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name, which may itself contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / ticksPerSecond();
}

/**
 * CPU time of a process so far, every thread, in nanoseconds: the first field of each thread's
 * /proc/<pid>/task/<tid>/schedstat (time on a CPU). /proc/<pid>/stat counts in clock ticks (10 ms),
 * too coarse for a round of a few hundred requests; schedstat is exact.
 */
export function readCpuNanoseconds(pid: number | 'self'): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return total;
}

/** Resident set size of a process, in bytes (VmRSS of /proc/<pid>/status). */
export function readRssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
}

/** Samples the RSS of a process every `intervalMs` until stopped. */
export function sampleRss(pid: number, intervalMs: number): { stop(): number[] } {
  const samples: number[] = [readRssBytes(pid)];
  const timer = setInterval(() => {
    try {
      samples.push(readRssBytes(pid));
    } catch {
      // The process is gone; the run reports its failures elsewhere.
    }
  }, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      return samples;
    },
  };
}
