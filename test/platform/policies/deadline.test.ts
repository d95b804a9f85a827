import { describe, expect, it } from '@jest/globals';
import { deadline } from '../../../src/platform/policies/deadline.ts';
import type { PlatformCall } from '../../../src/platform/policy.ts';
import type { Answer } from '../../../src/platform/upstream-call.ts';
import { CallerGone, RequestDeadlineExceeded } from '../../../src/request/deadline.ts';

const OK: Answer = { status: 200, body: '', headers: {}, retries: 0 };

function call(signal?: AbortSignal): PlatformCall {
  return { route: 'documents.get', method: 'GET', pathAndQuery: '/v1/documents/d1', authorization: 'Bearer t', headers: {}, callers: () => 1, signal };
}

describe('the deadline policy', () => {
  it('passes on the call of a request still running, or of no request, as it is', async () => {
    const given: PlatformCall[] = [];
    const running = call(new AbortController().signal);
    const free = call();
    await expect(deadline.send(running, async (next) => (given.push(next), OK))).resolves.toBe(OK);
    await expect(deadline.send(free, async (next) => (given.push(next), OK))).resolves.toBe(OK);
    expect(given).toEqual([running, free]);
    expect(given[0]).toBe(running);
  });

  it('stops the call of a request whose deadline passed or whose caller hung up, with that reason, before the rest of the list', async () => {
    for (const reason of [new RequestDeadlineExceeded(8_000), new CallerGone()]) {
      const controller = new AbortController();
      controller.abort(reason);
      let sent = 0;
      await expect(deadline.send(call(controller.signal), async () => (sent++, OK))).rejects.toBe(reason);
      expect(sent).toBe(0);
    }
    expect(deadline.name).toBe('deadline');
  });
});
