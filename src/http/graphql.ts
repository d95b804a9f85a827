import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap, type ApolloServer, type BaseContext, type HTTPGraphQLResponse } from '@apollo/server';
import type { DocumentNode, FormattedExecutionResult } from 'graphql';
import { errorEntry, ErrorCode } from '../errors.ts';
import type { Transport } from '../subscriptions/index.ts';
import type { Stage } from './stage.ts';
import type { OperationStream } from './subscribe.ts';

/**
 * The front door's last stage: the request, as the stages before it left it (`req.body` read and
 * perhaps rewritten), handed to Apollo Server's `executeHTTPGraphQLRequest` with the one context
 * factory, and Apollo's answer written on the plain Node response. No Express, `url.parse` or
 * `res.send` per request. A request asking for a stream (SSE, Apollo's multipart subscriptions) takes
 * the same way through Apollo Server, its transport only framing what comes out (streamed below).
 */
export interface GraphQLStageOptions<TContext extends BaseContext> {
  apollo: ApolloServer<TContext>;
  /** Builds the request's context; `res` lets a caller that hangs up cancel the request's platform calls. */
  context: (req: IncomingMessage, res: ServerResponse) => Promise<TContext>;
  /** The streaming transports, each picked by its Accept header (sse.ts, multipart.ts); none: Apollo answers every request. */
  streams?: StreamTransports<TContext>;
}

/** A transport's writer of one operation's outcome on an HTTP response. */
export type StreamWriter = (res: ServerResponse, outcome: StreamOutcome) => Promise<void>;

interface StreamTransports<TContext extends BaseContext> {
  sse: StreamWriter;
  multipart: StreamWriter;
  /** A streaming request's context (a query's, with its subscription session) and the stream it carries (server.ts). */
  context: StreamContext<TContext>;
}

export type StreamContext<TContext> = (req: IncomingMessage, headers: IncomingHttpHeaders, transport: Transport, res?: ServerResponse) => { context: TContext; stream: OperationStream };

/**
 * What an operation sent on a stream came to: its subscription's results, or one answer (a query's
 * result, or a refusal: errors alone, shaped as a query's) with Apollo Server's status and headers.
 */
export type StreamOutcome =
  | { readonly results: AsyncIterableIterator<FormattedExecutionResult>; readonly document: DocumentNode | undefined }
  | { readonly answer: FormattedExecutionResult; readonly status: number; readonly headers: HeaderMap; readonly document: DocumentNode | undefined };

type WithBody = IncomingMessage & { body?: unknown };

/** Headers Apollo Server is not to see of a streaming request: it answers JSON, and its transport frames it. */
const FRAMED = new Set(['accept', 'content-type', 'content-length', 'content-encoding', 'transfer-encoding']);

function headerMapOf(headers: IncomingHttpHeaders): HeaderMap {
  const map = new HeaderMap();
  for (const key in headers) {
    const value = headers[key];
    if (value !== undefined) map.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  return map;
}

/**
 * Runs one GraphQL request object (a POST body, a GET's parameters, a graphql-ws `subscribe`
 * payload) on the one path, as a POST of JSON: Apollo Server's, with every rule and plugin a query
 * passes (persisted queries, parse limits, validation, cost, the request log line, metrics, error
 * shaping). `req` is the request it came on (its scope holds its id and admission).
 */
export async function runStreamed<TContext extends BaseContext>(
  apollo: ApolloServer<TContext>,
  streamContext: StreamContext<TContext>,
  req: IncomingMessage,
  headers: IncomingHttpHeaders,
  body: unknown,
  transport: Transport,
  res?: ServerResponse,
): Promise<StreamOutcome> {
  const map = new HeaderMap();
  for (const [key, value] of headerMapOf(headers)) if (!FRAMED.has(key)) map.set(key, value);
  map.set('content-type', 'application/json');
  map.set('accept', 'application/json');
  let made: { context: TContext; stream: OperationStream } | undefined;
  const response: HTTPGraphQLResponse = Array.isArray(body)
    ? refusal(400, 'A stream carries one operation: send a batch over plain HTTP')
    : await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers: map, search: '', body: body ?? {} },
      context: async () => (made = streamContext(req, headers, transport, res)).context,
    });
  const results = made?.stream.results;
  if (results !== undefined) return { results, document: made!.stream.document };
  const text = response.body.kind === 'complete' ? response.body.string : '';
  const parsed = JSON.parse(text) as FormattedExecutionResult;
  // Nothing executed (a refusal): its errors alone, as every transport carries a refusal.
  const answer = 'data' in parsed ? parsed : { errors: parsed.errors };
  return { answer, status: response.status ?? 200, headers: response.headers, document: made?.stream.document };
}

function refusal(status: number, message: string): HTTPGraphQLResponse {
  return { status, headers: new HeaderMap(), body: { kind: 'complete', string: JSON.stringify({ errors: [errorEntry(message, { code: ErrorCode.BAD_REQUEST })] }) } };
}

/** The stream a request asks for by its Accept header, if any. */
function streamAsked(accept: string | undefined): 'sse' | 'multipart' | undefined {
  if (accept === undefined) return undefined;
  if (accept.includes('text/event-stream')) return 'sse';
  return accept.includes('multipart/mixed') && accept.includes('subscriptionSpec') ? 'multipart' : undefined;
}

/** The GraphQL request of a GET (its parameters, `variables` and `extensions` parsed as JSON where they are). */
function parametersOf(req: IncomingMessage): Record<string, unknown> {
  const params = new URL(req.url ?? '/', 'http://gateway').searchParams;
  const request: Record<string, unknown> = Object.fromEntries(params);
  for (const name of ['variables', 'extensions']) {
    const text = params.get(name);
    if (text === null) continue;
    try {
      request[name] = JSON.parse(text) as unknown;
    } catch {
      // Left as text: Apollo Server refuses it as it refuses a POST body's.
    }
  }
  return request;
}

export function graphqlStage<TContext extends BaseContext>({ apollo, context, streams }: GraphQLStageOptions<TContext>): Stage {
  async function execute(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const headers = headerMapOf(req.headers);
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

  async function stream(transport: 'sse' | 'multipart', req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = req.method === 'GET' ? parametersOf(req) : (req as WithBody).body;
    const outcome = await runStreamed(apollo, streams!.context, req, req.headers, body, transport, res);
    await streams![transport](res, outcome);
  }

  return (req, res, next) => {
    const transport = streams && streamAsked(req.headers.accept);
    // A rejection without a reason is still a failure: the front door must see an error.
    (transport ? stream(transport, req, res) : execute(req, res)).catch((thrown: unknown) => next(thrown ?? new Error('GraphQL request failed without a reason')));
  };
}
