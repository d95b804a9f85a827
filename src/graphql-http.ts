import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { HeaderMap, type ApolloServer, type BaseContext } from '@apollo/server';
import type { RequestHandler } from 'express';
import type { NodeHandler } from './hardening/cors.ts';
import { runWithRequestId } from './observability/request-scope.ts';
import { requestIdFrom } from './request-id.ts';

/**
 * The common GraphQL request (POST /graphql with a plain JSON object body)
 * served straight from node:http to Apollo Server, without Express' per-request
 * router, body-parser, content negotiation and ETag hashing of every answer.
 *
 * Everything else, and every request this path does not fully understand,
 * goes to the Express app, whose /graphql route keeps the body rules and the
 * refusals (src/hardening/http.ts) in one place. A request whose body was
 * already read here is handed over with what was found: the parsed batch,
 * or the parser failure the Express body parser would have raised. `resume`
 * puts that back into the Express route before its body parser, which skips
 * a request whose body has been consumed.
 */
export interface GraphQLHttpOptions<TContext extends BaseContext> {
  apollo: ApolloServer<TContext>;
  /** Builds the request's context; `res` lets a caller that hangs up cancel the request's platform calls. */
  context: (req: IncomingMessage, res: ServerResponse) => Promise<TContext>;
  /** The body limit the Express route enforces (MAX_BODY_BYTES). */
  bodyBytes: number;
  /**
   * What the Express route runs on a parsed body before Apollo (web-client headers, trusted
   * documents), in its order. Each sees `req.body`, may replace it, answer the request itself,
   * or pass an error on (answered by the Express error handler).
   */
  handlers: readonly NodeHandler[];
  /** Serves all other requests (the Express app). */
  fallback: RequestListener;
}

export interface GraphQLHttp {
  listener: RequestListener;
  /** Mount on the Express /graphql route before its body parser. */
  resume: RequestHandler;
}

/** What the Express route needs of a request whose body this path has read. */
type Handoff = { body: unknown } | { error: BodyError };

/** The shape of body-parser's errors, which the Express error handler turns into refusals. */
interface BodyError extends Error {
  status: number;
  statusCode: number;
  type: string;
  expose: boolean;
}

function bodyError(status: number, type: string, message: string): BodyError {
  return Object.assign(new Error(message), { status, statusCode: status, type, expose: true });
}

// Only what body-parser's JSON parser reads without transformation: JSON in
// UTF-8, uncompressed, with a declared length within the limit.
const PLAIN_JSON = /^application\/json[ \t]*(?:;[ \t]*charset[ \t]*=[ \t]*"?utf-8"?[ \t]*)?$/i;
const DECIMAL = /^\d{1,9}$/;

function isGraphQLPath(url: string | undefined): boolean {
  return url === '/graphql' || (url !== undefined && url.startsWith('/graphql?'));
}

function declaredLength(headers: IncomingHttpHeaders, limit: number): number | undefined {
  const type = headers['content-type'];
  const length = headers['content-length'];
  if (type === undefined || !PLAIN_JSON.test(type)) return undefined;
  if (headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return undefined;
  if (length === undefined || !DECIMAL.test(length)) return undefined;
  const bytes = Number(length);
  return bytes > 0 && bytes <= limit ? bytes : undefined;
}

function readBody(req: IncomingMessage, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    });
    req.once('end', () => {
      // Node's parser delivers exactly Content-Length bytes; anything else is not a request to trust.
      if (received !== length) reject(bodyError(400, 'request.size.invalid', 'request size did not match content length'));
      else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received));
    });
    req.once('aborted', () => reject(bodyError(400, 'request.aborted', 'request aborted')));
    req.once('error', (error) => reject(Object.assign(bodyError(400, 'request.aborted', 'request aborted'), { cause: error })));
  });
}

/** body-parser's strict JSON reading: a UTF-8 BOM dropped, an object or array at the top, else a parse failure. */
function parseJson(buffer: Buffer): { value: unknown } | { error: BodyError } {
  const start = buffer.length >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  const text = buffer.toString('utf8', start);
  const first = /^[ \t\n\r]*(.)/s.exec(text)?.[1];
  if (first !== '{' && first !== '[') return { error: bodyError(400, 'entity.parse.failed', 'Unexpected token in JSON') };
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { error: Object.assign(bodyError(400, 'entity.parse.failed', (error as Error).message), { cause: error }) };
  }
}

export function graphqlHttp<TContext extends BaseContext>(options: GraphQLHttpOptions<TContext>): GraphQLHttp {
  const { apollo, context, bodyBytes, handlers, fallback } = options;
  const handoffs = new WeakMap<IncomingMessage, Handoff>();

  const handOver = (req: IncomingMessage, res: ServerResponse, handoff: Handoff) => {
    handoffs.set(req, handoff);
    fallback(req, res);
  };

  async function serve(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const headers = new HeaderMap();
    for (const key in req.headers) {
      const value = req.headers[key];
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const url = req.url as string;
    const query = url.indexOf('?');
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers, search: query < 0 ? '' : url.slice(query), body },
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

  const listener: RequestListener = (req, res) => {
    const length = req.method === 'POST' && isGraphQLPath(req.url) ? declaredLength(req.headers, bodyBytes) : undefined;
    if (length === undefined) {
      fallback(req, res);
      return;
    }
    readBody(req, length).then(
      (buffer) => {
        const parsed = parseJson(buffer);
        if ('error' in parsed) return handOver(req, res, parsed);
        const { value } = parsed;
        // A batch goes the Express way, where its size limit is checked.
        if (Array.isArray(value)) return handOver(req, res, { body: value });
        const withBody = req as IncomingMessage & { body?: unknown };
        withBody.body = value;
        const fail = (error: unknown) => {
          // What the Express route did with a failure outside Apollo: its error handler answers.
          if (!res.headersSent) handOver(req, res, { error: error as BodyError });
          else res.destroy(error as Error);
        };
        // Runs the route's handlers in order; one that answers the request itself ends the chain.
        const step = (index: number, error?: unknown): void => {
          if (error !== undefined && error !== null) return fail(error);
          const handler = handlers[index];
          if (!handler) {
            serve(req, res, withBody.body).catch(fail);
            return;
          }
          try {
            handler(req, res, (next?: unknown) => step(index + 1, next));
          } catch (thrown) {
            fail(thrown);
          }
        };
        // As in the Express route: the request's id is decided once, and everything from here on
        // (refusals, Apollo's own errors, the context) reads it from the request scope.
        runWithRequestId(requestIdFrom(req.headers), () => step(0));
      },
      (error: BodyError) => handOver(req, res, { error }),
    );
  };

  const resume: RequestHandler = (req, _res, next) => {
    const handoff = handoffs.get(req);
    if (!handoff) return next();
    handoffs.delete(req);
    if ('error' in handoff) return next(handoff.error);
    req.body = handoff.body;
    next();
  };

  return { listener, resume };
}
