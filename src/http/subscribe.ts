import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import {
  createSourceEventStream,
  execute,
  getOperationAST,
  GraphQLError,
  parse,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type ParseOptions,
  type ValidationRule,
} from 'graphql';
import { specifiedRules } from 'graphql';
import { ErrorCode } from '../errors.ts';
import type { SubscribingContext } from '../context.ts';
import type { Transport } from '../subscriptions/index.ts';
import { room } from './stream-room.ts';

/** Subscription texts whose parsed document (and validation) is kept to share. */
const DOCUMENTS_KEPT = 200;

/** A GraphQL request as every transport carries it (a POST body, a GET's parameters, a graphql-ws `subscribe` payload). */
export interface SubscribeRequest {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
  extensions?: unknown;
}

export interface SubscribePathOptions {
  schema: GraphQLSchema;
  /** The query limits' rules, run after graphql-js' own, as Apollo Server runs them for queries. */
  validationRules: readonly ValidationRule[];
  parseOptions?: ParseOptions;
  /** The subscribing request's context (createSubscribingContext): its session, and each event's own; `req` when it came through the front door's stages. */
  context(headers: IncomingHttpHeaders, transport: Transport, req?: IncomingMessage): SubscribingContext;
  /** The one error shaper (format-error.ts): codes, request ids, clipped echoes. */
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
}

/** A request prepared to run, or the answer refusing it. */
export type Prepared = { args: ExecutionArgs } | { refused: ExecutionResult };

/**
 * The one way a subscription runs, whatever its transport (sse.ts, multipart.ts, websocket.ts): the
 * document parsed with the query limits' parse options, validated with graphql-js' rules and the
 * query limits', run with a query's context plus the subscription session, each result's errors
 * shaped by the one error shaper. Trusted documents and the admission are the front door's stages
 * before it on HTTP, and the WebSocket adapter's on a socket.
 */
export class SubscribePath {
  readonly #options: SubscribePathOptions;
  readonly #rules: readonly ValidationRule[];
  /** Documents parsed by `isSubscription` for the `prepare` right after it, by request object. */
  readonly #parsed = new WeakMap<object, DocumentNode | GraphQLError>();
  /**
   * Parsed documents by text, with their validation errors once validated: the many subscribers of
   * one screen send one text, and each open subscription keeps its document for its whole life, so
   * they share one instead of a copy each (oldest text forgotten first past the bound).
   */
  readonly #documents = new Map<string, { document: DocumentNode; errors?: readonly GraphQLError[] }>();
  /**
   * Each event's executions, by the subscription that asked (`executionKey`): a poller hands one event
   * object to all its subscribers (one token, one feed), so those running the same document with the
   * same variables share one execution, and its platform reads, instead of one each. Kept as long as
   * the event is (a subscriber's queue holds it until read).
   */
  readonly #executions = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();
  /** A number per shared document, for `executionKey`. */
  readonly #documentIds = new WeakMap<DocumentNode, number>();
  #documentCount = 0;

  constructor(options: SubscribePathOptions) {
    this.#options = options;
    this.#rules = [...specifiedRules, ...options.validationRules];
  }

