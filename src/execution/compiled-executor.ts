import { setFlagsFromString } from 'node:v8';
import type { ApolloServerOptionsWithGateway, BaseContext } from '@apollo/server';
import {
  execute,
  getOperationAST,
  getVariableValues,
  getNamedType,
  GraphQLError,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
  type SelectionSetNode,
  type OperationDefinitionNode,
  type SourceLocation,
  type VariableDefinitionNode,
} from 'graphql';
import type { CompiledQuery, CompilerOptions, compileQuery, isCompiledQuery } from 'graphql-jit';

interface Jit {
  compileQuery: typeof compileQuery;
  isCompiledQuery: typeof isCompiledQuery;
}

type GatewayInterface = ApolloServerOptionsWithGateway<BaseContext>['gateway'];
type GatewayExecutor = NonNullable<Awaited<ReturnType<GatewayInterface['load']>>['executor']>;

/** What one execution needs; the same fields graphql-js' `execute` takes. */
export interface ExecutionRequest {
  /** Identifies the document's text (Apollo's query hash): the compiled form is cached under it. */
  documentKey: string;
  document: DocumentNode;
  operationName: string | null | undefined;
  variables: Record<string, unknown> | undefined;
  contextValue: unknown;
}

/** Bounds of the compiled documents (COMPILED_QUERY_* settings). */
export interface CompiledCacheOptions {
  /** Compiled documents kept at most. */
  maxEntries: number;
  /** Estimated heap of the compiled documents kept, in bytes (see `compile`). */
  maxBytes: number;
  /** A document is compiled on its `minUses`-th execution among recent ones; before that graphql-js runs it. */
  minUses: number;
}

/** What graphql-jit produced for one (document, operation) pair, and what a request needs to run it as graphql-js would. */
interface Plan {
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
/** What graphql-jit leaves on a compiled query with its `debug` option: the generated code, read for its length and dropped. */
const GENERATED_CODE = '__DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation';
/** Operation names longer than this are never compiled: no application names its operations so, and every cache key stays small. */
const MAX_COMPILED_NAME_CHARS = 256;
/** Documents remembered while they wait for their `minUses`-th execution (each key at most 256 + 65 characters). */
const MAX_PENDING_KEYS = 4_096;

/**
 * Runs validated documents through graphql-jit: each (document, operation)
 * pair executed often enough is compiled once into a JavaScript function and
 * cached, so a repeated request skips graphql-js' per-field interpretation.
 * The answer is the one graphql-js gives; where jit's would differ, graphql-js
 * answers instead. No resolver has run at any of these points, so running
 * graphql-js instead is safe even for a mutation:
 * - a document seen fewer than `minUses` times, or one jit cannot compile
 *   (remembered, so the compile is not retried);
 * - variables graphql-js' own coercion refuses (an unknown operation too);
 * - a null or missing value in a position where jit does not check it the way
 *   graphql-js does (`guardedVariables`).
 * A compiled document costs far more heap than its text (up to 8 bytes per
 * character of the code jit generates for it, and its parsed document), so the
 * cache is bounded by that estimate as well as by its number of entries, least
 * recently used evicted first.
 */
export class CompiledExecution {
  private readonly schema: GraphQLSchema;
  private readonly options: CompiledCacheOptions;
  /** Least recently used first; a null plan marks a document jit could not compile. `cost` is its estimated heap. */
  private readonly compiled = new Map<string, { plan: Plan | null; cost: number }>();
  /** Executions so far of documents not compiled yet, oldest first. */
  private readonly pending = new Map<string, number>();
  private cost = 0;
  /** graphql-jit (and the JSON-schema compiler it loads) is loaded once the server listens; graphql-js answers until then. */
  private jit: Jit | undefined;
  private loading: Promise<void> | undefined;

  constructor(schema: GraphQLSchema, options: CompiledCacheOptions) {
    this.schema = schema;
    this.options = options;
  }

  /**
   * Loads the compiler; until it has, documents run on graphql-js. It also turns
   * off V8's in-memory compilation cache: graphql-jit builds each document's code
   * with `new Function`, and that cache keeps every distinct source it has seen
   * (with its bytecode) long after the compiled document is evicted: the heap
   * would grow with every distinct document compiled, whatever this cache's
   * bound. The cache only speeds up compiling the same source twice; this
   * process compiles its scripts once and creates no function from a string per
   * request.
   */
  load(): Promise<void> {
    this.loading ??= import('graphql-jit').then((jit) => {
      setFlagsFromString('--no-compilation-cache');
      this.jit = jit;
    });
    return this.loading;
  }

  /** Documents held, compiled or marked as not compilable (for tests and metrics). */
  get size(): number {
    return this.compiled.size;
  }

