import { describe, expect, it } from '@jest/globals';
import { GraphQLError } from 'graphql';
import { ErrorCode } from '../../src/errors.ts';
import { PlatformError } from '../../src/platform/platform-error.ts';
import { runWithRequestId } from '../../src/request/scope.ts';

describe('PlatformError', () => {
  it('is a GraphQLError with its code in the extensions and nothing else by default', () => {
    const error = new PlatformError(ErrorCode.NOT_FOUND, 'Not found on the platform');
    expect(error).toBeInstanceOf(GraphQLError);
    expect([error.name, error.code, error.message, error.extensions, error.fieldErrors]).toEqual(['PlatformError', 'NOT_FOUND', 'Not found on the platform', { code: 'NOT_FOUND' }, []]);
  });

  it('carries what the platform said and when to retry, and leaves out empty details', () => {
    const fieldErrors = [{ path: 'name', message: 'is too long', errorCode: 'TOO_LONG' }];
    const error = new PlatformError(ErrorCode.BAD_USER_INPUT, 'rejected', { upstream: { status: 400, traceId: 't1', errorCode: 'VALIDATION' }, retryAfter: 0, fieldErrors });
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', upstream: { status: 400, traceId: 't1', errorCode: 'VALIDATION' }, retryAfter: 0 });
    expect(error.fieldErrors).toBe(fieldErrors);
    expect(new PlatformError(ErrorCode.UPSTREAM_ERROR, 'x', { upstream: {} }).extensions).toEqual({ code: 'UPSTREAM_ERROR' });
  });

  it('carries no request id, even when made inside a request', () => {
    expect(runWithRequestId('req-1', () => new PlatformError(ErrorCode.CONFLICT, 'stale')).extensions).toEqual({ code: 'CONFLICT' });
  });
});