  #parse(request: SubscribeRequest): DocumentNode | GraphQLError {
    let parsed = this.#parsed.get(request);
    if (parsed !== undefined) return parsed;
    if (typeof request.query !== 'string') {
      parsed = new GraphQLError('Send the operation as `query` (a string), or a trusted document\'s id', { extensions: { code: ErrorCode.BAD_REQUEST } });
    } else {
      try {
        parsed = this.#documents.get(request.query)?.document ?? this.#remember(request.query, parse(request.query, this.#options.parseOptions));
      } catch (error) {
        parsed = error instanceof GraphQLError ? new GraphQLError(error.message, { extensions: { code: ErrorCode.GRAPHQL_PARSE_FAILED } }) : new GraphQLError(String(error));
      }
    }
    this.#parsed.set(request, parsed);
    return parsed;
  }

  #remember(text: string, document: DocumentNode): DocumentNode {
    if (this.#documents.size >= DOCUMENTS_KEPT) this.#documents.delete(this.#documents.keys().next().value as string);
    this.#documents.set(text, { document });
    return document;
  }

  #validate(text: string | undefined, document: DocumentNode): readonly GraphQLError[] {
    const known = text === undefined ? undefined : this.#documents.get(text);
    if (known?.document === document && known.errors !== undefined) return known.errors;
    const errors = validate(this.#options.schema, document, this.#rules);
    if (known?.document === document) known.errors = errors;
    return errors;
  }

  /** Whether the request names a subscription (a document that does not parse is not one: the query path answers it). */
  isSubscription(request: SubscribeRequest): boolean {
    const document = this.#parse(request);
    if (document instanceof GraphQLError) return false;
    const name = typeof request.operationName === 'string' ? request.operationName : undefined;
    return getOperationAST(document, name)?.operation === 'subscription';
  }

  prepare(request: SubscribeRequest, headers: IncomingHttpHeaders, transport: Transport, req?: IncomingMessage): Prepared {
    const document = this.#parse(request);
    if (document instanceof GraphQLError) return { refused: this.format({ errors: [document] }) };
    const operationName = typeof request.operationName === 'string' ? request.operationName : undefined;
    if (getOperationAST(document, operationName)?.operation !== 'subscription') {
      return { refused: this.format({ errors: [new GraphQLError('Only subscriptions run here; send queries and mutations to /graphql over plain HTTP', { extensions: { code: ErrorCode.BAD_REQUEST } })] }) };
    }
    const errors = this.#validate(typeof request.query === 'string' ? request.query : undefined, document);
    if (errors.length > 0) {
      return { refused: this.format({ errors: errors.map((error) => new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: ErrorCode.GRAPHQL_VALIDATION_FAILED, ...error.extensions } })) }) };
    }
    const variables = request.variables;
    if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) {
      return { refused: this.format({ errors: [new GraphQLError('`variables` must be a JSON object', { extensions: { code: ErrorCode.BAD_REQUEST } })] }) };
    }
    return {
      args: {
        schema: this.#options.schema,
        document,
        operationName,
        variableValues: (variables ?? undefined) as Record<string, unknown> | undefined,
        contextValue: this.#options.context(headers, transport, req),
      },
    };
  }

  /**
   * Runs a prepared subscription: its stream of results, or the one result refusing it (bad arguments,
   * limits: before any platform call). What graphql-js' `subscribe` does, with each event's fields run
   * in the event's own context (`forEvent`): a query's deadline and budget per event. With `res`, the
   * next event is read only once the response has room (see SubscriptionResults).
   */
  async run(args: ExecutionArgs, res?: ServerResponse): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    const stream = await createSourceEventStream(args);
    if (!(Symbol.asyncIterator in stream)) return this.format(stream);
    return new SubscriptionResults(this, args, stream[Symbol.asyncIterator](), res);
  }

  /**
   * What makes two subscriptions' executions of one event the same: the document (one object per
   * text, see #documents), the operation, the variables (parsed from JSON, so they serialise) and
   * the token.
   */
  executionKey(args: ExecutionArgs): string {
    let id = this.#documentIds.get(args.document);
    if (id === undefined) this.#documentIds.set(args.document, (id = this.#documentCount++));
    const tokenKey = (args.contextValue as SubscribingContext).subscriptions.identity?.tokenKey ?? '';
    return `${id}\n${args.operationName ?? ''}\n${tokenKey}\n${JSON.stringify(args.variableValues ?? null)}`;
  }

  /** One event's result for a subscription: the execution another subscription with the same key made of it, or a new one in the event's own context. */
  executeEvent(args: ExecutionArgs, key: string, event: unknown): Promise<ExecutionResult> {
    const run = () => Promise.resolve(execute({ ...args, rootValue: event, contextValue: (args.contextValue as SubscribingContext).forEvent() }));
    if (typeof event !== 'object' || event === null) return run();
    let byKey = this.#executions.get(event);
    if (byKey === undefined) this.#executions.set(event, (byKey = new Map()));
    let result = byKey.get(key);
    if (result === undefined) byKey.set(key, (result = run()));
    return result;
  }

  /** A result with its errors in the gateway's shape. */
  format(result: ExecutionResult): ExecutionResult {
    if (result.errors === undefined || result.errors.length === 0) return result;
    const formatted = result.errors.map((error) => this.#options.formatError(error.toJSON(), error));
    return { ...result, errors: formatted as unknown as GraphQLError[] };
  }
}

/**
 * One subscription's results as its transport reads them: each event's fields executed in the
 * event's own context (once for all subscriptions of the same executionKey), errors shaped. With the
 * response, an event is read only once it has room: a reader (graphql-sse's) that queues without
 * bound would grow for a client that does not read; this way the events wait in its subscriber's
 * bounded queue instead, and it is dropped past it. A class
 * rather than closures: every open stream holds one for its whole life.
 */
class SubscriptionResults implements AsyncIterableIterator<ExecutionResult> {
  readonly #path: SubscribePath;
  readonly #args: ExecutionArgs;
  readonly #source: AsyncIterator<unknown>;
  readonly #res: ServerResponse | undefined;
  /** The subscription's executionKey, made on its first event (an idle stream holds none). */
  #key: string | undefined;

  constructor(path: SubscribePath, args: ExecutionArgs, source: AsyncIterator<unknown>, res: ServerResponse | undefined) {
    this.#path = path;
    this.#args = args;
    this.#source = source;
    this.#res = res;
  }

  async next(): Promise<IteratorResult<ExecutionResult>> {
    if (this.#res?.writableNeedDrain) await room(this.#res);
    const next = await this.#source.next();
    if (next.done) return { done: true, value: undefined };
    this.#key ??= this.#path.executionKey(this.#args);
    return { done: false, value: this.#path.format(await this.#path.executeEvent(this.#args, this.#key, next.value)) };
  }

  // The source's own end value is not a result: a stream that ends, ends with nothing more.
  async return(): Promise<IteratorResult<ExecutionResult>> {
    await this.#source.return?.();
    return { done: true, value: undefined };
  }

  // graphql-sse ends a stream's operation only when it looks like an async generator (next, return and throw).
  async throw(error?: unknown): Promise<IteratorResult<ExecutionResult>> {
    await this.#source.throw?.(error);
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
