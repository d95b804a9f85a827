import { describe, expect, it } from '@jest/globals';
import { sharedReadsPolicy } from '../../../src/platform/policies/shared-reads.ts';
import type { PlatformCall } from '../../../src/platform/policy.ts';
import { SharedReads } from '../../../src/platform/shared-reads.ts';
import type { Answer } from '../../../src/platform/upstream-call.ts';

const OK: Answer = { status: 200, body: 'shared', headers: {}, retries: 0 };

function call(overrides: Partial<PlatformCall> = {}): PlatformCall {
  return { route: 'documents.get', method: 'GET', pathAndQuery: '/v1/documents/d1', authorization: 'Bearer token-a', headers: {}, callers: () => 1, ...overrides };
}

/** A platform whose answers the test releases, noting every call that reached it and how many callers it had then. */
function platform() {
  const reached: PlatformCall[] = [];
  const answers: ((outcome: Answer | Error) => void)[] = [];
  const next = (given: PlatformCall) =>
    new Promise<Answer>((resolve, reject) => {
      reached.push(given);
      answers.push((outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome)));
    });
  return { next, reached, answer: (outcome: Answer | Error = OK) => answers.shift()!(outcome) };
}

describe('sharedReadsPolicy', () => {
  it('sends one call for identical GETs in flight, marks the joiners, and answers every caller', async () => {
    const reads = new SharedReads(true);
    const policy = sharedReadsPolicy(reads);
    const upstream = platform();
    const [first, second, third] = [call(), call(), call()];
    const answers = [first, second, third].map((given) => policy.send(given, upstream.next));
    expect(upstream.reached).toHaveLength(1);
    expect([first.joined, second.joined, third.joined]).toEqual([undefined, true, true]);
    expect(upstream.reached[0]!.callers()).toBe(3);
    upstream.answer();
    await expect(Promise.all(answers)).resolves.toEqual([OK, OK, OK]);
    expect(reads.counts()).toEqual({ calls: 0, callers: 0 });
  });

  it('shares a failure with every caller, and keeps nothing once the call settled', async () => {
    const policy = sharedReadsPolicy(new SharedReads(true));
    const upstream = platform();
    const answers = [policy.send(call(), upstream.next), policy.send(call(), upstream.next)];
    const failure = new Error('reset');
    upstream.answer(failure);
    for (const answer of answers) await expect(answer).rejects.toBe(failure);
    const later = policy.send(call(), upstream.next);
    expect(upstream.reached).toHaveLength(2);
    upstream.answer();
    await expect(later).resolves.toBe(OK);
  });

  it('does not share a PUT, another path, another token, or anything when sharing is off', async () => {
    const shared = sharedReadsPolicy(new SharedReads(true));
    const upstream = platform();
    const sends = [
      shared.send(call(), upstream.next),
      shared.send(call({ method: 'PUT' }), upstream.next),
      shared.send(call({ pathAndQuery: '/v1/documents/d2' }), upstream.next),
      shared.send(call({ authorization: 'Bearer token-b' }), upstream.next),
    ];
    const off = sharedReadsPolicy(new SharedReads(false));
    sends.push(off.send(call(), upstream.next), off.send(call(), upstream.next));
    expect(upstream.reached).toHaveLength(6);
    for (let i = 0; i < 6; i++) upstream.answer();
    await Promise.all(sends);
  });

  it("keys a read by the caller's credentials without holding the token", async () => {
    const reads = new SharedReads(true);
    const given = call();
    const upstream = platform();
    const pending = sharedReadsPolicy(reads).send(given, upstream.next);
    expect(given.readKey).toBe(`${reads.credentialKey('Bearer token-a')} /v1/documents/d1`);
    expect(given.readKey).not.toContain('token-a');
    upstream.answer();
    await pending;
  });

  it('lets a caller that stops leave with its reason, the call going on for the others, and stops it when the last one leaves', async () => {
    const reads = new SharedReads(true);
    const policy = sharedReadsPolicy(reads);
    const upstream = platform();
    const [one, two] = [new AbortController(), new AbortController()];
    const first = policy.send(call({ signal: one.signal }), upstream.next);
    const second = policy.send(call({ signal: two.signal }), upstream.next);
    const reason = new Error('deadline');
    one.abort(reason);
    await expect(first).rejects.toBe(reason);
    expect(upstream.reached[0]!.signal!.aborted).toBe(false);
    two.abort(new Error('gone'));
    await expect(second).rejects.toThrow('gone');
    expect(upstream.reached[0]!.signal!.aborted).toBe(true);
    expect(reads.counts()).toEqual({ calls: 0, callers: 0 });
  });
});
