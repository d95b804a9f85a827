import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import cluster, { type Worker } from 'node:cluster';
import { Counter, Registry } from 'prom-client';
import { GroupMetricsCollector, joinGroupMetrics } from '../../src/observability/cluster-metrics.ts';

// Both sides of the group's /metrics over a played IPC channel: the primary's collector hears
// workers through `cluster`'s events (emitted here), a worker hears the primary through `process`.

/** A registry counting `jobs_total` up to `count`. */
function registry(count: number): Registry {
  const registry = new Registry();
  new Counter({ name: 'jobs_total', help: 'jobs', registers: [registry] }).inc(count);
  return registry;
}

const sample = (text: string) => text.split('\n').find((line) => line.startsWith('jobs_total '));

describe('GroupMetricsCollector (the primary)', () => {
  let collector: GroupMetricsCollector | undefined;
  afterEach(() => collector?.close());

  /** A worker that answers a collect with its registry, or with `answer` when given ('silent': never). */
  function worker(id: number, own: Registry, answer?: { error: string } | 'silent', connected = true) {
    const sent: unknown[] = [];
    const member = {
      id,
      process: { pid: 1000 + id },
      isConnected: () => connected,
      send(message: { type: string; id: number }) {
        sent.push(message);
        if (message.type !== 'gateway:metrics-collect' || answer === 'silent') return true;
        void own.getMetricsAsJSON().then((metrics) => cluster.emit('message', member, { type: 'gateway:metrics-part', id: message.id, ...(answer ?? { metrics }) }));
        return true;
      },
    } as unknown as Worker & { sent: unknown[] };
    return Object.assign(member, { sent });
  }

  it("sums the primary's metrics and every listening worker's", async () => {
    collector = new GroupMetricsCollector(registry(1), () => [worker(1, registry(2)), worker(2, registry(3)), worker(3, registry(100), undefined, false)]);
    expect(sample(await collector.collect())).toBe('jobs_total 6');
  });

  it('counts a worker that exits before answering as an empty answer', async () => {
    const gone = worker(4, registry(50), 'silent');
    collector = new GroupMetricsCollector(registry(1), () => [worker(1, registry(2)), gone]);
    const collected = collector.collect();
    cluster.emit('exit', gone);
    expect(sample(await collected)).toBe('jobs_total 3');
  });

  it('fails the scrape when a worker answers with an error', async () => {
    collector = new GroupMetricsCollector(registry(1), () => [worker(5, registry(2), { error: 'registry cleared' })]);
    await expect(collector.collect()).rejects.toThrow('worker 1005: registry cleared');
  });

  it("answers a worker's request with the group's text", async () => {
    const asking = worker(6, registry(4));
    collector = new GroupMetricsCollector(registry(1), () => [asking]);
    const answered = new Promise<unknown>((resolve) => {
      const send = asking.send.bind(asking);
      (asking as unknown as { send: (message: { type: string; id: number }) => unknown }).send = (message) => (message.type === 'gateway:metrics-answer' ? resolve(message) : send(message));
    });
    cluster.emit('message', asking, { type: 'gateway:metrics-ask', id: 41 });
    const answer = (await answered) as { type: string; id: number; text: string };
    expect([answer.type, answer.id, sample(answer.text)]).toEqual(['gateway:metrics-answer', 41, 'jobs_total 5']);
  });

  it('ignores messages that are not its own, and stops listening when closed', () => {
    const before = cluster.listenerCount('message');
    collector = new GroupMetricsCollector(registry(1), () => []);
    expect(cluster.listenerCount('message')).toBe(before + 1);
    cluster.emit('message', worker(7, registry(1)), 'text');
    cluster.emit('message', worker(7, registry(1)), { type: 'gateway:metrics-part', id: 'x' });
    collector.close();
    collector = undefined;
    expect(cluster.listenerCount('message')).toBe(before);
  });
});

describe('joinGroupMetrics (a worker)', () => {
  const saved = Object.getOwnPropertyDescriptor(process, 'send');
  let sent: { type: string; id: number; metrics?: unknown }[];
  let member: ReturnType<typeof joinGroupMetrics> | undefined;
  let fromPrimary: (message: unknown) => void;

  beforeEach(() => {
    sent = [];
    Object.defineProperty(process, 'send', { value: (message: (typeof sent)[number]) => (sent.push(message), true), configurable: true, writable: true });
  });
  afterEach(() => {
    member?.leave();
    member = undefined;
    if (saved) Object.defineProperty(process, 'send', saved);
    else delete (process as unknown as Record<string, unknown>).send;
  });

  function join(own: Registry) {
    const before = process.listeners('message');
    member = joinGroupMetrics(own);
    const listener = process.listeners('message').find((candidate) => !before.includes(candidate))!;
    fromPrimary = (message) => listener(message, undefined);
    return member;
  }

  it('hands its registry to the primary when asked, under the same id', async () => {
    const own = registry(7);
    join(own);
    fromPrimary({ type: 'gateway:metrics-collect', id: 3 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual([{ type: 'gateway:metrics-part', id: 3, metrics: await own.getMetricsAsJSON() }]);
  });

  it("asks the primary for the group's metrics and takes its answer", async () => {
    const worker = join(registry(1));
    const first = worker.groupMetrics();
    const second = worker.groupMetrics();
    expect(sent).toEqual([
      { type: 'gateway:metrics-ask', id: 0 },
      { type: 'gateway:metrics-ask', id: 1 },
    ]);
    fromPrimary({ type: 'gateway:metrics-answer', id: 1, text: 'second' });
    fromPrimary({ type: 'gateway:metrics-answer', id: 0, text: 'first' });
    await expect(Promise.all([first, second])).resolves.toEqual(['first', 'second']);
  });

  it("fails with the primary's error, or when its answer holds no metrics", async () => {
    const worker = join(registry(1));
    const failed = worker.groupMetrics();
    const empty = worker.groupMetrics();
    fromPrimary({ type: 'gateway:metrics-answer', id: 0, error: 'worker 12 did not send its metrics within 5000 ms' });
    fromPrimary({ type: 'gateway:metrics-answer', id: 1 });
    await expect(failed).rejects.toThrow('worker 12 did not send its metrics within 5000 ms');
    await expect(empty).rejects.toThrow('no metrics in the answer');
  });

  it('stops listening when it leaves', () => {
    const before = process.listenerCount('message');
    join(registry(1)).leave();
    member = undefined;
    expect(process.listenerCount('message')).toBe(before);
  });
});
