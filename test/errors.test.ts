import { describe, expect, it } from '@jest/globals';
import { errorEntry, ErrorCode, stampRequestId, useErrorShaping } from '../src/errors.ts';
import { runWithRequestId } from '../src/request/scope.ts';

describe('the shape of an answer’s errors (src/errors.ts)', () => {
  it('stamps the id of the request being answered, last, over any id an error carried', () => {
    expect(runWithRequestId('req-1', () => stampRequestId({ code: ErrorCode.NOT_FOUND, requestId: 'carried' }))).toEqual({ code: 'NOT_FOUND', requestId: 'req-1' });
  });

  it('leaves the extensions alone outside a request', () => {
    expect(stampRequestId({ code: ErrorCode.BAD_REQUEST })).toEqual({ code: 'BAD_REQUEST' });
  });

  it('shapes a refusal as a GraphQL error without changing the extensions it was given', () => {
    const extensions = { code: ErrorCode.RATE_LIMITED, retryAfter: 2 };
    expect(runWithRequestId('req-2', () => errorEntry('Too many platform calls', extensions))).toEqual({
      message: 'Too many platform calls',
      extensions: { code: 'RATE_LIMITED', retryAfter: 2, requestId: 'req-2' },
    });
    expect(extensions).toEqual({ code: 'RATE_LIMITED', retryAfter: 2 });
  });

  it("shapes a refusal by the gateway's rules: client text cut to MAX_ECHOED_CHARS, no internals in production, code first", () => {
    try {
      useErrorShaping({ production: true, echoChars: 16 });
      const id = 'x'.repeat(40);
      const cut = `${'x'.repeat(16)}…`;
      const entry = runWithRequestId('req-3', () => errorEntry(`No trusted document has the id "${id}"`, { given: id, code: ErrorCode.PERSISTED_QUERY_NOT_IN_LIST }));
      expect(JSON.stringify(entry)).toBe(JSON.stringify({ message: `No trusted document has the id "${cut}"`, extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST', given: cut, requestId: 'req-3' } }));
      expect(runWithRequestId('req-4', () => errorEntry('pool exhausted at db-7', { code: 'SOME_LIBRARY_CODE', host: 'db-7' }))).toEqual({
        message: 'Internal server error',
        extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'req-4' },
      });
      useErrorShaping({ production: false, echoChars: 64 });
      expect(runWithRequestId('req-5', () => errorEntry('pool exhausted at db-7', { code: 'SOME_LIBRARY_CODE' }))).toEqual({ message: 'pool exhausted at db-7', extensions: { code: 'SOME_LIBRARY_CODE', requestId: 'req-5' } });
    } finally {
      useErrorShaping({ production: false, echoChars: 64 });
    }
  });
});
