import { describe, expect, it } from '@jest/globals';
import { GraphQLError } from 'graphql';
import { ErrorCode } from '../../src/errors.ts';
import { rethrowOnArguments, type ArgumentPaths } from '../../src/platform/argument-errors.ts';
import { PlatformError } from '../../src/platform/platform-error.ts';

// A list call's refusal of its query parameters, re-addressed to the GraphQL arguments that set
// them; any other failure passes through as it came.

const PATHS: ArgumentPaths = {
  status: ['filter', 'status'],
  sort: ['orderBy'],
  q: ['filter', 'text'],
};

/** What the handler threw when given `error`. */
function thrownBy(paths: ArgumentPaths, error: unknown): unknown {
  try {
    rethrowOnArguments(paths)(error);
  } catch (thrown) {
    return thrown;
  }
  throw new Error('the handler returned');
}

describe('rethrowOnArguments, what it leaves alone', () => {
  it('rethrows anything that is not a PlatformError as the very same value', () => {
    const plain = new Error('socket hang up');
    const graphql = new GraphQLError('bad', { extensions: { code: ErrorCode.BAD_USER_INPUT } });
    expect(thrownBy(PATHS, plain)).toBe(plain);
    expect(thrownBy(PATHS, graphql)).toBe(graphql);
    expect(thrownBy(PATHS, 'a string')).toBe('a string');
    expect(thrownBy(PATHS, undefined)).toBe(undefined);
  });

  it('rethrows a PlatformError of another code unchanged, even with field errors', () => {
    const notFound = new PlatformError(ErrorCode.NOT_FOUND, 'Not found', { fieldErrors: [{ path: 'status', message: 'is unknown', errorCode: 'UNKNOWN' }] });
    expect(thrownBy(PATHS, notFound)).toBe(notFound);
    expect(notFound.extensions).toEqual({ code: 'NOT_FOUND' });
  });

  it('rethrows a BAD_USER_INPUT without field errors unchanged', () => {
    const refusal = new PlatformError(ErrorCode.BAD_USER_INPUT, 'Bad request', { upstream: { status: 400 } });
    expect(thrownBy(PATHS, refusal)).toBe(refusal);
    expect(refusal.extensions).toEqual({ code: 'BAD_USER_INPUT', upstream: { status: 400 } });
  });
});

describe('rethrowOnArguments, re-addressing', () => {
  it('names the first argument concerned as `field` and lists every error with its argument', () => {
    const fieldErrors = [
      { path: 'status[0]', message: 'is not a status', errorCode: 'UNKNOWN_VALUE' },
      { path: 'sort.direction', message: 'must be ASC or DESC', errorCode: 'INVALID_ENUM' },
    ];
    const original = new PlatformError(ErrorCode.BAD_USER_INPUT, 'Validation failed', { upstream: { status: 400, traceId: 't-9' }, fieldErrors });
    const thrown = thrownBy(PATHS, original) as PlatformError;
    expect(thrown).toBeInstanceOf(PlatformError);
    expect(thrown).not.toBe(original);
    expect([thrown.name, thrown.message, thrown.code]).toEqual(['PlatformError', 'Validation failed', 'BAD_USER_INPUT']);
    expect(thrown.fieldErrors).toEqual(fieldErrors);
    expect(thrown.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      upstream: { status: 400, traceId: 't-9' },
      field: ['filter', 'status'],
      fieldErrors: [
        { field: ['filter', 'status'], message: 'is not a status', code: 'UNKNOWN_VALUE' },
        { field: ['orderBy'], message: 'must be ASC or DESC', code: 'INVALID_ENUM' },
      ],
    });
  });

  it('skips parameters no argument sets when choosing `field`, and gives their errors a null field', () => {
    const original = new PlatformError(ErrorCode.BAD_USER_INPUT, 'Validation failed', {
      fieldErrors: [
        { path: 'pageToken', message: 'is expired', errorCode: 'EXPIRED' },
        { path: 'q', message: 'is too long', errorCode: 'TOO_LONG' },
      ],
    });
    expect((thrownBy(PATHS, original) as PlatformError).extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field: ['filter', 'text'],
      fieldErrors: [
        { field: null, message: 'is expired', code: 'EXPIRED' },
        { field: ['filter', 'text'], message: 'is too long', code: 'TOO_LONG' },
      ],
    });
  });

  it("reads only the endpoint's own parameters, never an Object member such as `constructor`", () => {
    const original = new PlatformError(ErrorCode.BAD_USER_INPUT, 'Validation failed', {
      fieldErrors: [
        { path: 'constructor', message: 'is unknown', errorCode: 'UNKNOWN' },
        { path: 'toString', message: 'is unknown', errorCode: 'UNKNOWN' },
        { path: 'status', message: 'is not a status', errorCode: 'INVALID' },
      ],
    });
    expect((thrownBy(PATHS, original) as PlatformError).extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field: ['filter', 'status'],
      fieldErrors: [
        { field: null, message: 'is unknown', code: 'UNKNOWN' },
        { field: null, message: 'is unknown', code: 'UNKNOWN' },
        { field: ['filter', 'status'], message: 'is not a status', code: 'INVALID' },
      ],
    });
  });

  it('sets no `field` when no error names a parameter an argument sets, an empty path included', () => {
    const original = new PlatformError(ErrorCode.BAD_USER_INPUT, 'Validation failed', {
      fieldErrors: [
        { path: '', message: 'is invalid', errorCode: 'INVALID' },
        { path: 'statuses', message: 'is unknown', errorCode: 'UNKNOWN' },
      ],
    });
    const extensions = (thrownBy(PATHS, original) as PlatformError).extensions;
    expect(extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fieldErrors: [
        { field: null, message: 'is invalid', code: 'INVALID' },
        { field: null, message: 'is unknown', code: 'UNKNOWN' },
      ],
    });
    expect(Object.keys(extensions)).toEqual(['code', 'fieldErrors']);
  });

  it('reads a parameter name up to its first `.` or `[`, whichever comes first', () => {
    const original = new PlatformError(ErrorCode.BAD_USER_INPUT, 'Validation failed', {
      fieldErrors: [{ path: 'sort[1].field', message: 'is unknown', errorCode: 'UNKNOWN' }],
    });
    expect((thrownBy(PATHS, original) as PlatformError).extensions).toEqual({
      code: 'BAD_USER_INPUT',
      field: ['orderBy'],
      fieldErrors: [{ field: ['orderBy'], message: 'is unknown', code: 'UNKNOWN' }],
    });
  });

  it('rejects the list call it is chained to with the re-addressed error', async () => {
    const original = new PlatformError(ErrorCode.BAD_USER_INPUT, 'Validation failed', { fieldErrors: [{ path: 'status', message: 'is unknown', errorCode: 'UNKNOWN' }] });
    const call = Promise.reject(original).catch(rethrowOnArguments(PATHS));
    await expect(call).rejects.toMatchObject({
      message: 'Validation failed',
      extensions: { code: 'BAD_USER_INPUT', field: ['filter', 'status'], fieldErrors: [{ field: ['filter', 'status'], message: 'is unknown', code: 'UNKNOWN' }] },
    });
  });
});
