import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { EventEmitter } from 'node:events';
import type { Cluster, Worker } from 'node:cluster';
import { MemoryBuckets, type BucketPolicy, type BucketState } from '../../src/budgets/bucket.ts';
import { serveBudgetsToWorkers, WorkerGroupBuckets } from '../../src/budgets/worker-group.ts';

const POLICY: BucketPolicy = { name: 'calls', perSecond: 10, burst: 20 };
const state = (available: number, fullInMs: number, allowed = true, retryAfterMs = 0): BucketState => ({ allowed, available, retryAfterMs, fullInMs });

describe('serveBudgetsToWorkers', () => {
  // The primary reads the machine's clock: it stands still here.
  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  /** A primary serving a fake cluster, and a worker whose replies are kept. */
  function primary() {
    const cluster = new EventEmitter();
    serveBudgetsToWorkers(cluster as unknown as Cluster, 100);
    const replies: unknown[] = [];
    let connected = true;
    const worker = { isConnected: () => connected, send: (message: unknown) => void replies.push(message) } as unknown as Worker;
    const ask = (message: Record<string, unknown>) => cluster.emit('message', worker, { policy: POLICY, key: 'k', deadline: Date.now() + 60_000, ...message });
    return { ask, replies, disconnect: () => (connected = false) };
  }

  it('answers takes and adjustments from one set of buckets, by request id', () => {
    const { ask, replies } = primary();
    ask({ budget: 'take', id: 1, cost: 3 });
    ask({ budget: 'take', id: 2, cost: 30 });
    ask({ budget: 'adjust', id: 3, cost: -1 });
    ask({ budget: 'take', id: 4, key: 'other', cost: 1 });
    expect(replies).toEqual([
      { budgetReply: 1, state: state(17, 300) },
      { budgetReply: 2, state: state(17, 300, false, 1_300) },
      { budgetReply: 3, state: state(18, 200) },
      { budgetReply: 4, state: state(19, 100) },
    ]);
  });

  it('ignores a request past its deadline (the worker counted it alone) and any other message', () => {
    const { ask, replies } = primary();
    ask({ budget: 'take', id: 1, cost: 3, deadline: Date.now() - 1 });
    ask({ budget: 'spend', id: 2, cost: 3 });
    ask({ budgetReply: 3 });
    ask({ budget: 'take', id: 4, cost: 1 });
    expect(replies).toEqual([{ budgetReply: 4, state: state(19, 100) }]);
  });

  it('counts the request of a worker gone, without replying', () => {
    const { ask, replies, disconnect } = primary();
    disconnect();
    ask({ budget: 'take', id: 1, cost: 5 });
    expect(replies).toEqual([]);
  });
});

describe('WorkerGroupBuckets', () => {
  const saved = { connected: Object.getOwnPropertyDescriptor(process, 'connected'), send: Object.getOwnPropertyDescriptor(process, 'send') };
  let sent: Record<string, unknown>[];
  let failures: number;
  let buckets: WorkerGroupBuckets | undefined;
  let reply: (message: unknown) => void;

  /** Makes this process look like a cluster worker (or not), its messages to the primary kept. */
  function asWorker(connected: boolean) {
    Object.defineProperty(process, 'connected', { value: connected, configurable: true, writable: true });
    Object.defineProperty(process, 'send', { value: (message: Record<string, unknown>) => (sent.push(message), true), configurable: true, writable: true });
  }

  /** A worker's store; `reply` hands its listener a message from the primary. */
  function store(alone = new MemoryBuckets(100, () => 1_000)): WorkerGroupBuckets {
    const before = process.listeners('message');
    buckets = new WorkerGroupBuckets(alone, 200, () => failures++);
    const listener = process.listeners('message').find((candidate) => !before.includes(candidate))!;
    reply = (message) => listener(message, undefined);
    return buckets;
  }

  beforeEach(() => {
    sent = [];
    failures = 0;
  });
  afterEach(async () => {
    await buckets?.close();
    buckets = undefined;
    for (const [name, descriptor] of Object.entries(saved)) {
      if (descriptor) Object.defineProperty(process, name, descriptor);
      else delete (process as unknown as Record<string, unknown>)[name];
    }
    jest.useRealTimers();
  });

  it('counts in its own memory when the process is no worker', async () => {
    asWorker(false);
    const worker = store();
    await expect(worker.take(POLICY, 'k', 4)).resolves.toEqual(state(16, 400));
    await expect(worker.adjust(POLICY, 'k', -2)).resolves.toEqual(state(18, 200));
    expect(sent).toEqual([]);
  });

  it('asks the primary, each request with its own id and a deadline half the timeout away, and takes its answers', async () => {
    jest.useFakeTimers({ now: 5_000 });
    asWorker(true);
    const worker = store();
    const taken = worker.take(POLICY, 'k', 3);
    const adjusted = worker.adjust(POLICY, 'k', -1);
    expect(sent).toEqual([
      { budget: 'take', id: 0, policy: POLICY, key: 'k', cost: 3, deadline: 5_100 },
      { budget: 'adjust', id: 1, policy: POLICY, key: 'k', cost: -1, deadline: 5_100 },
    ]);
    reply({ budgetReply: 1, state: state(11, 900) });
    reply({ budgetReply: 0, state: state(10, 1_000) });
    await expect(taken).resolves.toEqual(state(10, 1_000));
    await expect(adjusted).resolves.toEqual(state(11, 900));
    expect(failures).toBe(0);
  });

  it('ignores replies it did not ask for and other messages', async () => {
    jest.useFakeTimers({ now: 5_000 });
    asWorker(true);
    const worker = store();
    const taken = worker.take(POLICY, 'k', 1);
    reply({ budgetReply: 99, state: state(0, 0) });
    reply(['jest', 'message']);
    reply({ budgetReply: 0, state: state(19, 100) });
    await expect(taken).resolves.toEqual(state(19, 100));
  });

  it('counts alone, once, and reports the failure when the primary does not answer in time', async () => {
    jest.useFakeTimers({ now: 5_000 });
    asWorker(true);
    const worker = store();
    const taken = worker.take(POLICY, 'k', 5);
    jest.advanceTimersByTime(200);
    await expect(taken).resolves.toEqual(state(15, 500));
    expect(failures).toBe(1);
    // A late answer changes nothing.
    reply({ budgetReply: 1, state: state(0, 0) });
    expect(failures).toBe(1);
  });

  it('stops listening when closed', async () => {
    asWorker(false);
    const before = process.listenerCount('message');
    const worker = store();
    expect(process.listenerCount('message')).toBe(before + 1);
    await worker.close();
    expect(process.listenerCount('message')).toBe(before);
  });
});
