import { describe, expect, it } from '@jest/globals';
import { buildSchema, getOperationAST, GraphQLError, parse, type ExecutionResult } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import { compiledExecutionSynchronousPart, inGraphqlJsOrder, raisedSynchronously } from '../../src/execution/graphql-js-error-order.ts';
import { responsePositions } from '../../src/execution/response-positions.ts';

// Response order: c, a, d, b; c and d are non-null (graphql-jit lists their errors last).
const schema = buildSchema('type Query { a: String b: String c: String! d: String! }');
const document = parse('{ c a d b }');
const positions = responsePositions(schema, document, getOperationAST(document)!);

/** An error at `key`, raised outside any compiled execution. */
function later(key: string): GraphQLError {
  return new GraphQLError(key, { path: [key] });
}

/** Errors at `keys`, raised inside the synchronous part of a (fake) compiled execution. */
function atOnce(...keys: string[]): GraphQLError[] {
  const query = { query: () => ({ errors: keys.map((key) => new GraphQLError(key, { path: [key] })) }) } as unknown as CompiledQuery;
  return [...((compiledExecutionSynchronousPart(query, {}, {}) as ExecutionResult).errors ?? [])];
}

const messages = (errors: readonly GraphQLError[]) => errors.map((error) => error.message);

describe('compiledExecutionSynchronousPart', () => {
  it('runs the query with the context and variables, marks its errors, and gives the stack limit back', () => {
    const limit = Error.stackTraceLimit;
    const seen: unknown[] = [];
    const query = { query: (...args: unknown[]) => (seen.push(...args), { data: { a: 'x' } }) } as unknown as CompiledQuery;
    expect(compiledExecutionSynchronousPart(query, { ctx: 1 }, { v: 2 })).toEqual({ data: { a: 'x' } });
    expect(seen).toEqual([undefined, { ctx: 1 }, { v: 2 }]);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(atOnce('a').map(raisedSynchronously)).toEqual([true]);
    expect(raisedSynchronously(later('a'))).toBe(false);
  });

  it('gives the stack limit back when the query throws', () => {
    const limit = Error.stackTraceLimit;
    const query = {
      query: () => {
        throw new Error('boom');
      },
    } as unknown as CompiledQuery;
    expect(() => compiledExecutionSynchronousPart(query, {}, {})).toThrow('boom');
    expect(Error.stackTraceLimit).toBe(limit);
  });
});

describe('inGraphqlJsOrder', () => {
  it('leaves the list as it is when no error is at a non-null position, or the first one is', () => {
    const nullable = [later('b'), later('a')];
    expect(inGraphqlJsOrder(nullable, positions)).toBe(nullable);
    const heldFirst = [later('d'), later('a'), later('c')];
    expect(inGraphqlJsOrder(heldFirst, positions)).toBe(heldFirst);
    expect(inGraphqlJsOrder([], positions)).toEqual([]);
  });

  it('merges the non-null errors graphql-jit holds back into response order', () => {
    expect(messages(inGraphqlJsOrder([later('a'), later('b'), later('c'), later('d')], positions))).toEqual(['c', 'a', 'd', 'b']);
  });

  it('lists the errors raised before execution first waited first, each part in response order', () => {
    const [b, d] = atOnce('b', 'd');
    const errors = [b!, later('a'), d!, later('c')];
    expect(messages(inGraphqlJsOrder(errors, positions))).toEqual(['d', 'b', 'c', 'a']);
  });

  it('keeps an error without a path among the others, ahead of a held one', () => {
    const pathless = new GraphQLError('no path');
    expect(messages(inGraphqlJsOrder([pathless, later('b'), later('c')], positions))).toEqual(['no path', 'c', 'b']);
  });

  it('keeps every error exactly once', () => {
    const [a, c] = atOnce('a', 'c');
    const errors = [a!, later('b'), c!, later('d')];
    const ordered = inGraphqlJsOrder(errors, positions);
    expect(new Set(ordered)).toEqual(new Set(errors));
    expect(messages(ordered)).toEqual(['c', 'a', 'd', 'b']);
  });
});
