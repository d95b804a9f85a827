import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { clip } from '../client-text.ts';
import { ErrorCode } from '../errors.ts';
import { currentRequestId } from '../request/scope.ts';
import type { NodeHandler } from './cors.ts';

/** Longest request path written to a log line: the path is the client's choice. */
const MAX_LOGGED_PATH_CHARS = 200;

export interface HttpLimits {
  /** Largest request body in bytes. */
  bodyBytes: number;
  /** Whether a JSON array of operations is accepted at all. */
  allowBatchedRequests: boolean;
  /** Most operations in one batched request. */
  maxBatchSize: number;
}

/** The shape of body-parser's errors (and of the plain reader's, which copies them). */
interface BodyError extends Error {
  status: number;
  statusCode: number;
  type: string;
  expose: boolean;
}

function isBodyError(error: unknown): error is BodyError {
  return typeof error === 'object' && error !== null && typeof (error as BodyError).status === 'number' && typeof (error as BodyError).type === 'string';
}

function bodyError(status: number, type: string, message: string): BodyError {
  return Object.assign(new Error(message), { status, statusCode: status, type, expose: true });
}

/** The type of a body that is not valid data of its declared Content-Encoding (body-parser leaves zlib's errors untyped). */
const ENCODING_INVALID = 'encoding.invalid';

function sizeLabel(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} kB` : `${bytes} bytes`;
}

/** A GraphQL-over-HTTP style error body, so clients parse every refusal the same way. */
function errorBody(message: string, extensions: Record<string, unknown>) {
  return { errors: [{ message, extensions }] };
}

/** Answers a JSON error on a plain Node response (Express's extend them). */
export function sendError(res: ServerResponse, status: number, message: string, extensions: Record<string, unknown>): void {
  const text = JSON.stringify(errorBody(message, extensions));
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** What the reader's failures mean to a client. Messages are ours: the parser's may quote the body back. */
function describe(error: BodyError, limits: HttpLimits, headers: IncomingHttpHeaders): { status: number; message: string; extensions: Record<string, unknown> } {
  switch (error.type) {
    case 'entity.too.large':
      return {
        status: 413,
        message: `Request body is larger than the ${sizeLabel(limits.bodyBytes)} limit`,
        extensions: { code: ErrorCode.PAYLOAD_TOO_LARGE, limit: 'MAX_BODY_BYTES', max: limits.bodyBytes },
      };
    case 'entity.parse.failed':
      return { status: 400, message: 'Request body is not valid JSON', extensions: { code: ErrorCode.BAD_REQUEST } };
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return { status: 415, message: 'Request body must be JSON in UTF-8, optionally compressed with gzip, deflate, br or zstd', extensions: { code: ErrorCode.UNSUPPORTED_MEDIA_TYPE } };
    case ENCODING_INVALID:
      // Only an encoding the reader supports gets here (anything else is 415), so the name is ours to repeat.
      return {
        status: 400,
        message: `Request body is not valid ${String(headers['content-encoding']).toLowerCase()} data: it could not be decompressed`,
        extensions: { code: ErrorCode.BAD_CONTENT_ENCODING },
      };
    default:
      return { status: 400, message: 'Request body could not be read', extensions: { code: ErrorCode.BAD_REQUEST } };
  }
}

// Only what body-parser's JSON parser reads without transformation: JSON in
// UTF-8, uncompressed, with a declared length within the limit.
const PLAIN_JSON = /^application\/json[ \t]*(?:;[ \t]*charset[ \t]*=[ \t]*"?utf-8"?[ \t]*)?$/i;
const DECIMAL = /^\d{1,9}$/;

/** The declared length of a body the plain reader can take, else undefined. */
function plainLength(req: IncomingMessage, limit: number): number | undefined {
  if (req.method !== 'POST') return undefined;
  const { headers } = req;
  const type = headers['content-type'];
  const length = headers['content-length'];
  if (type === undefined || !PLAIN_JSON.test(type)) return undefined;
  if (headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return undefined;
  if (length === undefined || !DECIMAL.test(length)) return undefined;
  const bytes = Number(length);
  return bytes > 0 && bytes <= limit ? bytes : undefined;
}

function readPlain(req: IncomingMessage, length: number): Promise<Buffer> {
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

type WithBody = IncomingMessage & { body?: unknown };

/**
 * `req.body` of a GraphQL request. The common request (a POST of plain UTF-8
 * JSON with a declared length) is read here directly; everything else
 * (compressed bodies, other UTF charsets, chunked uploads, GET) by
 * body-parser's JSON reader with the same limit, which leaves `req.body`
 * undefined when there is no JSON body. Failures go to `next` as
 * body-parser's typed errors, which the error handler turns into refusals.
 */
export function graphqlBodyReader(limits: HttpLimits): NodeHandler {
  const general = express.json({ limit: limits.bodyBytes }) as unknown as NodeHandler;
  return (req, res, next) => {
    const length = plainLength(req, limits.bodyBytes);
    if (length === undefined) {
      general(req, res, (error?: unknown) => {
        // zlib's errors reach us untyped (and as 400): a body that is not what its Content-Encoding says.
        if (error instanceof Error && !isBodyError(error) && req.headers['content-encoding'] !== undefined) {
          next(Object.assign(error, { type: ENCODING_INVALID }));
          return;
        }
        next(error);
      });
      return;
    }
    readPlain(req, length).then((buffer) => {
      const parsed = parseJson(buffer);
      if ('error' in parsed) return next(parsed.error);
      (req as WithBody).body = parsed.value;
      next();
    }, next);
  };
}

/** The batch limit, when batching is allowed (Apollo itself refuses arrays when it is not). */
export function batchLimit(limits: HttpLimits): NodeHandler {
  return (req, res, next) => {
    const { body } = req as WithBody;
    if (Array.isArray(body) && body.length > limits.maxBatchSize) {
      sendError(res, 400, `A batch may hold at most ${limits.maxBatchSize} operations`, {
        code: ErrorCode.BAD_REQUEST,
        limit: 'MAX_BATCH_SIZE',
        max: limits.maxBatchSize,
        requestId: currentRequestId(),
      });
      return;
    }
    next();
  };
}

const PAGE_TYPES = ['application/graphql-response+json', 'application/json', 'text/html'] as const;

interface Preference {
  q: number;
  /** 2 for an exact type, 1 for `type/*`, 0 for `*\/*`. */
  specificity: number;
  /** Position of the range in the header (earlier wins a tie). */
  order: number;
}

