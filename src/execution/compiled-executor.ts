import type { ApolloServerOptionsWithGateway, BaseContext } from '@apollo/server';
import { execute, GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema, type SourceLocation } from 'graphql';
import type { CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';

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

/**
 * Runs validated documents through graphql-jit: each (document, operation)
 * pair is compiled once into a JavaScript function and cached, so a repeated
 * request skips graphql-js' per-field interpretation. The answer is the one
 * graphql-js gives; where jit's would differ, graphql-js answers instead:
 * - a document jit cannot compile is executed by graphql-js (remembered, so
 *   the compile is not retried);
 * - a request refused before execution (unknown operation, variables that do
 *   not coerce) is answered by graphql-js, whose messages clients see
 *   elsewhere. No resolver has run at that point, so re-running is safe even
 *   for a mutation.
 */
export class CompiledExecution {
  private readonly schema: GraphQLSchema;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  /**
   * Insertion-ordered, so the oldest entry is evicted first; a null query marks a document jit could
   * not compile. `bytes` is the entry's document text and key: a client chooses those sizes (a 95 kB
   * operation name), so the cache is bounded by their sum as well as by its number of entries.
   */
  private readonly compiled = new Map<string, { query: CompiledQuery | null; bytes: number }>();
  private bytes = 0;
  /** graphql-jit (and the JSON-schema compiler it loads) is loaded once the server listens; graphql-js answers until then. */
  private jit: Jit | undefined;
  private loading: Promise<void> | undefined;

  constructor(schema: GraphQLSchema, maxEntries: number, maxBytes: number) {
    this.schema = schema;
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
  }

  /** Loads the compiler; until it has, documents run on graphql-js. */
  load(): Promise<void> {
    this.loading ??= import('graphql-jit').then((jit) => {
      this.jit = jit;
    });
    return this.loading;
  }

  /** Compiled documents held (for tests and metrics). */
  get size(): number {
    return this.compiled.size;
  }

  /** The document text and keys the held entries account for. */
  get heldBytes(): number {
    return this.bytes;
  }

  execute(request: ExecutionRequest): Promise<ExecutionResult> | ExecutionResult {
    const query = this.compiledFor(request);
    if (!query) return this.reference(request);
    const result = query.query(undefined, request.contextValue, request.variables ?? {});
    if (isPromiseLike(result)) return result.then((settled) => this.settle(settled, request));
    return this.settle(result, request);
  }

  private settle(result: ExecutionResult, request: ExecutionRequest): Promise<ExecutionResult> | ExecutionResult {
    if (refusedBeforeExecution(result)) return this.reference(request);
    if (result.errors) return { ...result, errors: result.errors.map(asLocatedError) };
    return result;
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

  private compiledFor(request: ExecutionRequest): CompiledQuery | null {
    const jit = this.jit;
    if (!jit) return null;
    const key = `${request.operationName ?? ''}\n${request.documentKey}`;
    const known = this.compiled.get(key);
    if (known !== undefined) return known.query;
    const bytes = key.length + (request.document.loc?.source.body.length ?? 0);
    // A document larger than the whole budget runs on graphql-js rather than emptying the cache.
    if (bytes > this.maxBytes) return null;
    let query: CompiledQuery | null = null;
    try {
      const outcome = jit.compileQuery(this.schema, request.document, request.operationName ?? undefined);
      if (jit.isCompiledQuery(outcome)) query = outcome;
    } catch {
      // graphql-jit throws on a few shapes it does not support; graphql-js executes those.
    }
    while (this.compiled.size > 0 && (this.compiled.size >= this.maxEntries || this.bytes + bytes > this.maxBytes)) {
      const [oldest, entry] = this.compiled.entries().next().value as [string, { bytes: number }];
      this.compiled.delete(oldest);
      this.bytes -= entry.bytes;
    }
    this.compiled.set(key, { query, bytes });
    this.bytes += bytes;
    return query;
  }
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
