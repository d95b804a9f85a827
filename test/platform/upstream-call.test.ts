import { describe, expect, it } from '@jest/globals';
import { ErrorCode } from '../../src/errors.ts';
import { PlatformError } from '../../src/platform/platform-error.ts';
import { CallNotSent } from '../../src/platform/upstream-call.ts';

describe('CallNotSent', () => {
  const answer = new PlatformError(ErrorCode.RATE_LIMITED, 'the caller has spent its budget of platform calls', { retryAfter: 2 });

  it('is an Error named for itself, with the message of the answer the caller gets', () => {
    const refusal = new CallNotSent(answer);
    expect(refusal).toBeInstanceOf(Error);
    expect(refusal.name).toBe('CallNotSent');
    expect(refusal.message).toBe('the caller has spent its budget of platform calls');
    // Logs and stack traces name it: a policy's refusal must not read as a platform failure.
    expect(String(refusal)).toBe('CallNotSent: the caller has spent its budget of platform calls');
    expect(refusal.stack?.split('\n')[0]).toBe('CallNotSent: the caller has spent its budget of platform calls');
  });

  it('carries the answer itself, code, extensions and all', () => {
    const refusal = new CallNotSent(answer);
    expect(refusal.answer).toBe(answer);
    expect(refusal.answer.code).toBe(ErrorCode.RATE_LIMITED);
    expect(refusal.answer.extensions).toEqual({ code: ErrorCode.RATE_LIMITED, retryAfter: 2 });
  });
});
