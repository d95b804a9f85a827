import { EventEmitter } from 'node:events';
import type { Worker } from 'node:cluster';
import { describe, expect, it } from '@jest/globals';
import { FeedLeases } from '../../src/subscriptions/worker-share.ts';

type FakeWorker = Worker & { sent: unknown[] };

/** The primary's leases over a clock the test moves, and its workers as it sees them: each what it was sent. */
function primary(): { now: { ms: number }; worker(id: number): FakeWorker } {
  const now = { ms: 1_000 };
  const leases = new FeedLeases(() => now.ms);
  return {
    now,
    worker: (id) => {
      const sent: unknown[] = [];
      const worker = Object.assign(new EventEmitter(), { id, sent, isConnected: () => true, send: (message: unknown) => sent.push(message) }) as unknown as FakeWorker;
      leases.attach(worker);
      return worker;
    },
  };
}

const OUTCOME = { kind: 'data', data: [{ id: 'e1' }], at: 5 };

describe('the primary keeping the workers\' feed leases', () => {
  it('gives a feed\'s lease to one worker, tells the other how long it has left, and hands the outcome only to the other', () => {
    const { now, worker } = primary();
    const [one, two] = [worker(1), worker(2)];
    for (const w of [one, two]) w.emit('message', { feedShare: 'listen', key: 'feed' });
    one.emit('message', { feedShare: 'lead', id: 7, key: 'feed', ttlMs: 500 });
    now.ms += 200;
    two.emit('message', { feedShare: 'lead', id: 3, key: 'feed', ttlMs: 500 });
    one.emit('message', { feedShare: 'publish', key: 'feed', outcome: OUTCOME });
    expect(one.sent).toEqual([{ feedLeadReply: 7, lead: true }]);
    expect(two.sent).toEqual([{ feedLeadReply: 3, lead: { heldForMs: 300 } }, { feedOutcome: 'feed', outcome: OUTCOME }]);
  });

  it('frees the lease when it runs out, when its holder releases it, and when its holder exits', () => {
    const { now, worker } = primary();
    const [one, two] = [worker(1), worker(2)];
    const lead = (w: Worker, id: number) => w.emit('message', { feedShare: 'lead', id, key: 'feed', ttlMs: 500 });
    lead(one, 1);
    now.ms += 500;
    lead(two, 2); // run out: taken
    two.emit('message', { feedShare: 'release', key: 'feed' });
    lead(one, 3); // released: taken
    one.emit('exit');
    one.emit('message', { feedShare: 'publish', key: 'feed', outcome: OUTCOME });
    lead(two, 4); // its holder exited: taken
    expect(one.sent).toEqual([{ feedLeadReply: 1, lead: true }, { feedLeadReply: 3, lead: true }]);
    expect(two.sent).toEqual([{ feedLeadReply: 2, lead: true }, { feedLeadReply: 4, lead: true }]);
  });
});
