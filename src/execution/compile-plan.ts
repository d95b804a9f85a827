import { getOperationAST, type DocumentNode, type ExecutionResult, type GraphQLSchema, type VariableDefinitionNode } from 'graphql';
import type { CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { guardedVariables } from './guarded-variables.ts';

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
}

/**
 * What a compiled document holds in heap whatever its text: the plan, its closures, the entry
 * itself. With its text's share below, at or above every entry measured (3.3–4.9 KiB for a 20-character
 * `{ t: __typename }`, `bench/compiled-entry-heap.ts`).
 */
const ENTRY_OVERHEAD_BYTES = 4 * 1024;
/**
 * Heap of a compiled document per character of its text: the code graphql-jit generates and the
 * bytecode, feedback and closures V8 makes of it once run, and the parsed document (syntax tree and
 * tokens), which the compiled query keeps alive once Apollo's document cache has let it go. No
 * library tells the size of the generated code, so the bound is priced from the text alone: at or
 * above the 127–737 bytes per character measured for page queries and the playground's examples
 * (`bench/compiled-entry-heap.ts`, docs/benchmark.md), the most for small documents selecting a
 * connection.
 */
const HEAP_PER_TEXT_CHAR = 768;

/** The estimated heap of an entry that holds no compiled code: its key twice (the map and the string) and the entry. */
export function notCompiledCost(key: string): number {
  return 2 * key.length + 128;
}

/** The estimated heap of a compiled document: priced from the length of its text (see HEAP_PER_TEXT_CHAR). */
function compiledCost(document: DocumentNode): number {
  return ENTRY_OVERHEAD_BYTES + HEAP_PER_TEXT_CHAR * (document.loc?.source.body.length ?? 0);
}

/**
 * Compiles one operation of a validated document, with the estimated heap the compiled form holds
 * (`cost`, for the cache's byte bound); a null plan when graphql-jit cannot compile it.
 */
export function compilePlan(jit: Jit, schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, key: string): { plan: Plan | null; cost: number } {
  let outcome: CompiledQuery | ExecutionResult;
  try {
    outcome = jit.compileQuery(schema, document, operationName ?? undefined);
  } catch {
    // graphql-jit throws on a few shapes it does not support; graphql-js executes those.
    return { plan: null, cost: notCompiledCost(key) };
  }
  if (!jit.isCompiledQuery(outcome)) return { plan: null, cost: notCompiledCost(key) };
  const operation = getOperationAST(document, operationName);
  if (!operation) return { plan: null, cost: notCompiledCost(key) };
  const cost = compiledCost(document);
  const plan: Plan = {
    query: outcome,
    variableDefinitions: operation.variableDefinitions ?? [],
    guarded: guardedVariables(schema, document, operation),
  };
  return { plan, cost };
}