/** How much an Accept header wants `type`, as content negotiation (the `negotiator` package) reads it. */
function preference(ranges: string[], type: string): Preference | undefined {
  const slash = type.indexOf('/');
  let best: Preference | undefined;
  ranges.forEach((range, order) => {
    const [media = '', ...params] = range.split(';');
    const name = media.trim().toLowerCase();
    const specificity = name === type ? 2 : name === `${type.slice(0, slash)}/*` ? 1 : name === '*/*' ? 0 : -1;
    if (specificity < 0) return;
    const qParam = params.map((param) => param.trim().toLowerCase()).find((param) => param.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q)) return;
    if (!best || specificity > best.specificity || (specificity === best.specificity && q > best.q)) best = { q, specificity, order };
  });
  return best && best.q > 0 ? best : undefined;
}

/** A browser navigating to the endpoint (it prefers HTML to JSON and asks no query), as opposed to a GraphQL client's GET. */
function isBrowserNavigation(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  if (req.method !== 'GET' || accept === undefined || !accept.includes('html')) return false;
  if (new URL(req.url ?? '/', 'http://gateway').searchParams.has('query')) return false;
  const ranges = accept.split(',');
  const ranked = PAGE_TYPES.map((type, index) => ({ type, index, preference: preference(ranges, type) }))
    .filter((entry) => entry.preference !== undefined)
    .sort((a, b) => b.preference!.q - a.preference!.q || b.preference!.specificity - a.preference!.specificity || a.preference!.order - b.preference!.order || a.index - b.index);
  return ranked[0]?.type === 'text/html';
}

const PLAYGROUND_OFF_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>GraphQL endpoint</title></head>
<body>
<p>This is the GraphQL endpoint of the gateway. The playground is off (off by default in production): set <code>PLAYGROUND=true</code> to serve it here.</p>
<p>GraphQL clients send <code>POST /graphql</code> with a JSON body.</p>
</body>
</html>
`;

/**
 * Where the playground is not served: a browser opening the endpoint gets a
 * short page saying so (404: there is no page here), instead of the JSON
 * refusal meant for GraphQL clients. Every other request passes on.
 */
export const playgroundOff: NodeHandler = (req, res, next) => {
  if (!isBrowserNavigation(req)) {
    next();
    return;
  }
  res.statusCode = 404;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(PLAYGROUND_OFF_PAGE));
  res.setHeader('Vary', 'Origin, Accept');
  res.end(PLAYGROUND_OFF_PAGE);
};

/** Mount after every route: any other path answers a JSON 404 (Express's own is an HTML page). */
export function notFoundHandler(): RequestHandler {
  return (req, res) => {
    sendError(res, 404, 'Not found: the GraphQL endpoint is POST /graphql', { code: ErrorCode.NOT_FOUND, requestId: currentRequestId() });
  };
}

/**
 * The last error handler of the app. Express's own answers with an HTML page
 * that carries the stack trace outside production; here every failure is a
 * JSON error with a code and the request id, and nothing internal.
 */
export function httpErrorHandler(limits: HttpLimits, logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const requestId = currentRequestId();
    if (isBodyError(error) && error.status >= 400 && error.status < 500) {
      const { status, message, extensions } = describe(error, limits, req.headers);
      // Only the parser's classification: its message and `body` may hold what the client sent.
      logger.info({ requestId, path: clip(req.path, MAX_LOGGED_PATH_CHARS), status, reason: error.type }, 'request body refused');
      sendError(res, status, message, { ...extensions, requestId });
      return;
    }
    logger.error({ requestId, path: clip(req.path, MAX_LOGGED_PATH_CHARS), err: error }, 'request failed');
    sendError(res, 500, 'Internal server error', { code: ErrorCode.INTERNAL_SERVER_ERROR, requestId });
  };
}
