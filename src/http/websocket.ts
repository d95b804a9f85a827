import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApolloServer, BaseContext } from '@apollo/server';
import { GraphQLError, type DocumentNode, type ExecutionArgs, type FormattedExecutionResult, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AdmitCaller, Connection } from '../request/admission.ts';
import { admissionOf, requestScopeOf, RequestScope, runInScope } from '../request/scope.ts';
import { runStreamed, type StreamContext, type StreamOutcome } from './graphql.ts';
import { isGraphQLPath, pathOf } from './stage.ts';
import { HEARTBEAT_MS } from './stream-room.ts';

/** A GraphQL request as a graphql-ws `subscribe` message carries it. */
type SocketRequest = Record<string, unknown>;

/** What a WebSocket's subscribe payloads pass through before the one path, as an HTTP request's body does: the trusted documents. */
export type SocketRequestCheck = (request: SocketRequest) => SocketRequest | GraphQLError;

/** The bearer credentials of a connection: `Authorization` (or `authorization`) of its connectionParams, read as the header is. */
function authorizationOf(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const value = params?.Authorization ?? params?.authorization;
  return typeof value === 'string' ? value : undefined;
}

/** A socket as the admission sees a connection: it closes once. */
function connectionOf(socket: WebSocket): Connection {
  return {
    get closed() {
      return socket.readyState === socket.CLOSING || socket.readyState === socket.CLOSED;
    },
    once: (_event, listener) => socket.once('close', listener),
  };
}

/**
 * Shaped errors as graphql-ws sends them in an `error` message: it wants GraphQLError objects, and
 * writes each as its toJSON(), which here is the shaped error itself (code, request id, limit).
 */
function socketErrors(errors: readonly GraphQLFormattedError[]): GraphQLError[] {
  return errors.map((formatted) => Object.assign(new GraphQLError(formatted.message), { toJSON: () => formatted }));
}

/** A subscription's results read in the scope of the request that opened it, so that each event's errors carry its id. */
function scoped(results: AsyncIterableIterator<FormattedExecutionResult>, scope: RequestScope): AsyncIterableIterator<FormattedExecutionResult> {
  const scopedResults: AsyncIterableIterator<FormattedExecutionResult> = {
    next: () => runInScope(scope, () => results.next()),
    return: () => results.return!(),
    throw: (error?: unknown) => results.throw!(error),
    [Symbol.asyncIterator]: () => scopedResults,
  };
  return scopedResults;
}

/** WebSocket close code of a connection the admission refused: 4000 + the HTTP status, as graphql-ws' own 4403 and 4429 are. */
const refusedCloseCode = (status: number) => 4000 + status;

/** Longest wait on a stop for the sockets' last messages before they are closed. */
const STOP_FLUSH_MS = 1_000;

export interface WebSocketTransport {
  /** Completes every subscription's socket with close code 1001 (going away). */
  close(): Promise<void>;
}

export interface WebSocketOptions<TContext extends BaseContext> {
  apollo: ApolloServer<TContext>;
  schema: GraphQLSchema;
  /** A subscribe's context and stream, as an HTTP stream's (server.ts). */
  context: StreamContext<TContext>;
  /** MAX_BODY_BYTES: the largest message of any type; past it `ws` closes the connection 1009 before buffering more. */
  maxPayload: number;
  /** The front door's admission, run for each connection with its token (src/budgets/). */
  admit?: AdmitCaller;
  /** The trusted-documents check of each subscribe payload, where a manifest is configured. */
  check?: SocketRequestCheck;
  /** The one error shaper, for a refusal made here (the trusted documents'). */
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
}

/**
 * graphql-ws (subprotocol `graphql-transport-ws`) on the WebSocket upgrade of /graphql, as Apollo
 * Router (to a subgraph) and the playground open it: graphql-ws' own server reads and frames the
 * protocol (its ping every 12 s); every message is held to MAX_BODY_BYTES before it is buffered,
 * every connection passes the admission with its token (connectionParams' `Authorization`, else its
 * upgrade request's), and every subscribe runs on the one operation path (graphql.ts) as an HTTP
 * request's operation does: its refusal is an `error` message of the shaped errors. Upgrades of any
 * other path are refused.
 */
