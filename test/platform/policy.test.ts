import { describe, expect, it } from '@jest/globals';
import { compose, type PlatformCall, type Policy } from '../../src/platform/policy.ts';
import type { Answer } from '../../src/platform/upstream-call.ts';

const CALL: PlatformCall = { route: 'documents.get', method: 'GET', pathAndQuery: '/v1/documents/d1', authorization: 'Bearer t', headers: {}, callers: () => 1 };
const answer = (status: number): Answer => ({ status, body: '', headers: {}, retries: 0 });

/** A policy that notes its name on the way in and out, and passes on what it is given. */
function noting(name: string, log: string[]): Policy {
  return {
    name,
    async send(call, next) {
      log.push(`${name} in`);
      const got = await next(call);
      log.push(`${name} out`);
      return got;
    },
  };
}

describe('compose', () => {
  it('runs the first policy first, each one’s next being the one after it', async () => {
    const log: string[] = [];
    const end: Policy = { name: 'transport', send: async () => (log.push('transport'), answer(200)) };
    await expect(compose([noting('a', log), noting('b', log), end])(CALL)).resolves.toEqual(answer(200));
    expect(log).toEqual(['a in', 'b in', 'transport', 'b out', 'a out']);
  });

  it('hands each policy the call the one before passed on', async () => {
    const seen: PlatformCall[] = [];
    const tagging: Policy = { name: 'tag', send: (call, next) => next({ ...call, headers: { ...call.headers, tag: '1' } }) };
    const end: Policy = { name: 'transport', send: async (call) => (seen.push(call), answer(204)) };
    await compose([tagging, end])(CALL);
    expect(seen).toEqual([{ ...CALL, headers: { tag: '1' } }]);
    expect(CALL.headers).toEqual({});
  });

  it('lets a policy answer without going on, or call next again', async () => {
    let sent = 0;
    const end: Policy = { name: 'transport', send: async () => answer(++sent === 1 ? 503 : 200) };
    const twice: Policy = { name: 'again', send: async (call, next) => ((await next(call)).status === 503 ? next(call) : answer(0)) };
    await expect(compose([twice, end])(CALL)).resolves.toEqual(answer(200));
    const short: Policy = { name: 'short', send: async () => answer(429) };
    await expect(compose([short, end])(CALL)).resolves.toEqual(answer(429));
    expect(sent).toBe(2);
  });

  it('fails a call that runs past the last policy, which must be the transport', async () => {
    await expect(compose([noting('a', [])])(CALL)).rejects.toThrow('the last platform policy must not call next (it is the transport)');
    await expect(compose([])(CALL)).rejects.toThrow('the last platform policy must not call next (it is the transport)');
  });
});
