import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, type FormattedExecutionResult } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { isGraphQLPath, pathOf, type Stage } from './stage.ts';
import { HEARTBEAT_MS } from './multipart.ts';
import type { SubscribePath, SubscribeRequest } from './subscribe.ts';

/** What a WebSocket's subscription requests pass through before the subscribe path (trusted documents), on the socket as over HTTP. */
export type SocketRequestCheck = (request: SubscribeRequest) => SubscribeRequest | GraphQLError;

/** The bearer credentials of a connection: `Authorization` (or `authorization`) of its connectionParams, read as the header is. */
function authorizationOf(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const value = params?.Authorization ?? params?.authorization;
  return typeof value === 'string' ? value : undefined;
}

/**
 * What a front-door stage answers a connection, kept instead of written: a socket has no HTTP
 * response to write it on once upgraded. The stage otherwise sees an ordinary response, and its
 * `close` when the socket closes.
 */
class KeptAnswer extends ServerResponse {
  readonly #settle: (answer: { status: number; body: string }) => void;

  constructor(req: IncomingMessage, settle: (answer: { status: number; body: string }) => void) {
    super(req);
    this.#settle = settle;
  }

  override end(cb?: () => void): this;
  override end(chunk: unknown, cb?: () => void): this;
  override end(chunk: unknown, encoding: BufferEncoding, cb?: () => void): this;
  override end(chunk?: unknown): this {
    this.#settle({ status: this.statusCode, body: typeof chunk === 'string' || Buffer.isBuffer(chunk) ? String(chunk) : '' });
    return this;
  }
}

/**
 * The front door's admission for a connection's token (its connectionParams' credentials as the
 * request's Authorization header): resolves with its refusal, or undefined when it let the
 * connection in. Its bookkeeping (a made-up token spends its address's refused-token unit, given
 * back unless the platform refuses the token) ends when the socket closes, as a request's does.
 */
function admitConnection(admission: Stage, req: IncomingMessage, authorization: string | undefined, socket: WebSocket): Promise<{ status: number; body: string } | undefined> {
  if (authorization === undefined) delete req.headers.authorization;
  else req.headers.authorization = authorization;
  return new Promise((resolve) => {
    const answer = new KeptAnswer(req, resolve);
    socket.once('close', () => answer.emit('close'));
    admission(req, answer, (error) => resolve(error === undefined || error === null ? undefined : { status: 500, body: '' }));
  });
}

/** WebSocket close code of a connection the admission refused: 4000 + the HTTP status, as graphql-ws' own 4403 and 4429 are. */
const refusedCloseCode = (status: number) => 4000 + status;

/** Longest wait on a stop for the sockets' last messages before they are closed. */
const STOP_FLUSH_MS = 1_000;

export interface WebSocketTransport {
  /** Completes every subscription's socket with close code 1001 (going away). */
  close(): Promise<void>;
}

/**
 * graphql-ws (subprotocol `graphql-transport-ws`) on the WebSocket upgrade of /graphql, as Apollo
 * Router (to a subgraph) and the playground open it: graphql-ws' own server runs the protocol (its
 * ping every 12 s), each subscription runs on the one subscribe path with the connection's token as
 * its Authorization header. Upgrades of any other path are refused.
 */
export interface WebSocketOptions {
  /** The trusted-documents check of each subscribe message, where a manifest is configured. */
  check?: SocketRequestCheck;
  /** The front door's admission, run for each connection with its token (src/budgets/). */
  admission?: Stage;
}

export function webSocketTransport(server: Server, path: SubscribePath, { check, admission }: WebSocketOptions = {}): WebSocketTransport {
  const sockets = new WebSocketServer({ noServer: true });
  /** The operations running on each open connection, so a stop closes a socket once its `complete` messages are sent. */
  const connections = new Set<{ readonly subscriptions: Record<string, unknown> }>();
  const disposable = useServer<Record<string, unknown>, { authorization?: string }>({
    onConnect: async (ctx) => {
      // The connection's token: its connectionParams', else its upgrade request's header (a router may send it there).
      const authorization = authorizationOf(ctx.connectionParams) ?? ctx.extra.request.headers.authorization;
      const refused = admission && (await admitConnection(admission, ctx.extra.request, authorization, ctx.extra.socket));
      if (refused) {
        const reason = (JSON.parse(refused.body || '{}') as { errors?: { message?: string }[] }).errors?.[0]?.message ?? 'Refused';
        // A close reason holds at most 123 bytes.
        ctx.extra.socket.close(refusedCloseCode(refused.status), Buffer.from(reason).subarray(0, 123).toString());
        return false;
      }
      ctx.extra.authorization = ctx.extra.request.headers.authorization;
      connections.add(ctx);
      return true;
    },
    onClose: (ctx) => {
      connections.delete(ctx);
    },
    onSubscribe: (ctx, _id, payload) => {
      // graphql-ws' message requires a `query`: a client naming a trusted document sends it empty.
      const request = payload.query === '' ? { ...payload, query: undefined } : payload;
      const checked = check ? check(request as SubscribeRequest) : (request as SubscribeRequest);
      if (checked instanceof GraphQLError) return [checked];
      const prepared = path.prepare(checked, { authorization: ctx.extra.authorization }, 'ws', ctx.extra.request);
      // graphql-ws sends an `error` message of GraphQLErrors; these are already shaped by the error shaper.
      if ('refused' in prepared) return (prepared.refused.errors ?? []).map((error) => new GraphQLError(error.message, { extensions: error.extensions }));
      return prepared.args;
    },
    subscribe: (args) => path.run(args),
    // The subscribe path has shaped each result's errors already (the one error shaper): sent as they are.
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
