import { describe, expect, it } from '@jest/globals';
import { GraphQLError, type SourceLocation } from 'graphql';
import { asLocatedError } from '../../src/execution/located-error.ts';

/** Like graphql-jit's error class: a GraphQLError subclass that leaves `extensions` unset. */
class JitError extends GraphQLError {
  constructor(message: string, originalError: Error | undefined, path: ReadonlyArray<string | number>, locations?: readonly SourceLocation[]) {
    super(message, { originalError, path });
    (this as { extensions?: unknown }).extensions = undefined;
    if (locations) Object.defineProperty(this, 'locations', { value: locations, enumerable: true });
  }
}

const LOCATIONS = [{ line: 1, column: 3 }];

describe('asLocatedError', () => {
  it("passes graphql-js' own GraphQLError through", () => {
    const error = new GraphQLError('as is', { path: ['a'] });
    expect(asLocatedError(error)).toBe(error);
  });

  it('passes through a thrown GraphQLError that already carries a path', () => {
    const thrown = new GraphQLError('located', { path: ['a', 0], extensions: { code: 'NOT_FOUND' } });
    expect(asLocatedError(new JitError('wrapped', thrown, ['b']))).toBe(thrown);
  });

  it("rebuilds a thrown GraphQLError without a path with its message, extensions, the jit error's path and locations", () => {
    const thrown = new GraphQLError('not found', { extensions: { code: 'NOT_FOUND', id: 'd1' } });
    const located = asLocatedError(new JitError('jit says', thrown, ['document', 'owner'], LOCATIONS));
    expect(located.constructor).toBe(GraphQLError);
    expect(located.toJSON()).toEqual({ message: 'not found', path: ['document', 'owner'], locations: LOCATIONS, extensions: { code: 'NOT_FOUND', id: 'd1' } });
    expect(located.originalError).toBe(thrown);
  });

  it('rebuilds a plain thrown Error with its message, keeping it as the original error and no extensions', () => {
    const thrown = new TypeError('cannot read x');
    const located = asLocatedError(new JitError('jit says', thrown, ['a']));
    expect(located.toJSON()).toEqual({ message: 'cannot read x', path: ['a'] });
    expect(located.extensions).toEqual({});
    expect(located.originalError).toBe(thrown);
  });

  it("keeps graphql-jit's own message when nothing was thrown, and no empty locations", () => {
    const located = asLocatedError(new JitError('Cannot return null for non-nullable field Query.a.', undefined, ['a'], []));
    expect(located.toJSON()).toEqual({ message: 'Cannot return null for non-nullable field Query.a.', path: ['a'] });
    expect(located.originalError).toBeUndefined();
  });
});
