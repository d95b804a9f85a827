import { GraphQLError } from 'graphql';
import { currentRequestId } from './request/scope.ts';

/**
 * The public error codes of the gateway (`extensions.code`). Clients branch on
 * these, so they are part of the API: add, never rename.
 */
export const ErrorCode = {
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  CONFLICT: 'CONFLICT',
  RATE_LIMITED: 'RATE_LIMITED',
  /** The operation needs more platform calls than a caller's whole budget (RATE_LIMIT_BURST) holds: it can never run as it is. Not retryable. */
  COST_EXCEEDS_BURST: 'COST_EXCEEDS_BURST',
  UPSTREAM_ERROR: 'UPSTREAM_ERROR',
  UPSTREAM_TIMEOUT: 'UPSTREAM_TIMEOUT',
  /** A platform call stopped because the caller closed the connection; only logs and metrics ever see it. */
  CANCELLED: 'CANCELLED',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
  /** `extensions.persistedQuery.sha256Hash` is not the SHA-256 of the `query` sent with it. */
  PERSISTED_QUERY_HASH_MISMATCH: 'PERSISTED_QUERY_HASH_MISMATCH',
  // Apollo Server's own codes (`ApolloServerErrorCode`), also answered by the gateway's limits.
  /** The document does not parse, or has more tokens than MAX_QUERY_TOKENS. */
  GRAPHQL_PARSE_FAILED: 'GRAPHQL_PARSE_FAILED',
  /** The document does not validate against the schema, or is over a query limit. */
  GRAPHQL_VALIDATION_FAILED: 'GRAPHQL_VALIDATION_FAILED',
  /** The HTTP request itself is refused: CSRF prevention, malformed JSON, a batch while batching is off. */
  BAD_REQUEST: 'BAD_REQUEST',
  /** `operationName` names no operation of the document, or the document has several and none is named. */
  OPERATION_RESOLUTION_FAILURE: 'OPERATION_RESOLUTION_FAILURE',
  /** Automatic persisted queries: the hash is not registered yet; the client sends the query with it. */
  PERSISTED_QUERY_NOT_FOUND: 'PERSISTED_QUERY_NOT_FOUND',
  /** Automatic persisted queries are off (PERSISTED_QUERIES=false). */
  PERSISTED_QUERY_NOT_SUPPORTED: 'PERSISTED_QUERY_NOT_SUPPORTED',
  // Refusals of the request body, before GraphQL (src/http/body.ts).
  /** The body is larger than MAX_BODY_BYTES. */
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  /** The body's charset or content encoding is not one the gateway reads (HTTP 415). */
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  /** The request body is not valid data of the Content-Encoding it declares (a corrupt or truncated gzip, …). */
  BAD_CONTENT_ENCODING: 'BAD_CONTENT_ENCODING',
  // Trusted documents (src/hardening/trusted-documents.ts).
  /** The document id is not in the manifest. */
  PERSISTED_QUERY_NOT_IN_LIST: 'PERSISTED_QUERY_NOT_IN_LIST',
  /** Only trusted documents run, and the request sent a document's text instead of its id. */
  PERSISTED_QUERY_ID_REQUIRED: 'PERSISTED_QUERY_ID_REQUIRED',
  /** The request sent an id and a text that is not that id's document. */
  PERSISTED_QUERY_MISMATCH: 'PERSISTED_QUERY_MISMATCH',
  /** The gateway refused the platform call: that route has as many calls in flight and queued as it allows. Retryable. */
  UPSTREAM_BUSY: 'UPSTREAM_BUSY',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** A client mistake found by the gateway itself, before any upstream call. */
export function badUserInput(message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code: ErrorCode.BAD_USER_INPUT, ...extensions } });
}

/** One entry of an answer's `errors`. */
export interface ErrorEntry {
  message: string;
  extensions: Record<string, unknown>;
}

/**
 * The extensions with the id of the request being answered, set last (whatever an error carried),
 * from the request scope: the one place an answer's errors get it. Refusals before or around
 * GraphQL (src/http/refusal.ts, the budgets) and every GraphQL error (format-error.ts) go through here.
 */
export function stampRequestId(extensions: Record<string, unknown>): Record<string, unknown> {
  const requestId = currentRequestId();
  if (requestId === undefined) return extensions;
  extensions.requestId = requestId;
  return extensions;
}

/** An error made by the gateway outside graphql-js (a refusal): its message, its code and the request id, in the shape GraphQL errors take. */
export function errorEntry(message: string, extensions: Record<string, unknown>): ErrorEntry {
  return { message, extensions: stampRequestId({ ...extensions }) };
}
