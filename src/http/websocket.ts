import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { isGraphQLPath, pathOf } from './stage.ts';
import { HEARTBEAT_MS } from './multipart.ts';
import type { SubscribePath, SubscribeRequest } from './subscribe.ts';

/** What a WebSocket's subscription requests pass through before the subscribe path (trusted documents), on the socket as over HTTP. */
export type SocketRequestCheck = (request: SubscribeRequest) => SubscribeRequest | GraphQLError;

/** The bearer credentials of a connection: `Authorization` (or `authorization`) of its connectionParams, read as the header is. */
function authorizationOf(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const value = params?.Authorization ?? params?.authorization;
  return typeof value === 'string' ? value : undefined;
}

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
export function webSocketTransport(server: Server, path: SubscribePath, check?: SocketRequestCheck): WebSocketTransport {
  const sockets = new WebSocketServer({ noServer: true });
  /** The operations running on each open connection, so a stop closes a socket once its `complete` messages are sent. */
  const connections = new Set<{ readonly subscriptions: Record<string, unknown> }>();
  const disposable = useServer<Record<string, unknown>, { authorization?: string }>({
    onConnect: (ctx) => {
      ctx.extra.authorization = authorizationOf(ctx.connectionParams);
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
      const prepared = path.prepare(checked, { authorization: ctx.extra.authorization }, 'ws');
      if ('refused' in prepared) return (prepared.refused.errors ?? []) as readonly GraphQLError[];
      return prepared.args;
    },
    subscribe: (args) => path.run(args),
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
