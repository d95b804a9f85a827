import { EventEmitter } from 'node:events';
import type { Cluster, Worker } from 'node:cluster';
import { describe, expect, it } from '@jest/globals';
import { serveFeedsToWorkers } from '../../src/subscriptions/worker-share.ts';

/** A worker as the primary sees it: what it was sent. */
function worker(id: number): Worker & { sent: unknown[] } {
  const sent: unknown[] = [];
  return { id, sent, isConnected: () => true, send: (message: unknown) => sent.push(message) } as unknown as Worker & { sent: unknown[] };
}

function primary(): { cluster: Cluster; now: { ms: number } } {
  const now = { ms: 1_000 };
  const cluster = new EventEmitter() as unknown as Cluster;
  serveFeedsToWorkers(cluster, () => now.ms);
  return { cluster, now };
}

const OUTCOME = { kind: 'data', data: [{ id: 'e1' }], at: 5 };

describe('the primary keeping the workers\' feed leases', () => {
  it('gives a feed\'s lease to one worker, tells the other how long it has left, and hands the outcome only to the other', () => {
    const { cluster, now } = primary();
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
    const { cluster, now } = primary();
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
