import { describe, expect, it } from '@jest/globals';
import { errorEntry, ErrorCode, stampRequestId } from '../src/errors.ts';
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
});