  /** The estimated heap of the held entries, bounded by `maxBytes`. */
  get heldBytes(): number {
    return this.cost;
  }

  /** Documents waiting for their `minUses`-th execution. */
  get waiting(): number {
    return this.pending.size;
  }

  /** Whether a compiled form of the document is held. */
  holds(documentKey: string, operationName?: string): boolean {
    return Boolean(this.compiled.get(`${operationName ?? ''}\n${documentKey}`)?.plan);
  }

  execute(request: ExecutionRequest): Promise<ExecutionResult> | ExecutionResult {
    const plan = this.planFor(request);
    if (!plan || !this.coercesAsCompiled(plan, request.variables)) return this.reference(request);
    const result = compiledExecutionSynchronousPart(plan.query, request.contextValue, request.variables ?? {});
    if (isPromiseLike(result)) return result.then((settled) => this.settle(settled, request, plan));
    return this.settle(result, request, plan);
  }

  /**
   * Whether jit may run the request: graphql-js' own coercion accepts the
   * variables (graphql-js answers any refusal, with its own messages), and no
   * guarded variable is null or missing. jit then coerces the same values alike.
   */
  private coercesAsCompiled(plan: Plan, variables: Record<string, unknown> | undefined): boolean {
    if (plan.variableDefinitions.length === 0) return true;
    const coercion = getVariableValues(this.schema, plan.variableDefinitions, variables ?? {}, { maxErrors: 1 });
    if (coercion.errors) return false;
    for (const name of plan.guarded) if (coercion.coerced[name] == null) return false;
    return true;
  }

  private settle(result: ExecutionResult, request: ExecutionRequest, plan: Plan): Promise<ExecutionResult> | ExecutionResult {
    if (refusedBeforeExecution(result)) return this.reference(request);
    if (!result.errors) return result;
    let errors = result.errors as readonly GraphQLError[];
    if (errors.length > 1) {
      plan.positions ??= responsePositions(this.schema, plan.document, plan.operation);
      errors = inGraphqlJsOrder(errors, plan.positions);
    }
    return { ...result, errors: errors.map(asLocatedError) };
  }

  private reference(request: ExecutionRequest): Promise<ExecutionResult> | ExecutionResult {
    return execute({
      schema: this.schema,
      document: request.document,
      operationName: request.operationName,
      variableValues: request.variables,
      contextValue: request.contextValue,
    });
  }

  private planFor(request: ExecutionRequest): Plan | null {
    const jit = this.jit;
    if (!jit) return null;
    const name = request.operationName ?? '';
    if (name.length > MAX_COMPILED_NAME_CHARS) return null;
    const key = `${name}\n${request.documentKey}`;
    const known = this.compiled.get(key);
    if (known !== undefined) {
      // Most recently used last.
      this.compiled.delete(key);
      this.compiled.set(key, known);
      return known.plan;
    }
    const uses = (this.pending.get(key) ?? 0) + 1;
    this.pending.delete(key);
    if (uses < this.options.minUses) {
      this.pending.set(key, uses);
      if (this.pending.size > MAX_PENDING_KEYS) this.pending.delete(this.pending.keys().next().value as string);
      return null;
    }
    const { plan, cost } = compile(jit, this.schema, request, key);
    // An entry larger than the whole budget is remembered as not compilable rather than emptying the cache.
    if (cost > this.options.maxBytes) return this.keep(key, null, notCompiledCost(key));
    return this.keep(key, plan, cost);
  }

