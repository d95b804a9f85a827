import type { CompiledQuery, CompilerOptions } from 'graphql-jit';

/**
 * The length of the JavaScript graphql-jit generated for a compiled query: the best predictor of the
 * heap a compiled document holds (docs/benchmark.md, "Compiled documents and memory"), which bounds
 * the compiled cache.
 *
 * graphql-jit has no public way to tell it. With its `debug` option (not in its typed options) it
 * leaves the generated source on the compiled query under a private name; this module is the only
 * reader of that private surface. test/execution/jit-private-surface.test.ts pins it for the graphql-jit
 * version checked (0.8.9): the day an upgrade drops or renames it, that test fails, and until then
 * the cache falls back to an estimate from the document's text (see compile-plan.ts).
 */

/** The property graphql-jit 0.8.9 sets with `debug`: the generated function's body. */
const GENERATED_CODE = '__DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation';

/** Compiler options that make graphql-jit leave its generated code on the compiled query. */
export const WITH_GENERATED_CODE = { debug: true } as Partial<CompilerOptions>;

/**
 * The characters of code graphql-jit generated for `query` (compiled with WITH_GENERATED_CODE), or
 * undefined when it left none. The code itself is dropped from the query: only its length is kept.
 */
export function takeGeneratedCodeLength(query: CompiledQuery): number | undefined {
  const fields = query as unknown as Record<string, unknown>;
  const generated = fields[GENERATED_CODE];
  delete fields[GENERATED_CODE];
  return typeof generated === 'string' ? generated.length : undefined;
}
