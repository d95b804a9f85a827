import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { batchLimitStage } from '../../src/http/batch-limit.ts';
import { runWithRequestId } from '../../src/request/scope.ts';

/** Runs the stage on a request with `body`: whether it passed the request on, or what it answered. */
function staged(maxBatchSize: number, body: unknown) {
  const headers: Record<string, unknown> = {};
  const answer = { passed: false, status: 0, headers, text: '' };
  const res = {
    set statusCode(status: number) {
      answer.status = status;
    },
    setHeader: (name: string, value: unknown) => void (headers[name] = value),
    end: (text: string) => void (answer.text = text),
  } as unknown as ServerResponse;
  runWithRequestId('req-batch', () => batchLimitStage(maxBatchSize)({ body } as unknown as IncomingMessage, res, () => void (answer.passed = true)));
  return answer;
}

describe('batchLimitStage', () => {
  it('passes on a batch of at most the limit, and anything that is no batch', () => {
    expect(staged(2, [{}, {}]).passed).toBe(true);
    expect(staged(2, []).passed).toBe(true);
    expect(staged(2, { query: '{ a }' }).passed).toBe(true);
    expect(staged(0, undefined).passed).toBe(true);
  });

  it('refuses a batch over the limit with a GraphQL-shaped 400 naming the limit, and does not pass it on', () => {
    const text = JSON.stringify({
      errors: [{ message: 'A batch may hold at most 2 operations', extensions: { code: 'BAD_REQUEST', limit: 'MAX_BATCH_SIZE', max: 2, requestId: 'req-batch' } }],
    });
    expect(staged(2, [{}, {}, {}])).toEqual({
      passed: false,
      status: 400,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) },
      text,
    });
  });
});
