import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Logger } from 'pino';
import { WORKER_HEARTBEAT, WORKER_LISTENING } from '../src/process/cluster-messages.ts';
import { testConfig, type Config } from '../src/settings/config.ts';

// The primary's supervision over a node:cluster stand-in and jest's clock: the crash window and its
// edges, the back-off, the watchdog and the ways a stop ends, which the tests of real worker groups
// (test/scale/workers.test.ts, hung-worker.test.ts) see only as far as real time allows.

class FakeWorker extends EventEmitter {
  readonly process: { pid: number; kill(signal: string): void };
  constructor(pid: number, kills: [number, string][]) {
    super();
    this.process = { pid, kill: (signal) => kills.push([pid, signal]) };
  }
}

class FakeCluster extends EventEmitter {
  readonly workers: FakeWorker[] = [];
  readonly envs: Record<string, string>[] = [];
  readonly kills: [number, string][] = [];
  fork(env: Record<string, string>): FakeWorker {
    const worker = new FakeWorker(1001 + this.workers.length, this.kills);
    this.workers.push(worker);
    this.envs.push(env);
    return worker;
  }
}

let group = new FakeCluster();
jest.unstable_mockModule('node:cluster', () => ({
  default: {
    fork: (env: Record<string, string>) => group.fork(env),
    on: (event: string, listener: (...args: unknown[]) => void) => group.on(event, listener),
    off: (event: string, listener: (...args: unknown[]) => void) => group.off(event, listener),
  },
}));
const { superviseWorkers } = await import('../src/process/cluster.ts');

interface Line {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;
let exitCodes: (number | undefined)[];
let exited: Promise<number | undefined>;
let signalListenersBefore: Record<string, unknown[]>;

beforeEach(() => {
  jest.useFakeTimers({ now: 1_000_000 });
  group = new FakeCluster();
  exitCodes = [];
  exited = new Promise((resolve) => {
    jest.spyOn(process, 'exit').mockImplementation(((code?: number) => {
      exitCodes.push(code);
      resolve(code);
    }) as never);
  });
  signalListenersBefore = Object.fromEntries(SIGNALS.map((signal) => [signal, process.listeners(signal)]));
});

afterEach(() => {
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) if (!signalListenersBefore[signal]!.includes(listener)) process.off(signal, listener);
  }
  jest.clearAllTimers();
  jest.useRealTimers();
  jest.restoreAllMocks();
});

/** Starts a group of `count` workers with METRICS off; its log lines are noted. */
function start(count: number, overrides: Record<string, string> = {}, close: () => Promise<void> = async () => undefined) {
  const lines: Line[] = [];
  const note = (level: string) => (fields: Record<string, unknown>, message: string) => lines.push({ level, message, fields });
  const logger = { info: note('info'), error: note('error'), fatal: note('fatal') } as unknown as Logger;
  const listened: { url: string; adminUrl: string | undefined }[] = [];
  const config: Config = testConfig({ METRICS: 'false', ...overrides });
  const signalListeners = SIGNALS.map((signal) => process.listeners(signal).length);
  superviseWorkers(config, logger, { count, env: { SANDBOX_URL: 'http://127.0.0.1:1' }, onListening: (listeners) => listened.push(listeners), close });
  const signal = (name: (typeof SIGNALS)[number]) => {
    const added = process.listeners(name).slice(signalListeners[SIGNALS.indexOf(name)]);
    for (const listener of added) (listener as () => void)();
  };
  const messages = (message: string) => lines.filter((line) => line.message === message).map((line) => line.fields);
  return { config, lines, listened, signal, messages };
}

const listen = (worker: FakeWorker, port = 4000) => worker.emit('message', { type: WORKER_LISTENING, url: `http://127.0.0.1:${port}`, adminUrl: 'http://127.0.0.1:9090' });
const beat = (worker: FakeWorker) => worker.emit('message', { type: WORKER_HEARTBEAT });
const exit = (worker: FakeWorker, code: number | null, signal: string | null = null) => group.emit('exit', worker, code, signal);

