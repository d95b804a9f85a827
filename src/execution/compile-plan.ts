import { getOperationAST, type DocumentNode, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode, type VariableDefinitionNode } from 'graphql';
import type { CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { guardedVariables } from './guarded-variables.ts';
import { takeGeneratedCodeLength, WITH_GENERATED_CODE } from './jit-generated-code.ts';
import type { Position } from './response-positions.ts';

/** graphql-jit's entry points, loaded when a document first reaches its minUses-th use (compiled-executor.ts). */
export interface Jit {
  compileQuery: typeof compileQuery;
  isCompiledQuery: typeof isCompiledQuery;
}

/** What graphql-jit produced for one (document, operation) pair, and what a request needs to run it as graphql-js would. */
export interface Plan {
  query: CompiledQuery;
  variableDefinitions: readonly VariableDefinitionNode[];
  /** Variables whose null (or absence) graphql-jit passes on where graphql-js refuses or reads differently: see `guardedVariables`. */
  guarded: readonly string[];
  /** The response's positions, for putting errors in graphql-js' order (`inGraphqlJsOrder`); built on the first result with two errors. */
  positions: Position | undefined;
  document: DocumentNode;
  operation: OperationDefinitionNode;
}

/**
 * Heap V8 keeps for a compiled document per character of the code graphql-jit
 * generated for it (bytecode, feedback, closures). At or above the 4.3–7.8
 * measured for distinct documents (docs/benchmark.md), so the budget is not overrun.
 */
const HEAP_PER_GENERATED_CHAR = 8;
/**
 * Heap of the parsed document per character of its text: the compiled query
 * keeps the syntax tree (and its tokens) alive once Apollo's document cache has
 * let it go. At or above the 37–68 measured for page queries.
 */
const HEAP_PER_DOCUMENT_CHAR = 72;
/** A compiled document's heap beyond the above: closures, resolve-info thunks, the entry itself, a small document's tree. */
const ENTRY_OVERHEAD_BYTES = 12 * 1024;
/** When graphql-jit does not report its generated code: heap of the code per character of document text (120–470 measured). */
const HEAP_PER_TEXT_CHAR = 512;

/** The estimated heap of an entry that holds no compiled code: its key twice (the map and the string) and the entry. */
export function notCompiledCost(key: string): number {
  return 2 * key.length + 128;
}

/**
 * Compiles one operation of a validated document, with the estimated heap the compiled form holds
 * (`cost`, for the cache's byte bound); a null plan when graphql-jit cannot compile it.
 */
export function compilePlan(jit: Jit, schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, key: string): { plan: Plan | null; cost: number } {
  let outcome: CompiledQuery | ExecutionResult;
  try {
    outcome = jit.compileQuery(schema, document, operationName ?? undefined, WITH_GENERATED_CODE);
  } catch {
    // graphql-jit throws on a few shapes it does not support; graphql-js executes those.
    return { plan: null, cost: notCompiledCost(key) };
  }
  if (!jit.isCompiledQuery(outcome)) return { plan: null, cost: notCompiledCost(key) };
  const operation = getOperationAST(document, operationName);
  if (!operation) return { plan: null, cost: notCompiledCost(key) };
  const generated = takeGeneratedCodeLength(outcome);
  const text = document.loc?.source.body.length ?? 0;
  const code = generated !== undefined ? HEAP_PER_GENERATED_CHAR * generated : HEAP_PER_TEXT_CHAR * text;
  const cost = ENTRY_OVERHEAD_BYTES + code + HEAP_PER_DOCUMENT_CHAR * text;
  const plan: Plan = {
    query: outcome,
    variableDefinitions: operation.variableDefinitions ?? [],
    guarded: guardedVariables(schema, document, operation),
    positions: undefined,
    document,
    operation,
  };
  return { plan, cost };
}
