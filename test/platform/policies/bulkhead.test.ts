import { describe, expect, it } from '@jest/globals';
import { RouteBusy } from '../../../src/platform/bulkhead.ts';
import { bulkheadPolicy, RouteBulkheads } from '../../../src/platform/policies/bulkhead.ts';
import type { PlatformCall } from '../../../src/platform/policy.ts';
import type { Answer } from '../../../src/platform/upstream-call.ts';

const OK: Answer = { status: 200, body: '', headers: {}, retries: 0 };

function call(route: string, signal?: AbortSignal): PlatformCall {
  return { route, method: 'GET', pathAndQuery: '/x', authorization: 'Bearer t', headers: {}, callers: () => 1, signal };
}

/** A `next` whose answers the test releases one by one, in the order the calls arrived. */
function held() {
  const arrived: string[] = [];
  const answers: (() => void)[] = [];
  const next = (given: PlatformCall) =>
    new Promise<Answer>((resolve) => {
      arrived.push(given.route);
      answers.push(() => resolve(OK));
    });
  return { next, arrived, answer: () => answers.shift()!() };
}

/** Lets every settled promise run its reactions. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('RouteBulkheads', () => {
  it('shares one bulkhead among the routes of a breaker key, and reports the load of each key used', () => {
    const bulkheads = new RouteBulkheads({ maxInFlight: 2, queue: 3 });
    expect(bulkheads.load()).toEqual([]);
    const documents = bulkheads.for('documents.get');
    expect(bulkheads.for('documents.update')).toBe(documents);
    expect(bulkheads.for('documents.get')).toBe(documents);
    expect(bulkheads.for('exceptions.list')).not.toBe(documents);
    expect([documents.capacity, documents.queueCapacity]).toEqual([2, 3]);
    documents.acquire();
    expect(bulkheads.load()).toEqual([
      { route: 'documents', inFlight: 1, queued: 0 },
      { route: 'exceptions', inFlight: 0, queued: 0 },
    ]);
  });
});

describe('bulkheadPolicy', () => {
  it('holds a slot while the call is in flight, queues the next, and frees the slot on its answer', async () => {
    const bulkheads = new RouteBulkheads({ maxInFlight: 1, queue: 1 });
    const policy = bulkheadPolicy(bulkheads);
    const platform = held();
    const first = policy.send(call('documents.get'), platform.next);
    const second = policy.send(call('documents.update'), platform.next);
    await settle();
    expect(platform.arrived).toEqual(['documents.get']);
    expect(bulkheads.load()).toEqual([{ route: 'documents', inFlight: 1, queued: 1 }]);
    platform.answer();
    await expect(first).resolves.toBe(OK);
    await settle();
    expect(platform.arrived).toEqual(['documents.get', 'documents.update']);
    platform.answer();
    await expect(second).resolves.toBe(OK);
    expect(bulkheads.load()).toEqual([{ route: 'documents', inFlight: 0, queued: 0 }]);
  });

  it('refuses a call when the slots and the queue are full, without sending it', async () => {
    const bulkheads = new RouteBulkheads({ maxInFlight: 1, queue: 0 });
    const platform = held();
    void bulkheadPolicy(bulkheads).send(call('exceptions.list'), platform.next);
    await expect(bulkheadPolicy(bulkheads).send(call('exceptions.list'), platform.next)).rejects.toEqual(new RouteBusy(1, 0));
    expect(platform.arrived).toEqual(['exceptions.list']);
    // Another breaker key has slots of its own.
    void bulkheadPolicy(bulkheads).send(call('linx.search'), platform.next);
    expect(platform.arrived).toEqual(['exceptions.list', 'linx.search']);
  });

  it('frees the slot when the call fails', async () => {
    const bulkheads = new RouteBulkheads({ maxInFlight: 1, queue: 0 });
    const error = new Error('reset');
    await expect(bulkheadPolicy(bulkheads).send(call('documents.get'), () => Promise.reject(error))).rejects.toBe(error);
    expect(bulkheads.load()).toEqual([{ route: 'documents', inFlight: 0, queued: 0 }]);
  });

  it('lets a waiting call whose request stops leave the queue with the stop’s reason', async () => {
    const bulkheads = new RouteBulkheads({ maxInFlight: 1, queue: 1 });
    const platform = held();
    void bulkheadPolicy(bulkheads).send(call('documents.get'), platform.next);
    const controller = new AbortController();
    const waiting = bulkheadPolicy(bulkheads).send(call('documents.get', controller.signal), platform.next);
    const reason = new Error('deadline');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(bulkheads.load()).toEqual([{ route: 'documents', inFlight: 1, queued: 0 }]);
    expect(platform.arrived).toEqual(['documents.get']);
  });

  it('sends no call whose request stopped as its slot was handed over, and gives the slot on', async () => {
    const bulkheads = new RouteBulkheads({ maxInFlight: 1, queue: 2 });
    const platform = held();
    void bulkheadPolicy(bulkheads).send(call('documents.get'), platform.next);
    const controller = new AbortController();
    const late = bulkheadPolicy(bulkheads).send(call('documents.get', controller.signal), platform.next);
    const after = bulkheadPolicy(bulkheads).send(call('documents.update'), platform.next);
    const reason = new Error('deadline');
    // The first call's answer hands its slot to the waiting call, whose request stops in the same turn.
    platform.answer();
    await Promise.resolve();
    controller.abort(reason);
    await expect(late).rejects.toBe(reason);
    await settle();
    expect(platform.arrived).toEqual(['documents.get', 'documents.update']);
    platform.answer();
    await expect(after).resolves.toBe(OK);
    expect(bulkheads.load()).toEqual([{ route: 'documents', inFlight: 0, queued: 0 }]);
  });
});