describe('superviseWorkers', () => {
  it('forks the workers with their environment, and tells the group listens once all of them do, once', () => {
    const { listened, messages } = start(2);
    expect(group.envs).toEqual([{ SANDBOX_URL: 'http://127.0.0.1:1' }, { SANDBOX_URL: 'http://127.0.0.1:1' }]);
    expect(messages('starting workers')).toEqual([{ workers: 2 }]);
    listen(group.workers[0]!);
    // Cluster's own messages and unknown ones are not a worker listening.
    group.workers[1]!.emit('message', { type: 'other' });
    group.workers[1]!.emit('message', null);
    expect(listened).toEqual([]);
    listen(group.workers[1]!, 4001);
    expect(listened).toEqual([{ url: 'http://127.0.0.1:4001', adminUrl: 'http://127.0.0.1:9090' }]);
    expect(messages('workers started')).toEqual([{ workers: 2, pids: [1001, 1002] }]);
    // A replacement that listens later is logged, and the group is not announced again.
    exit(group.workers[0]!, 1);
    jest.advanceTimersByTime(250);
    listen(group.workers[2]!);
    expect(listened).toHaveLength(1);
    expect(messages('worker listening')).toEqual([
      { pid: 1001, workers: 1 },
      { pid: 1002, workers: 2 },
      { pid: 1003, workers: 2 },
    ]);
  });

  it('replaces a worker that exits unexpectedly after a back-off doubling with each exit of the last minute', () => {
    const { messages } = start(1);
    const delays: number[] = [];
    for (let n = 0; n < 5; n++) {
      const worker = group.workers.at(-1)!;
      exit(worker, 1);
      const delay = messages('worker exited unexpectedly: starting another').at(-1)!.restartInMs as number;
      delays.push(delay);
      jest.advanceTimersByTime(delay - 1);
      expect(group.workers).toHaveLength(n + 1);
      jest.advanceTimersByTime(1);
      expect(group.workers).toHaveLength(n + 2);
    }
    expect(delays).toEqual([250, 500, 1000, 2000, 4000]);
    expect(messages('worker exited unexpectedly: starting another')[0]).toEqual({ pid: 1001, code: 1, signal: null, restartInMs: 250 });
  });

  it('forgets exits a minute old: one exactly 60 s before counts no more, one a millisecond younger still does', () => {
    const { messages } = start(3);
    exit(group.workers[0]!, 1);
    jest.advanceTimersByTime(59_999);
    exit(group.workers[1]!, null, 'SIGKILL');
    jest.advanceTimersByTime(1);
    exit(group.workers[2]!, 1);
    // At that moment the first exit is 60 s old, the second 1 ms younger.
    expect(messages('worker exited unexpectedly: starting another').map((fields) => fields.restartInMs)).toEqual([250, 500, 500]);
  });

  it('gives up on the sixth exit within a minute: logs at fatal, stops the others and exits 1', async () => {
    const { messages } = start(2);
    for (let n = 0; n < 5; n++) {
      exit(group.workers[n === 0 ? 0 : n + 1]!, 1);
      jest.advanceTimersByTime(4000);
    }
    expect(group.workers).toHaveLength(7);
    expect(group.kills).toEqual([]);
    exit(group.workers[6]!, 1);
    expect(messages('workers keep exiting: giving up')).toEqual([{ pid: 1007, code: 1, signal: null, exits: 6, windowMs: 60_000 }]);
    // The one worker still running (the second forked) is asked to stop; nothing is forked any more.
    expect(group.kills).toEqual([[1002, 'SIGTERM']]);
    jest.advanceTimersByTime(10_000);
    expect(group.workers).toHaveLength(7);
    exit(group.workers[1]!, 0);
    expect(await exited).toBe(1);
    expect(messages('stopped')).toEqual([{ exitCode: 1 }]);
  });

  it('on SIGTERM, stops every worker, cancels a pending restart and exits 0 once all stopped cleanly', async () => {
    let closed = 0;
    const { signal, messages } = start(2, {}, async () => void closed++);
    listen(group.workers[0]!);
    exit(group.workers[1]!, 1);
    signal('SIGTERM');
    expect(group.kills).toEqual([[1001, 'SIGTERM']]);
    expect(messages('shutting down')).toEqual([{ signal: 'SIGTERM', workers: 1, delayMs: 0, timeoutMs: 10_000 }]);
    // The restart that was waiting never comes; a second signal changes nothing.
    jest.advanceTimersByTime(250);
    signal('SIGINT');
    expect(group.workers).toHaveLength(2);
    expect(group.kills).toHaveLength(1);
    expect(messages('shutting down')).toHaveLength(1);
    exit(group.workers[0]!, 0);
    expect(await exited).toBe(0);
    expect(closed).toBe(1);
    expect(messages('worker stopped')).toEqual([{ pid: 1001, code: 0, signal: null }]);
    expect(messages('stopped')).toEqual([{ exitCode: 0 }]);
  });

  it.each([
    [1, null],
    [0, 'SIGKILL'],
  ])('exits 1 from a stop in which a worker ended with code %s and signal %s', async (code, exitSignal) => {
    const { signal } = start(2);
    signal('SIGINT');
    exit(group.workers[0]!, code, exitSignal);
    expect(exitCodes).toEqual([]);
    exit(group.workers[1]!, 0);
    expect(await exited).toBe(1);
  });

  it('ends a stop at once when no worker runs, and exits 1 when closing fails', async () => {
    const { signal, messages } = start(1, {}, async () => {
      throw new Error('sandbox would not close');
    });
    exit(group.workers[0]!, 1);
    signal('SIGTERM');
    // The first exit is the process's end (the stand-in for process.exit returns, so the code goes on).
    expect(await exited).toBe(1);
    expect(messages('shutdown failed: exiting')).toEqual([{ err: new Error('sandbox would not close') }]);
  });

  it('kills the workers left and exits 1 when a stop outlasts the drain delay, the drain and twice the backstop', () => {
    const { signal, messages, config } = start(2, { SHUTDOWN_DELAY_MS: '1000', SHUTDOWN_TIMEOUT_MS: '3000' });
    expect([config.scaling.shutdownDelayMs, config.shutdownTimeoutMs]).toEqual([1000, 3000]);
    signal('SIGTERM');
    exit(group.workers[0]!, 0);
    jest.advanceTimersByTime(1000 + 3000 + 10_000 - 1);
    expect(exitCodes).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(messages('workers did not stop in time: killing them')).toEqual([{ pids: [1002] }]);
    expect(group.kills).toEqual([
      [1001, 'SIGTERM'],
      [1002, 'SIGTERM'],
      [1002, 'SIGKILL'],
    ]);
    expect(exitCodes).toEqual([1]);
  });

  describe('its watchdog', () => {
    it('kills a listening worker silent for longer than the timeout, at the first check after it, and replaces it', () => {
      const { messages } = start(1);
      listen(group.workers[0]!);
      // Checks run every 2 s (a fifth of the 10 s timeout): at 10 s the worker is silent exactly the timeout, which is allowed.
      jest.advanceTimersByTime(11_999);
      expect(group.kills).toEqual([]);
      jest.advanceTimersByTime(1);
      expect(group.kills).toEqual([[1001, 'SIGKILL']]);
      expect(messages('worker hung: killing it')).toEqual([{ pid: 1001, silentMs: 12_000, timeoutMs: 10_000 }]);
      // Killed once: the next checks leave it to its exit.
      jest.advanceTimersByTime(4_000);
      expect(group.kills).toHaveLength(1);
      exit(group.workers[0]!, null, 'SIGKILL');
      jest.advanceTimersByTime(250);
      expect(group.workers).toHaveLength(2);
    });

    it('leaves a worker alone while it beats, and watches one only from the time it listens', () => {
      start(1);
      const worker = group.workers[0]!;
      // Beats before listening are not listened to; start-up is not a hang.
      beat(worker);
      jest.advanceTimersByTime(30_000);
      listen(worker);
      for (let n = 0; n < 10; n++) {
        jest.advanceTimersByTime(9_000);
        beat(worker);
      }
      expect(group.kills).toEqual([]);
      jest.advanceTimersByTime(12_000);
      expect(group.kills).toEqual([[1001, 'SIGKILL']]);
    });

    it("takes no silence for a hang when the primary's own checks ran late, and watches again from then", () => {
      start(1);
      listen(group.workers[0]!);
      jest.advanceTimersByTime(2_000);
      // The primary's loop is held up for 20 s: the clock moves and no timer runs.
      jest.setSystemTime(Date.now() + 20_000);
      jest.advanceTimersByTime(2_000);
      expect(group.kills).toEqual([]);
      jest.advanceTimersByTime(10_000);
      expect(group.kills).toEqual([]);
      jest.advanceTimersByTime(2_000);
      expect(group.kills).toEqual([[1001, 'SIGKILL']]);
    });

    it('kills no worker while the group stops', () => {
      const { signal } = start(1);
      listen(group.workers[0]!);
      signal('SIGTERM');
      jest.advanceTimersByTime(12_000);
      expect(group.kills).toEqual([[1001, 'SIGTERM']]);
    });
  });

  it('keeps the budgets of the workers in the primary without Redis, and not with it', () => {
    start(1);
    expect(group.listenerCount('message')).toBe(1);
    group = new FakeCluster();
    start(1, { RATE_LIMIT_REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(group.listenerCount('message')).toBe(0);
  });
});