export function webSocketTransport<TContext extends BaseContext>(server: Server, options: WebSocketOptions<TContext>): WebSocketTransport {
  const { apollo, schema, context, admit, check, formatError } = options;
  const sockets = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload });
  /** The operations running on each open connection, so a stop closes a socket once its `complete` messages are sent. */
  const connections = new Set<{ readonly subscriptions: Record<string, unknown> }>();
  const disposable = useServer<Record<string, unknown>, { request: IncomingMessage }>({
    onConnect: async (ctx) => {
      const req = ctx.extra.request;
      // The connection's token: its connectionParams', else its upgrade request's header (a router may send it there).
      const authorization = authorizationOf(ctx.connectionParams) ?? req.headers.authorization;
      if (authorization === undefined) delete req.headers.authorization;
      else req.headers.authorization = authorization;
      const refused = admit && (await runInScope(requestScopeOf(req), admit, req, connectionOf(ctx.extra.socket)));
      if (refused) {
        // A close reason holds at most 123 bytes.
        ctx.extra.socket.close(refusedCloseCode(refused.status), Buffer.from(refused.message).subarray(0, 123).toString());
        return false;
      }
      connections.add(ctx);
      return true;
    },
    onClose: (ctx) => {
      connections.delete(ctx);
    },
    onSubscribe: (ctx, _id, payload) => {
      const req = ctx.extra.request;
      // Each operation its own id (the upgrade's X-Request-Id when sane), under the connection's admission.
      const scope = new RequestScope(req.headers);
      scope.admission = admissionOf(req);
      return runInScope(scope, async (): Promise<ExecutionArgs | GraphQLError[]> => {
        // graphql-ws' message requires a `query`: a client naming a trusted document sends it empty.
        const request: SocketRequest = payload.query === '' ? { ...payload, query: undefined } : { ...payload };
        const checked = check ? check(request) : request;
        if (checked instanceof GraphQLError) return socketErrors([formatError(checked.toJSON(), checked)]);
        const outcome = await runStreamed(apollo, context, req, req.headers, checked, 'ws');
        if ('answer' in outcome && !('data' in outcome.answer)) return socketErrors(outcome.answer.errors ?? []);
        // Something executed (a subscription opened, a query answered): its document holds the operation graphql-ws looks for.
        const document = outcome.document as DocumentNode;
        const carried: StreamOutcome = 'results' in outcome ? { ...outcome, results: scoped(outcome.results, scope) } : outcome;
        return { schema, document, operationName: typeof checked.operationName === 'string' ? checked.operationName : undefined, contextValue: carried };
      });
    },
    // The operation ran on the one path in onSubscribe: what it came to is handed over as it is.
    // graphql-ws types results as graphql-js makes them; these are shaped already, and it only serialises them.
    subscribe: (args) => (args.contextValue as Extract<StreamOutcome, { results: unknown }>).results as never,
    execute: (args) => (args.contextValue as Extract<StreamOutcome, { answer: unknown }>).answer as never,
    // Results are shaped by the one error shaper already: sent as they are.
    onNext: (_ctx, _id, _payload, _args, result) => result as FormattedExecutionResult,
  }, sockets, HEARTBEAT_MS);
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!isGraphQLPath(pathOf(req))) {
      socket.destroy();
      return;
    }
    sockets.handleUpgrade(req, socket, head, (ws) => sockets.emit('connection', ws, req));
  };
  server.on('upgrade', onUpgrade);
  return {
    async close() {
      server.off('upgrade', onUpgrade);
      // The subscriptions were ended (the hub's close): each socket's `complete` messages go out within a few turns of the event loop.
      const until = Date.now() + STOP_FLUSH_MS;
      while ([...connections].some((ctx) => Object.keys(ctx.subscriptions).length > 0) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
      for (const client of sockets.clients) client.close(1001, 'The gateway is stopping: resume elsewhere with the last cursor');
      await disposable.dispose();
    },
  };
}