  private keep(key: string, plan: Plan | null, cost: number): Plan | null {
    while (this.compiled.size > 0 && (this.compiled.size >= this.options.maxEntries || this.cost + cost > this.options.maxBytes)) {
      const [oldest, entry] = this.compiled.entries().next().value as [string, { cost: number }];
      this.compiled.delete(oldest);
      this.cost -= entry.cost;
    }
    this.compiled.set(key, { plan, cost });
    this.cost += cost;
    return plan;
  }
}

/** The estimated heap of an entry that holds no compiled code: its key twice (the map and the string) and the entry. */
function notCompiledCost(key: string): number {
  return 2 * key.length + 128;
}

function compile(jit: Jit, schema: GraphQLSchema, request: ExecutionRequest, key: string): { plan: Plan | null; cost: number } {
  let outcome: CompiledQuery | ExecutionResult;
  try {
    outcome = jit.compileQuery(schema, request.document, request.operationName ?? undefined, { debug: true } as Partial<CompilerOptions>);
  } catch {
    // graphql-jit throws on a few shapes it does not support; graphql-js executes those.
    return { plan: null, cost: notCompiledCost(key) };
  }
  if (!jit.isCompiledQuery(outcome)) return { plan: null, cost: notCompiledCost(key) };
  const operation = getOperationAST(request.document, request.operationName);
  if (!operation) return { plan: null, cost: notCompiledCost(key) };
  const generated = (outcome as unknown as Record<string, unknown>)[GENERATED_CODE];
  delete (outcome as unknown as Record<string, unknown>)[GENERATED_CODE];
  const text = request.document.loc?.source.body.length ?? 0;
  const code = typeof generated === 'string' ? HEAP_PER_GENERATED_CHAR * generated.length : HEAP_PER_TEXT_CHAR * text;
  const cost = ENTRY_OVERHEAD_BYTES + code + HEAP_PER_DOCUMENT_CHAR * text;
  const plan: Plan = {
    query: outcome,
    variableDefinitions: operation.variableDefinitions ?? [],
    guarded: guardedVariables(schema, request.document, operation),
    positions: undefined,
    document: request.document,
    operation,
  };
  return { plan, cost };
}

/**
 * The variables of an operation whose null or absence graphql-jit does not
 * treat as graphql-js does (graphql-js' `getArgumentValues` and `valueFromAST`):
 * - a variable inside a list or input-object literal: jit writes the value in
 *   unchecked, so a null reaches a non-null input field or list item, and a
 *   missing one becomes null instead of the field's default or an error;
 * - a whole argument of non-null type, and so the `if` of `@skip`/`@include`:
 *   a nullable variable with a default may stand there, and an explicit null
 *   must be refused (jit skips or includes silently, or answers an error
 *   graphql-js builds differently).
 * A variable used as a whole nullable argument is passed on alike by both.
 */
function guardedVariables(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): string[] {
  const guarded = new Set<string>();
  const typeInfo = new TypeInfo(schema);
  const visitor = visitWithTypeInfo(typeInfo, {
    Argument(node) {
      if (node.value.kind !== Kind.VARIABLE) {
        visit(node.value, { Variable: (variable) => void guarded.add(variable.name.value) });
        return;
      }
      const argument = typeInfo.getArgument();
      if (!argument || isNonNullType(argument.type)) guarded.add(node.value.name.value);
    },
  });
  for (const definition of [operation, ...fragmentsUsedBy(document, operation)]) visit(definition, visitor);
  return [...guarded];
}

/** The fragment definitions an operation spreads, directly or through other fragments. */
function fragmentsUsedBy(document: DocumentNode, operation: OperationDefinitionNode): FragmentDefinitionNode[] {
  const definitions = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) definitions.set(definition.name.value, definition);
  const used = new Map<string, FragmentDefinitionNode>();
  const walk = (node: OperationDefinitionNode | FragmentDefinitionNode): void => {
    visit(node, {
      FragmentSpread(spread) {
        const fragment = definitions.get(spread.name.value);
        if (!fragment || used.has(spread.name.value)) return;
        used.set(spread.name.value, fragment);
        walk(fragment);
      },
    });
  };
  walk(operation);
  return [...used.values()];
}

/** A position of the response: whether its value is non-null, and the positions under it by response key ('#' for a list's items), in document order. */
interface Position {
  nonNull: boolean;
  order: number;
  children: Map<string, Position>;
}

/**
 * The response's positions for an operation: every field it selects, through
 * fragments and on every possible type, by response key. Where a key selects
 * fields of different types (on different possible types), a position is
 * non-null only if all of them are.
 */
function responsePositions(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): Position {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const root: Position = { nonNull: false, order: 0, children: new Map() };
  const rootType = schema.getRootType(operation.operation);
  const fill = (position: Position, parent: GraphQLNamedType, selections: SelectionSetNode, seen: Set<string>): void => {
    for (const selection of selections.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || seen.has(fragment.name.value)) continue;
        fill(position, schema.getType(fragment.typeCondition.name.value) ?? parent, fragment.selectionSet, new Set([...seen, fragment.name.value]));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        fill(position, selection.typeCondition ? (schema.getType(selection.typeCondition.name.value) ?? parent) : parent, selection.selectionSet, seen);
      } else {
        const key = selection.alias?.value ?? selection.name.value;
        const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[selection.name.value] : undefined;
        let type: GraphQLType | undefined = field?.type;
        let child = position.children.get(key);
        const nonNull = type !== undefined && isNonNullType(type);
        if (child) child.nonNull &&= nonNull;
        else position.children.set(key, (child = { nonNull, order: position.children.size, children: new Map() }));
        // Down through lists to the named type; each list level is a '#' position.
        let at = child;
        type = type && isNonNullType(type) ? type.ofType : type;
        while (type && isListType(type)) {
          const itemNonNull = isNonNullType(type.ofType);
          let item = at.children.get('#');
          if (item) item.nonNull &&= itemNonNull;
          else at.children.set('#', (item = { nonNull: itemNonNull, order: 0, children: new Map() }));
          at = item;
          type = isNonNullType(type.ofType) ? type.ofType.ofType : type.ofType;
        }
        if (selection.selectionSet && type) fill(at, getNamedType(type), selection.selectionSet, seen);
      }
    }
  };
  if (rootType) fill(root, rootType, operation.selectionSet, new Set());
  return root;
}

