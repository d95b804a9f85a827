import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap, type ApolloServer, type BaseContext } from '@apollo/server';
import type { Stage } from './stage.ts';

/**
 * The front door's last stage: the request, as the stages before it left it (`req.body` read and
 * perhaps rewritten), handed to Apollo Server's `executeHTTPGraphQLRequest` with the one context
 * factory, and Apollo's answer written on the plain Node response. No Express, `url.parse` or
 * `res.send` per request.
 */
export interface GraphQLStageOptions<TContext extends BaseContext> {
  apollo: ApolloServer<TContext>;
  /** Builds the request's context; `res` lets a caller that hangs up cancel the request's platform calls. */
  context: (req: IncomingMessage, res: ServerResponse) => Promise<TContext>;
}

type WithBody = IncomingMessage & { body?: unknown };

export function graphqlStage<TContext extends BaseContext>({ apollo, context }: GraphQLStageOptions<TContext>): Stage {
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

  return (req, res, next) => {
    // A rejection without a reason is still a failure: the front door must see an error.
    execute(req, res).catch((thrown: unknown) => next(thrown ?? new Error('GraphQL request failed without a reason')));
  };
}
