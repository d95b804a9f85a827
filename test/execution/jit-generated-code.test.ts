import { describe, expect, it } from '@jest/globals';
import type { CompiledQuery } from 'graphql-jit';
import { takeGeneratedCodeLength, WITH_GENERATED_CODE } from '../../src/execution/jit-generated-code.ts';

// What graphql-jit 0.8.9 itself leaves on a compiled query is pinned by jit-private-surface.test.ts;
// these tests give the reader queries made by hand, to pin what it does with each kind of value.
const GENERATED_CODE = '__DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation';
const query = (fields: Record<string, unknown>) => fields as unknown as CompiledQuery;

describe('WITH_GENERATED_CODE', () => {
  it("is graphql-jit's debug option and nothing else", () => {
    expect(WITH_GENERATED_CODE).toEqual({ debug: true });
  });
});

describe('takeGeneratedCodeLength', () => {
  it('answers the length of the generated code in characters, and drops the code from the query', () => {
    const stringify = () => '';
    const compiled = query({ query: 'q', stringify, [GENERATED_CODE]: 'return "é€";' });
    expect(takeGeneratedCodeLength(compiled)).toBe(12);
    expect(compiled).toEqual({ query: 'q', stringify });
    expect(GENERATED_CODE in compiled).toBe(false);
  });

  it('answers 0 for empty generated code, which is still code left', () => {
    expect(takeGeneratedCodeLength(query({ [GENERATED_CODE]: '' }))).toBe(0);
  });

  it('answers nothing for a query without generated code, and leaves its fields alone', () => {
    const compiled = query({ query: 'q' });
    expect(takeGeneratedCodeLength(compiled)).toBeUndefined();
    expect(compiled).toEqual({ query: 'q' });
  });

  it('answers nothing for a value under that name that is not source text, and still drops it', () => {
    for (const value of [() => 'return 1;', 42, null, ['return 1;']]) {
      const compiled = query({ query: 'q', [GENERATED_CODE]: value });
      expect(takeGeneratedCodeLength(compiled)).toBeUndefined();
      expect(compiled).toEqual({ query: 'q' });
    }
  });

  it('answers once: a second read finds the code gone', () => {
    const compiled = query({ [GENERATED_CODE]: 'return 1;' });
    expect([takeGeneratedCodeLength(compiled), takeGeneratedCodeLength(compiled)]).toEqual([9, undefined]);
  });
});
