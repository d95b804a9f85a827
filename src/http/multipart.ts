import type { IncomingMessage, ServerResponse } from 'node:http';
import { streamOpen, writeWithRoom } from './stream-room.ts';
import type { SubscribePath, SubscribeRequest } from './subscribe.ts';

/** Apollo's boundary: its clients look for `boundary="graphql"` in the Content-Type. */
const BOUNDARY = 'graphql';
/** An empty part keeps a quiet stream open through proxies that cut idle connections. */
export const HEARTBEAT_MS = 12_000;

/**
 * Apollo's multipart HTTP subscriptions (`Accept: multipart/mixed;subscriptionSpec="1.0"`), as
 * Apollo Client's HttpLink reads them: each result a part `{"payload": …}`, a heartbeat `{}` every
 * 12 s, a refusal `{"payload": null, "errors": […]}`, and the closing boundary when the
 * subscription ends (its last event, the client leaving, or the gateway stopping).
 */
export function multipartTransport(path: SubscribePath, heartbeatMs = HEARTBEAT_MS): (req: IncomingMessage, res: ServerResponse, request: SubscribeRequest) => Promise<void> {
  // Each part is followed by the boundary at once, so that a client hands it on without waiting for the next part.
  const part = (value: unknown) => `\r\nContent-Type: application/json; charset=utf-8\r\n\r\n${JSON.stringify(value)}\r\n--${BOUNDARY}`;
  const CLOSE = '--\r\n';
  return async (req, res, request) => {
    res.writeHead(200, {
      'content-type': `multipart/mixed; boundary="${BOUNDARY}"; subscriptionSpec="1.0"`,
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    res.write(`\r\n--${BOUNDARY}`);
    const prepared = path.prepare(request, req.headers, 'multipart', req);
    const result = 'refused' in prepared ? prepared.refused : await path.run(prepared.args);
    if (!(Symbol.asyncIterator in result)) {
      res.end(`${part({ payload: null, errors: result.errors ?? [] })}${CLOSE}`);
      return;
    }
    // A heartbeat only keeps a quiet stream open: one whose client is not reading gets none, so its buffer does not grow.
    const heartbeat = setInterval(() => {
      if (!res.writableNeedDrain) res.write(part({}));
    }, heartbeatMs);
    heartbeat.unref();
    res.once('close', () => {
      clearInterval(heartbeat);
      void result.return?.();
    });
    try {
      for await (const value of result) {
        if (!streamOpen(res)) break;
        await writeWithRoom(res, part({ payload: value }));
      }
    } finally {
      clearInterval(heartbeat);
      if (res.writable) res.end(CLOSE);
    }
  };
}
