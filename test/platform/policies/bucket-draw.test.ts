import { describe, expect, it } from '@jest/globals';
import { ErrorCode } from '../../../src/errors.ts';
import { PlatformError } from '../../../src/platform/platform-error.ts';
import { bucketDraw } from '../../../src/platform/policies/bucket-draw.ts';
import type { PlatformCall } from '../../../src/platform/policy.ts';
import { RequestCalls, type CallLedger } from '../../../src/platform/request-calls.ts';
import { CallNotSent, type Answer } from '../../../src/platform/upstream-call.ts';

const OK: Answer = { status: 200, body: '', headers: {}, retries: 0 };

function caller(draw?: CallLedger['draw']): RequestCalls {
  const ledger: CallLedger | undefined = draw && { draw, forOperation: () => ledger! };
  return new RequestCalls({ maxCalls: 10, tokens: undefined, token: 't', tokenKey: undefined, onTokenRefused: undefined, ledger });
}

function call(given?: RequestCalls): PlatformCall {
  return { route: 'documents.get', method: 'GET', pathAndQuery: '/v1/documents/d1', authorization: 'Bearer t', headers: {}, callers: () => 1, caller: given };
}

describe('bucketDraw', () => {
  it('counts every attempt sent, for the operation and the request, without a ledger', async () => {
    const request = caller();
    const operation = request.forOperation();
    await expect(bucketDraw.send(call(request), async () => OK)).resolves.toBe(OK);
    await expect(bucketDraw.send(call(operation), async () => OK)).resolves.toBe(OK);
    expect([request.sent, operation.sent, request.tally.sent]).toEqual([1, 1, 2]);
  });

  it('draws each attempt from the ledger before sending it, synchronously while the reservation covers it', async () => {
    const order: string[] = [];
    const covered = caller(() => void order.push('draw'));
    await bucketDraw.send(call(covered), async () => (order.push('send'), OK));
    let pay: () => void = () => undefined;
    const waiting = caller(() => (order.push('wait'), new Promise<void>((resolve) => (pay = resolve))));
    const sent = bucketDraw.send(call(waiting), async () => (order.push('send late'), OK));
    expect(waiting.sent).toBe(0);
    pay();
    await expect(sent).resolves.toBe(OK);
    expect(order).toEqual(['draw', 'send', 'wait', 'send late']);
    expect([covered.sent, waiting.sent]).toEqual([1, 1]);
  });

  it('does not send an attempt the ledger refuses, nor count it', async () => {
    const spent = new CallNotSent(new PlatformError(ErrorCode.RATE_LIMITED, 'budget spent', { retryAfter: 2 }));
    const refused = caller(() => Promise.reject(spent));
    let sent = 0;
    await expect(bucketDraw.send(call(refused), async () => (sent++, OK))).rejects.toBe(spent);
    expect([sent, refused.sent, refused.tally.sent]).toEqual([0, 0, 0]);
  });

  it('sends a call of no request as it is', async () => {
    await expect(bucketDraw.send(call(), async () => OK)).resolves.toBe(OK);
    expect(bucketDraw.name).toBe('bucket draw');
  });
});
