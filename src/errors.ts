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
  /** The gateway refused the platform call: that route has as many calls in flight and queued as it allows. Retryable. */
  UPSTREAM_BUSY: 'UPSTREAM_BUSY',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** A client mistake found by the gateway itself, before any upstream call. */
export function badUserInput(message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code: ErrorCode.BAD_USER_INPUT, ...extensions } });
}
