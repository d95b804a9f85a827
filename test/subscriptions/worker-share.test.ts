import { EventEmitter } from 'node:events';
import type { Worker } from 'node:cluster';
import { describe, expect, it } from '@jest/globals';
import { FeedLeases } from '../../src/subscriptions/worker-share.ts';

type FakeWorker = Worker & { sent: unknown[] };

/** The primary with its leases, and its workers as it sees them (each what it was sent); `emit` is a worker's message or exit. */
function primary(): { leases: FeedLeases; now: { ms: number }; worker(id: number): FakeWorker; cluster: { emit(event: 'message', worker: Worker, message: unknown): void; emit(event: 'exit', worker: Worker): void } } {
  const now = { ms: 1_000 };
  const leases = new FeedLeases(() => now.ms);
  return {
    leases,
    now,
    worker: (id) => {
      const emitter = new EventEmitter();
      const sent: unknown[] = [];
      const worker = Object.assign(emitter, { id, sent, isConnected: () => true, send: (message: unknown) => sent.push(message) }) as unknown as FakeWorker;
      leases.attach(worker);
      return worker;
    },
    cluster: {
      emit: (event: string, worker: Worker, message?: unknown) => (event === 'message' ? worker.emit('message', message) : worker.emit('exit')),
    },
  };
}

const OUTCOME = { kind: 'data', data: [{ id: 'e1' }], at: 5 };

describe('the primary keeping the workers\' feed leases', () => {
  it('gives a feed\'s lease to one worker, tells the other how long it has left, and hands the outcome only to the other', () => {
    const { cluster, now, worker } = primary();
    const [one, two] = [worker(1), worker(2)];
    for (const w of [one, two]) cluster.emit('message', w, { feedShare: 'listen', key: 'feed' });
    cluster.emit('message', one, { feedShare: 'lead', id: 7, key: 'feed', ttlMs: 500 });
    now.ms += 200;
    cluster.emit('message', two, { feedShare: 'lead', id: 3, key: 'feed', ttlMs: 500 });
    cluster.emit('message', one, { feedShare: 'publish', key: 'feed', outcome: OUTCOME });
    expect(one.sent).toEqual([{ feedLeadReply: 7, lead: true }]);
    expect(two.sent).toEqual([{ feedLeadReply: 3, lead: { heldForMs: 300 } }, { feedOutcome: 'feed', outcome: OUTCOME }]);
  });

  it('frees the lease when it runs out, when its holder releases it, and when its holder exits', () => {
    const { cluster, now, worker } = primary();
    const [one, two] = [worker(1), worker(2)];
    const lead = (w: Worker, id: number) => cluster.emit('message', w, { feedShare: 'lead', id, key: 'feed', ttlMs: 500 });
    lead(one, 1);
    now.ms += 500;
    lead(two, 2); // run out: taken
    cluster.emit('message', two, { feedShare: 'release', key: 'feed' });
    lead(one, 3); // released: taken
    cluster.emit('exit', one);
    cluster.emit('message', one, { feedShare: 'publish', key: 'feed', outcome: OUTCOME });
    lead(two, 4); // its holder exited: taken
    expect(one.sent).toEqual([{ feedLeadReply: 1, lead: true }, { feedLeadReply: 3, lead: true }]);
    expect(two.sent).toEqual([{ feedLeadReply: 2, lead: true }, { feedLeadReply: 4, lead: true }]);
  });
});
