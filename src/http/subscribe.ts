import type { ServerResponse } from 'node:http';
import {
  createSourceEventStream,
  execute,
  getOperationAST,
  GraphQLError,
  print,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import type { ExecutionRequest } from '../execution/compiled-executor.ts';
import { ErrorCode } from '../errors.ts';
import type { SubscribingContext } from '../context.ts';
import { room } from './stream-room.ts';

/** Printed documents given an id, for `executionKey`: past this many, the oldest is forgotten (its subscribers then stop sharing with newcomers). */
const DOCUMENTS_KEPT = 1_000;
/** Executions of one event kept for the subscribers still to read it, by their key: past this many, the oldest goes (and is made again if asked). */
const EXECUTIONS_PER_EVENT = 16;

/** What runs a validated operation: compiled execution or graphql-js, as Apollo Server's executor calls it. */
export interface Execution {
  execute(request: ExecutionRequest): Promise<ExecutionResult> | ExecutionResult;
}

const STREAM = Symbol('operation stream');

/** A streaming request's context: a query's (GatewayContext) with the stream its subscription opens on. */
type Streaming = { [STREAM]?: OperationStream };

/**
 * Where one streaming request's operation goes, on any transport (SSE, multipart, graphql-ws): set on
 * its context, so that the one operation path (Apollo Server's, with every plugin and rule a query
 * passes) runs it, and the executor, finding a subscription, opens its event stream here instead of
 * executing it once. A query or mutation sent on a stream is executed once, as over plain HTTP.
 */
export class OperationStream {
  /** `GET` when the client asked with one: a mutation may not run then, as over plain HTTP. */
  readonly method: string;
  /** The context each event's fields run in (createSubscribingContext): its session and budget, no request's platform client. */
  readonly events: SubscribingContext;
  /** The response whose room the stream's events wait for, on HTTP. */
  readonly res: ServerResponse | undefined;
  /** The subscription's results, once its source stream opened. */
  results: SubscriptionResults | undefined;
  /** The operation's document, once it reached execution (graphql-ws needs one to run a query's answer). */
  document: DocumentNode | undefined;

  constructor(method: string, events: SubscribingContext, res?: ServerResponse) {
    this.method = method;
    this.events = events;
    this.res = res;
  }

  /** `context`, carrying this stream to the executor. */
  carriedBy<T extends object>(context: T): T {
    (context as Streaming)[STREAM] = this;
    return context;
  }
}

export interface StreamsOptions {
  schema: GraphQLSchema;
  /** The one error shaper (format-error.ts): what Apollo Server shapes a query's errors with. */
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
}

/**
 * The executor of the one operation path (Apollo Server calls it for every operation): `execution`
 * for a request without a stream (every plain HTTP request: one property read more), and for a
 * streaming request's subscription, its source event stream, opened on the request's
 * OperationStream; Apollo Server then answers the subscribe with `data: null` (its log line, metrics
 * and cost), and the transport streams the results. Each event's fields run in the event's own
 * context, once for every subscriber with the same execution key.
 */
export class Streams {
  readonly #options: StreamsOptions;
  /** Documents' execution ids by their printed text: texts that differ only by comments or spacing share one. */
  readonly #documentIds = new Map<string, number>();
  readonly #idOf = new WeakMap<DocumentNode, number>();
  #documentCount = 0;
  /** Each shared result with errors, shaped once. */
  readonly #formatted = new WeakMap<ExecutionResult, FormattedExecutionResult>();
  /** Each event's executions, by execution key: kept as long as the event is (a subscriber's queue holds it until read). */
  readonly #executions = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();

  constructor(options: StreamsOptions) {
    this.#options = options;
  }

  /** `execution`, with the streams' subscriptions opened before it. */
  executor(execution: Execution): Execution {
    return {
      execute: (request) => {
        const stream = (request.contextValue as Streaming)[STREAM];
        return stream === undefined ? execution.execute(request) : this.#start(execution, stream, request);
      },
    };
  }

  async #start(execution: Execution, stream: OperationStream, request: ExecutionRequest): Promise<ExecutionResult> {
    stream.document = request.document;
    const operation = getOperationAST(request.document, request.operationName ?? undefined);
    if (operation?.operation !== 'subscription') {
      if (operation?.operation === 'mutation' && stream.method === 'GET') {
        return { errors: [new GraphQLError('GET requests only support query and subscription operations', { extensions: { code: ErrorCode.BAD_REQUEST, http: { status: 405 } } })] };
      }
      return execution.execute(request);
    }
    const args: ExecutionArgs = { schema: this.#options.schema, document: request.document, operationName: request.operationName, variableValues: request.variables, contextValue: request.contextValue };
    const source = await createSourceEventStream(args);
    // Bad arguments, a caller over its limits, no token: the errors of the subscribe, shaped by Apollo Server as a query's.
    if (!(Symbol.asyncIterator in source)) return source;
    stream.results = new SubscriptionResults(this, { ...args, contextValue: stream.events }, source[Symbol.asyncIterator](), stream.res);
    return { data: null };
  }

  /**
   * What makes two subscriptions' executions of one event the same: the document as printed (so
   * texts differing by a comment share one), the operation, the variables (parsed from JSON, so they
   * serialise) and the token.
   */
  executionKey(args: ExecutionArgs): string {
    let id = this.#idOf.get(args.document);
    if (id === undefined) {
      const printed = print(args.document);
      id = this.#documentIds.get(printed);
      if (id === undefined) {
        if (this.#documentIds.size >= DOCUMENTS_KEPT) this.#documentIds.delete(this.#documentIds.keys().next().value!);
        this.#documentIds.set(printed, (id = this.#documentCount++));
      }
      this.#idOf.set(args.document, id);
    }
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
    if (result === undefined) {
      if (byKey.size >= EXECUTIONS_PER_EVENT) byKey.delete(byKey.keys().next().value!);
      byKey.set(key, (result = run()));
    }
    return result;
  }

  /** A result with its errors in the gateway's shape: one shaped object for every subscription sharing the result, so its transport frames it once. */
  format(result: ExecutionResult): FormattedExecutionResult {
    if (result.errors === undefined || result.errors.length === 0) return result as FormattedExecutionResult;
    let formatted = this.#formatted.get(result);
    if (formatted === undefined) this.#formatted.set(result, (formatted = { ...result, errors: result.errors.map((error) => this.#options.formatError(error.toJSON(), error)) }));
    return formatted;
  }
}

/** What a subscription's source may say of the bytes its stream holds (a Subscriber: the process's byte budget counts them). */
interface BufferedSource extends AsyncIterator<unknown> {
  buffered?(bytes: number): void;
}

/**
 * One subscription's results as its transport reads them: each event's fields executed in the
 * event's own context (once for all subscriptions of the same executionKey), errors shaped. With the
 * response, an event is read only once it has room, and while it waits its subscriber is told the
 * bytes the response holds: the events wait in its subscriber's bounded queue instead of a write
 * buffer, and the byte budget sees both. A class rather than closures: every open stream holds one
 * for its whole life.
 */
export class SubscriptionResults implements AsyncIterableIterator<FormattedExecutionResult> {
  readonly #streams: Streams;
  readonly #args: ExecutionArgs;
  readonly #source: BufferedSource;
  readonly #res: ServerResponse | undefined;
  /** The subscription's executionKey, made on its first event (an idle stream holds none). */
  #key: string | undefined;

  constructor(streams: Streams, args: ExecutionArgs, source: BufferedSource, res: ServerResponse | undefined) {
    this.#streams = streams;
    this.#args = args;
    this.#source = source;
    this.#res = res;
  }

  async next(): Promise<IteratorResult<FormattedExecutionResult>> {
    const res = this.#res;
    if (res?.writableNeedDrain) {
      this.#source.buffered?.(res.writableLength);
      await room(res);
      this.#source.buffered?.(0);
    }
    const next = await this.#source.next();
    if (next.done) return { done: true, value: undefined };
    this.#key ??= this.#streams.executionKey(this.#args);
    return { done: false, value: this.#streams.format(await this.#streams.executeEvent(this.#args, this.#key, next.value)) };
  }

  // The source's own end value is not a result: a stream that ends, ends with nothing more.
  async return(): Promise<IteratorResult<FormattedExecutionResult>> {
    await this.#source.return?.();
    return { done: true, value: undefined };
  }

  // graphql-ws ends an operation only when it looks like an async generator (next, return and throw).
  async throw(error?: unknown): Promise<IteratorResult<FormattedExecutionResult>> {
    await this.#source.throw?.(error);
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
