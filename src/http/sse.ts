import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHandler } from 'graphql-sse';
import { streamOpen, writeWithRoom } from './stream-room.ts';
import type { SubscribePath, SubscribeRequest } from './subscribe.ts';

/**
 * GraphQL over SSE, distinct-connections mode (`Accept: text/event-stream`): one event stream per
 * subscription, as graphql-sse's client and Hive Gateway (to a subgraph) open them. graphql-sse's
 * own handler runs the protocol (its `next` and `complete` events, its 12 s keep-alive comments);
 * the subscription runs on the one subscribe path. Its core handler is used rather than its
 * `use/http` adapter because the front door has already read (and bounded) the body, which that
 * adapter would read from the stream again; the writing loop below is that adapter's.
 */
export function sseTransport(path: SubscribePath): (req: IncomingMessage, res: ServerResponse, request: SubscribeRequest) => Promise<void> {
  /** The response of each subscription's context, for its results to wait for room in it. */
  const responses = new WeakMap<object, ServerResponse>();
  const handler = createHandler<IncomingMessage, { res: ServerResponse }, Record<PropertyKey, unknown>>({
    onSubscribe: (req, params) => {
      const prepared = path.prepare(params as SubscribeRequest, req.raw.headers, 'sse', req.raw);
      if ('refused' in prepared) return prepared.refused;
      responses.set(prepared.args.contextValue as object, req.context.res);
      // graphql-sse types the context as a record; it only hands it back to `subscribe`.
      return prepared.args as Parameters<typeof path.run>[0] & { contextValue: Record<PropertyKey, unknown> };
    },
    // graphql-sse reads results as they come: each waits for room in the response (SubscriptionResults).
    subscribe: (args) => path.run(args, responses.get(args.contextValue as object)),
  });

  return async (req, res, request) => {
    const [body, init] = await handler({
      method: req.method ?? 'POST',
      url: req.url ?? '/graphql',
      // The stage took this request for its Accept header; graphql-sse compares the value exactly.
      headers: { get: (key) => (key === 'accept' ? 'text/event-stream' : (req.headers[key] as string | undefined)) },
      body: request as Record<string, unknown>,
      raw: req,
      context: { res },
    });
    res.writeHead(init.status, init.statusText, { ...init.headers, 'x-accel-buffering': 'no' });
    if (body === null || typeof body === 'string') {
      res.end(body ?? undefined);
      return;
    }
    res.once('close', () => void body.return(undefined));
    for await (const chunk of body) {
      if (!streamOpen(res)) break;
      await writeWithRoom(res, chunk);
    }
    res.end();
  };
}
