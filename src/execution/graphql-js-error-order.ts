import type { ExecutionResult, GraphQLError } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import { comparePaths, positionOf, type Position } from './response-positions.ts';

/*
 * Where graphql-js and graphql-jit list errors differently (see inGraphqlJsOrder), telling them
 * apart needs to know which errors were raised before execution first waited. Neither library
 * records that, nor can an error object be observed as it is made, so the only witness is the
 * error's stack: a frame of a function named below, built from source, marks the synchronous part.
 * That reads stack text, which V8 formats and no library promises: test/execution/jit-private-surface.test.ts
 * fences it (V8's `at NAME (eval at …` format of Node 24, graphql-jit 0.8.9 raising and wrapping a
 * resolver's error on the resolver's own stack), so that a change in either fails there first.
 */

/** The name of the frame that runs a compiled query, as V8 writes it in a stack. */
const SYNCHRONOUS_PART = 'compiledExecutionSynchronousPart';
/**
 * Runs a compiled query. Its frame marks, in an error's stack, the errors raised
 * before execution first waits (a resolver refusing its arguments at once). It
 * is built from source so that the frame keeps its name in stacks, whatever
 * source maps or a bundler make of this module's own functions.
 */
const runQuery = new Function(`return function ${SYNCHRONOUS_PART}(query, contextValue, variables) { return query.query(undefined, contextValue, variables); }`)() as (
  query: CompiledQuery,
  contextValue: unknown,
  variables: Record<string, unknown>,
) => Promise<ExecutionResult> | ExecutionResult;

export function compiledExecutionSynchronousPart(query: CompiledQuery, contextValue: unknown, variables: Record<string, unknown>): Promise<ExecutionResult> | ExecutionResult {
  // Deep enough for the marker to stay in the stack of an error raised a few calls down in a resolver.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = Math.max(limit, 32);
  try {
    return runQuery(query, contextValue, variables);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Whether graphql-jit raised the error (or its resolver threw it) before execution first waited. */
export function raisedSynchronously(error: GraphQLError): boolean {
  return (error.stack ?? '').includes(`at ${SYNCHRONOUS_PART} (eval at `);
}

/** Merges two lists, each in its own order, taking the error earlier in the response first. */
function mergeByPath(positions: Position, a: readonly GraphQLError[], b: readonly GraphQLError[]): GraphQLError[] {
  const merged: GraphQLError[] = [];
  let [i, j] = [0, 0];
  while (i < a.length && j < b.length) merged.push(comparePaths(positions, b[j]!.path ?? [], a[i]!.path ?? []) < 0 ? b[j++]! : a[i++]!);
  return [...merged, ...a.slice(i), ...b.slice(j)];
}

/**
 * graphql-js lists each error when it happens: first those raised before
 * execution first waits, then, round of platform answers by round, those of the
 * fields completed, in document order. graphql-jit lists them in that order too,
 * but keeps the errors of non-null positions (a resolver failing there, a null
 * where the schema promises a value) apart, to null their parents once
 * execution ends, and lists them after all the others. Both lists are split into
 * the errors raised before the first wait and those after, and merged back in
 * response order within each part.
 */
export function inGraphqlJsOrder(errors: readonly GraphQLError[], positions: Position): readonly GraphQLError[] {
  const nonNull = (error: GraphQLError) => (error.path ? (positionOf(positions, error.path)?.nonNull ?? false) : false);
  const first = errors.findIndex(nonNull);
  if (first <= 0) return errors;
  const [others, held] = [errors.slice(0, first), errors.slice(first)];
  const [othersAtOnce, heldAtOnce] = [others.filter(raisedSynchronously), held.filter(raisedSynchronously)];
  const later = (list: readonly GraphQLError[], atOnce: readonly GraphQLError[]) => list.filter((error) => !atOnce.includes(error));
  return [...mergeByPath(positions, othersAtOnce, heldAtOnce), ...mergeByPath(positions, later(others, othersAtOnce), later(held, heldAtOnce))];
}
