import { describe, expect, it } from '@jest/globals';
import { ErrorCode } from '../../src/errors.ts';
import { PlatformError } from '../../src/platform/platform-error.ts';
import { CallNotSent } from '../../src/platform/upstream-call.ts';

describe('CallNotSent', () => {
  it('carries the answer the caller is given, untouched, and says its message', () => {
    const answer = new PlatformError(ErrorCode.RATE_LIMITED, 'the calls budget of this request is spent', { retryAfter: 3 });
    const notSent = new CallNotSent(answer);
    expect(notSent.answer).toBe(answer);
    expect(notSent.answer.extensions).toEqual({ code: 'RATE_LIMITED', retryAfter: 3 });
    expect(notSent.message).toBe('the calls budget of this request is spent');
    expect(String(notSent)).toBe('CallNotSent: the calls budget of this request is spent');
  });

  it('is an Error named CallNotSent, told apart from the PlatformError it carries', () => {
    const notSent = new CallNotSent(new PlatformError(ErrorCode.COST_EXCEEDS_BURST, 'spent'));
    expect(notSent).toBeInstanceOf(Error);
    expect(notSent).not.toBeInstanceOf(PlatformError);
    expect(notSent.name).toBe('CallNotSent');
    expect(notSent.answer.name).toBe('PlatformError');
    expect(notSent.stack?.startsWith('CallNotSent: spent\n')).toBe(true);
  });
});
