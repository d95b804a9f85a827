import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap, type ApolloServer, type BaseContext } from '@apollo/server';
import type { NodeHandler } from './hardening/cors.ts';
import { currentRequestId, runWithRequestId } from './request/scope.ts';

/**
 * The GraphQL endpoint: one request path from node:http to Apollo Server's
 * `executeHTTPGraphQLRequest`, whatever the request (POST or GET; plain,
 * compressed or batched body). It runs the hardening chain
 * (`Hardening.graphqlChain`: web-client headers, body reading, batch limit,
 * trusted documents, …) in order, then Apollo with the one context factory.
 * No Express router, `url.parse` or `res.send` per request: the server's
 * listener calls it directly for /graphql (src/server.ts).
 *
 * A handler that passes an error on (a body that cannot be read, …) ends the
 * chain; `fail` answers it (the app's error handler, which turns it into a
 * JSON refusal).
 */
export interface GraphQLHttpOptions<TContext extends BaseContext> {
  apollo: ApolloServer<TContext>;
  /** Builds the request's context; `res` lets a caller that hangs up cancel the request's platform calls. */
  context: (req: IncomingMessage, res: ServerResponse) => Promise<TContext>;
  /** What runs before Apollo, in order. Each sees `req.body` once the body reader has set it, may replace it, answer the request itself, or pass an error on. */
  chain: readonly NodeHandler[];
  /** Answers an error a handler passed on, or that Apollo's execution threw, when the caller gives no `fail` of its own. */
  fail: (req: IncomingMessage, res: ServerResponse, error: unknown) => void;
}

/** Serves one request to the endpoint; `fail` (an Express `next`, when mounted in the app) answers its errors instead of the default. */
export type GraphQLEndpoint = (req: IncomingMessage, res: ServerResponse, fail?: (error: unknown) => void) => void;

type WithBody = IncomingMessage & { body?: unknown };

export function graphqlEndpoint<TContext extends BaseContext>({ apollo, context, chain, fail: answerFailure }: GraphQLHttpOptions<TContext>): GraphQLEndpoint {
  async function execute(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const headers = new HeaderMap();
    for (const key in req.headers) {
      const value = req.headers[key];
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const url = req.url as string;
    const query = url.indexOf('?');
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: req.method as string, headers, search: query < 0 ? '' : url.slice(query), body: (req as WithBody).body },
      context: () => context(req, res),
    });
    for (const [key, value] of response.headers) res.setHeader(key, value);
    res.statusCode = response.status ?? 200;
    if (response.body.kind === 'complete') {
      res.setHeader('content-length', Buffer.byteLength(response.body.string));
      res.end(response.body.string);
      return;
    }
    for await (const chunk of response.body.asyncIterator) res.write(chunk);
    res.end();
  }

  return (req, res, fail) => {
    const requestId = currentRequestId();
    const failed = (thrown: unknown) => {
      // A rejection without a reason is still a failure: the error handler must see an error.
      const error = thrown ?? new Error('GraphQL request failed without a reason');
      if (res.headersSent) res.destroy(error as Error);
      else if (fail) fail(error);
      else answerFailure(req, res, error);
    };
    let index = 0;
    const next = (error?: unknown): void => {
      if (error !== undefined && error !== null) return failed(error);
      // A handler that calls back from a stream's events (the body reader) is outside the request's
      // scope there: everything after it (refusals, Apollo, the context) must still read its id.
      if (requestId !== undefined && currentRequestId() !== requestId) return runWithRequestId(requestId, () => next());
      const handler = chain[index++];
      if (handler === undefined) {
        execute(req, res).catch(failed);
        return;
      }
      try {
        handler(req, res, next);
      } catch (thrown) {
        failed(thrown);
      }
    };
    next();
  };
}
