import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { clip } from '../client-text.ts';
import { requestIdFrom } from '../request-id.ts';

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

interface BodyParserError {
  status: number;
  type: string;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return typeof error === 'object' && error !== null && typeof (error as BodyParserError).status === 'number' && typeof (error as BodyParserError).type === 'string';
}

function sizeLabel(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} kB` : `${bytes} bytes`;
}

/** A GraphQL-over-HTTP style error body, so clients parse every refusal the same way. */
function errorBody(message: string, extensions: Record<string, unknown>) {
  return { errors: [{ message, extensions }] };
}

/** What the parser's failures mean to a client. Messages are ours: the parser's may quote the body back. */
function describe(error: BodyParserError, limits: HttpLimits): { status: number; message: string; extensions: Record<string, unknown> } {
  switch (error.type) {
    case 'entity.too.large':
      return {
        status: 413,
        message: `Request body is larger than the ${sizeLabel(limits.bodyBytes)} limit`,
        extensions: { code: 'PAYLOAD_TOO_LARGE', limit: 'MAX_BODY_BYTES', max: limits.bodyBytes },
      };
    case 'entity.parse.failed':
      return { status: 400, message: 'Request body is not valid JSON', extensions: { code: 'BAD_REQUEST' } };
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return { status: 415, message: 'Request body must be JSON in UTF-8, optionally gzip- or deflate-compressed', extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' } };
    default:
      return { status: 400, message: 'Request body could not be read', extensions: { code: 'BAD_REQUEST' } };
  }
}

/**
 * JSON body parsing for /graphql with the size limit, and the batch limit
 * when batching is allowed (Apollo itself refuses arrays when it is not).
 */
export function graphqlBodyParser(limits: HttpLimits): RequestHandler[] {
  const json = express.json({ limit: limits.bodyBytes });
  if (!limits.allowBatchedRequests) return [json];
  const batchSize: RequestHandler = (req, res, next) => {
    if (Array.isArray(req.body) && req.body.length > limits.maxBatchSize) {
      res.status(400).json(
        errorBody(`A batch may hold at most ${limits.maxBatchSize} operations`, {
          code: 'BAD_REQUEST',
          limit: 'MAX_BATCH_SIZE',
          max: limits.maxBatchSize,
          requestId: requestIdFrom(req.headers),
        }),
      );
      return;
    }
    next();
  };
  return [json, batchSize];
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
    const requestId = requestIdFrom(req.headers);
    if (isBodyParserError(error) && error.status >= 400 && error.status < 500) {
      const { status, message, extensions } = describe(error, limits);
      // Only the parser's classification: its message and `body` may hold what the client sent.
      logger.info({ requestId, path: clip(req.path, MAX_LOGGED_PATH_CHARS), status, reason: error.type }, 'request body refused');
      res.status(status).json(errorBody(message, { ...extensions, requestId }));
      return;
    }
    logger.error({ requestId, path: clip(req.path, MAX_LOGGED_PATH_CHARS), err: error }, 'request failed');
    res.status(500).json(errorBody('Internal server error', { code: 'INTERNAL_SERVER_ERROR', requestId }));
  };
}
