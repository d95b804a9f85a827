import type { ApolloServerOptionsWithGateway, BaseContext } from '@apollo/server';
import { execute, Kind, type DocumentNode, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import { compilePlan, notCompiledCost, type Jit, type Plan } from './compile-plan.ts';
import { asLocatedError } from './located-error.ts';

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
  /** Estimated heap of the compiled documents kept, in bytes, priced from each document's text (see `compiledCost`). */
  maxBytes: number;
  /** A document is compiled on its `minUses`-th execution among recent ones; before that graphql-js runs it. */
  minUses: number;
  /**
   * Compiles allowed per minute, refilled evenly, up to this many at once (unbounded when absent):
   * a document that reaches `minUses` while none is left waits, interpreted, for a later use.
   */
  compilesPerMinute?: number;
  /** Milliseconds on a monotonic clock, for the compile allowance (`performance.now` unless given). */
  now?: () => number;
}

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
 * - variables jit's coercion refuses (graphql-js answers with its own messages; an unknown
 *   operation too);
 * - a null or missing value in a position where jit does not check it the way
 *   graphql-js does (`guardedVariables`).
 * The errors are graphql-js' own (`asLocatedError`), listed in the order jit
 * raised them: the specification gives the `errors` list no order, and jit lists
 * the errors of non-null positions after the others where graphql-js lists each
 * as it happens.
 * A compiled document costs far more heap than its text (up to about 740 bytes
 * per character, measured), so the cache is bounded by an estimate priced from
 * the text as well as by its number of entries, least recently used evicted
 * first; a document whose estimate exceeds the whole budget is not compiled.
 */
export class CompiledExecution {
  private readonly schema: GraphQLSchema;
  private readonly options: CompiledCacheOptions;
  /** Least recently used first; a null plan marks a document jit could not compile. `cost` is its estimated heap. */
  private readonly compiled = new Map<string, { plan: Plan | null; cost: number }>();
  /** Executions so far of documents not compiled yet, oldest first. */
  private readonly pending = new Map<string, number>();
  private cost = 0;
  /** Compiles left in the allowance, and when it was last refilled. */
  private compilesLeft: number;
  private refilledAt: number;
  private readonly now: () => number;
  /**
   * graphql-jit (and the JSON-schema compiler it loads, about a hundred modules) is loaded when the
   * first document reaches its `minUses`-th execution, not at start-up: a process answers its probes
   * without waiting for it, and one that never sees a document twice never loads it. graphql-js
   * answers until it has loaded.
   */
  private jit: Jit | undefined;
  private loading: Promise<void> | undefined;
  private readonly onLoaded: ((error?: unknown) => void) | undefined;

  constructor(schema: GraphQLSchema, options: CompiledCacheOptions, onLoaded?: (error?: unknown) => void) {
    this.schema = schema;
    this.options = options;
    this.onLoaded = onLoaded;
    this.now = options.now ?? (() => performance.now());
    this.compilesLeft = options.compilesPerMinute ?? Infinity;
    this.refilledAt = this.now();
  }

  /**
   * Loads the compiler (once; later calls share the first's outcome); until it has, documents run
   * on graphql-js. `onLoaded` hears the outcome.
   */
  load(): Promise<void> {
    this.loading ??= import('graphql-jit').then(
      (jit) => {
        this.jit = jit;
        this.onLoaded?.();
      },
      (error: unknown) => {
        this.onLoaded?.(error);
        throw error;
      },
    );
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
    const result = plan.query.query(undefined, request.contextValue, request.variables ?? {});
    if (isPromiseLike(result)) return result.then((settled) => this.settle(settled, request));
    return this.settle(result, request);
  }

  /**
   * Whether jit may run the request: no guarded variable is null, or missing without a non-null
   * default (graphql-js' coerced value would be null there). Variables jit's own coercion refuses
   * come back as a result without data, which graphql-js then answers with its own messages
   * (`settle`): the two coerce alike otherwise, which the fuzzed-variables test holds them to.
   */
  private coercesAsCompiled(plan: Plan, variables: Record<string, unknown> | undefined): boolean {
    for (const name of plan.guarded) {
      const value = variables !== undefined && Object.hasOwn(variables, name) ? variables[name] : undefined;
      if (value === null) return false;
      if (value === undefined) {
        const byDefault = plan.variableDefinitions.find((definition) => definition.variable.name.value === name)?.defaultValue;
        if (byDefault === undefined || byDefault.kind === Kind.NULL) return false;
      }
    }
    return true;
  }

  private settle(result: ExecutionResult, request: ExecutionRequest): Promise<ExecutionResult> | ExecutionResult {
    if (refusedBeforeExecution(result)) return this.reference(request);
    if (!result.errors) return result;
    return { ...result, errors: (result.errors as readonly GraphQLError[]).map(asLocatedError) };
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
    // While the compiler loads (or after it failed to), graphql-js answers and nothing is counted.
    if (!jit && this.loading !== undefined) return null;
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
    if (uses < this.options.minUses || !jit || !this.mayCompile()) {
      this.pending.set(key, uses);
      if (this.pending.size > MAX_PENDING_KEYS) this.pending.delete(this.pending.keys().next().value as string);
      // The first document used often enough starts the compiler's load; a failure is reported through onLoaded.
      if (!jit && uses >= this.options.minUses) this.load().catch(() => undefined);
      return null;
    }
    const { plan, cost } = compilePlan(jit, this.schema, request.document, request.operationName, key);
    // An entry larger than the whole budget is remembered as not compilable rather than emptying the cache.
    if (cost > this.options.maxBytes) return this.keep(key, null, notCompiledCost(key));
    return this.keep(key, plan, cost);
  }

  /**
   * Takes one compile from the allowance, if one is left. Each compile costs 0.5–5 ms of CPU and
   * leaves its generated code to V8 (whose compilation cache keeps each source it compiled for a
   * few full collections after the document is evicted), so a client sending new documents often
   * enough to compile each cannot spend more of either than the allowance grants.
   */
  private mayCompile(): boolean {
    const perMinute = this.options.compilesPerMinute;
    if (perMinute === undefined) return true;
    const now = this.now();
    this.compilesLeft = Math.min(perMinute, this.compilesLeft + ((now - this.refilledAt) * perMinute) / 60_000);
    this.refilledAt = now;
    if (this.compilesLeft < 1) return false;
    this.compilesLeft -= 1;
    return true;
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
export function compiledExecutionGateway(execution: Pick<CompiledExecution, 'execute'>, schema: GraphQLSchema): GatewayInterface {
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
