import { GraphQLError } from 'graphql';

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
  UPSTREAM_ERROR: 'UPSTREAM_ERROR',
  UPSTREAM_TIMEOUT: 'UPSTREAM_TIMEOUT',
  /** A platform call stopped because the caller closed the connection; only logs and metrics ever see it. */
  CANCELLED: 'CANCELLED',
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
  /** `extensions.persistedQuery.sha256Hash` is not the SHA-256 of the `query` sent with it. */
  PERSISTED_QUERY_HASH_MISMATCH: 'PERSISTED_QUERY_HASH_MISMATCH',
  /** The HTTP request itself is malformed (body not JSON, batch too large, …); Apollo Server's own refusals use it too. */
  BAD_REQUEST: 'BAD_REQUEST',
  /** The request body is over MAX_BODY_BYTES (HTTP 413). */
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  /** The request body's charset or content encoding is not one the gateway reads (HTTP 415). */
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  /** The request body is not valid data of the Content-Encoding it declares (a corrupt or truncated gzip, …). */
  BAD_CONTENT_ENCODING: 'BAD_CONTENT_ENCODING',
  /** Trusted documents: the id is not in the manifest. */
  PERSISTED_QUERY_NOT_IN_LIST: 'PERSISTED_QUERY_NOT_IN_LIST',
  /** Trusted documents only: the request sent a document's text instead of its id. */
  PERSISTED_QUERY_ID_REQUIRED: 'PERSISTED_QUERY_ID_REQUIRED',
  /** Trusted documents: the request sent both an id and a text, and the text is not the id's document. */
  PERSISTED_QUERY_MISMATCH: 'PERSISTED_QUERY_MISMATCH',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** A client mistake found by the gateway itself, before any upstream call. */
export function badUserInput(message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code: ErrorCode.BAD_USER_INPUT, ...extensions } });
}