/** The position of a response path (undefined past the known positions). */
function positionOf(root: Position, path: ReadonlyArray<string | number>): Position | undefined {
  let at: Position | undefined = root;
  for (const key of path) at = at?.children.get(typeof key === 'number' ? '#' : key);
  return at;
}

/** Negative when path `a` comes first in the response (document order of keys, then list index). */
function comparePaths(root: Position, a: ReadonlyArray<string | number>, b: ReadonlyArray<string | number>): number {
  let at: Position | undefined = root;
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const [x, y] = [a[i]!, b[i]!];
    if (x !== y) {
      if (typeof x === 'number' && typeof y === 'number') return x - y;
      const [px, py] = [at?.children.get(String(x)), at?.children.get(String(y))];
      return (px?.order ?? Number.MAX_SAFE_INTEGER) - (py?.order ?? Number.MAX_SAFE_INTEGER);
    }
    at = at?.children.get(typeof x === 'number' ? '#' : x);
  }
  return a.length - b.length;
}

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

function compiledExecutionSynchronousPart(query: CompiledQuery, contextValue: unknown, variables: Record<string, unknown>): Promise<ExecutionResult> | ExecutionResult {
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
function raisedSynchronously(error: GraphQLError): boolean {
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
function inGraphqlJsOrder(errors: readonly GraphQLError[], positions: Position): readonly GraphQLError[] {
  const nonNull = (error: GraphQLError) => (error.path ? (positionOf(positions, error.path)?.nonNull ?? false) : false);
  const first = errors.findIndex(nonNull);
  if (first <= 0) return errors;
  const [others, held] = [errors.slice(0, first), errors.slice(first)];
  const [othersAtOnce, heldAtOnce] = [others.filter(raisedSynchronously), held.filter(raisedSynchronously)];
  const later = (list: readonly GraphQLError[], atOnce: readonly GraphQLError[]) => list.filter((error) => !atOnce.includes(error));
  return [...mergeByPath(positions, othersAtOnce, heldAtOnce), ...mergeByPath(positions, later(others, othersAtOnce), later(held, heldAtOnce))];
}

/**
 * graphql-jit reports errors with its own subclass of GraphQLError, which
 * drops the extensions of a thrown GraphQLError and leaves `extensions` unset.
 * This rebuilds each the way graphql-js' `locatedError` does, so error codes,
 * masking and stack traces downstream see what graphql-js would have produced.
 */
function asLocatedError(error: GraphQLError): GraphQLError {
  // jit's class inherits from graphql-js' GraphQLError but leaves `extensions` undefined, which Apollo reads unguarded.
  if (error.constructor === GraphQLError) return error;
  const { originalError, path } = error as { originalError?: unknown; path?: ReadonlyArray<string | number> };
  // A GraphQLError that already carries a path is passed through by graphql-js unchanged.
  if (originalError instanceof GraphQLError && Array.isArray(originalError.path)) return originalError;
  const cause = originalError instanceof Error ? originalError : undefined;
  const located = new GraphQLError(cause?.message ?? error.message, {
    path,
    originalError: cause,
    extensions: cause instanceof GraphQLError ? cause.extensions : undefined,
  });
  const locations = (error as { locations?: readonly SourceLocation[] }).locations;
  if (locations && locations.length > 0) Object.defineProperty(located, 'locations', { value: locations, enumerable: true });
  return located;
}

function isPromiseLike<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** A result without a `data` entry: the request was refused before any field ran (graphql-js' own shape for that). */
function refusedBeforeExecution(result: ExecutionResult): boolean {
  return result.data === undefined;
}

/**
 * The compiled executor as Apollo Server's `gateway` option: Apollo keeps its
 * whole request pipeline (parsing and validation caches, plugins, limits, error
 * formatting) and hands each validated document to `executor`. The "gateway"
 * serves one fixed schema; it never changes after start-up.
 */
export function compiledExecutionGateway(execution: CompiledExecution, schema: GraphQLSchema): GatewayInterface {
  const executor: GatewayExecutor = async (requestContext) =>
    execution.execute({
      documentKey: requestContext.queryHash,
      document: requestContext.document,
      operationName: requestContext.request.operationName,
      variables: requestContext.request.variables,
      contextValue: requestContext.context,
    }) as Awaited<ReturnType<GatewayExecutor>>;
  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => {};
    },
    async load() {
      return { executor };
    },
    async stop() {},
  };
}
