import { describe, expect, it } from '@jest/globals';
import { callsBudget } from '../../../src/platform/policies/calls-budget.ts';
import type { PlatformCall } from '../../../src/platform/policy.ts';
import { RequestCalls } from '../../../src/platform/request-calls.ts';
import type { Answer } from '../../../src/platform/upstream-call.ts';

const OK: Answer = { status: 200, body: '', headers: {}, retries: 0 };

function caller(maxCalls: number): RequestCalls {
  return new RequestCalls({ maxCalls, tokens: undefined, token: 't', tokenKey: undefined, onTokenRefused: undefined });
}

function call(given?: RequestCalls): PlatformCall {
  return { route: 'documents.get', method: 'GET', pathAndQuery: '/v1/documents/d1', authorization: 'Bearer t', headers: {}, callers: () => 1, caller: given };
}

describe('callsBudget', () => {
  it('counts each call of the request and refuses the one past the limit without sending it', async () => {
    const calls = caller(2);
    let sent = 0;
    const next = async () => (sent++, OK);
    await expect(callsBudget.send(call(calls), next)).resolves.toBe(OK);
    await expect(callsBudget.send(call(calls), next)).resolves.toBe(OK);
    const refusal = callsBudget.send(call(calls), next);
    await expect(refusal).rejects.toMatchObject({
      message: 'Query needs more than 2 platform calls; at most 2 are allowed per request',
      extensions: { code: 'BAD_USER_INPUT', limit: 'MAX_PLATFORM_CALLS_PER_REQUEST', max: 2 },
    });
    expect([sent, calls.tally.calls]).toEqual([2, 2]);
  });

  it('counts a call that fails, as it was handed to the seam', async () => {
    const calls = caller(1);
    await expect(callsBudget.send(call(calls), () => Promise.reject(new Error('reset')))).rejects.toThrow('reset');
    await expect(callsBudget.send(call(calls), async () => OK)).rejects.toMatchObject({ extensions: { max: 1 } });
  });

  it('shares the count between the operations of one request', async () => {
    const request = caller(2);
    await callsBudget.send(call(request.forOperation()), async () => OK);
    await callsBudget.send(call(request.forOperation()), async () => OK);
    await expect(callsBudget.send(call(request.forOperation()), async () => OK)).rejects.toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
  });

  it('refuses every call with a limit of zero, and counts nothing for a call of no request', async () => {
    await expect(callsBudget.send(call(caller(0)), async () => OK)).rejects.toMatchObject({ extensions: { max: 0 } });
    for (let i = 0; i < 3; i++) await expect(callsBudget.send(call(), async () => OK)).resolves.toBe(OK);
  });
});
