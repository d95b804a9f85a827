import { ApolloServerErrorCode } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { Logger } from 'pino';
import { clip, clipEchoes, clipEchoesDeep, MAX_MESSAGE_CHARS } from './client-text.ts';
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
 * from the request scope: the one place an answer's errors get it (`shapeError`).
 */
export function stampRequestId(extensions: Record<string, unknown>): Record<string, unknown> {
  const requestId = currentRequestId();
  if (requestId === undefined) return extensions;
  extensions.requestId = requestId;
  return extensions;
}

/** The rules every error an answer carries is shaped by (`shapeError`). */
export interface ErrorShaping {
  /** NODE_ENV=production: an unexpected error's message and extensions are replaced. */
  production: boolean;
  /** Longest client text repeated in a message, an extension or a log line (MAX_ECHOED_CHARS). */
  echoChars: number;
  /** Where unexpected errors are logged. */
  logger: Logger | undefined;
}

/** Codes whose message is written for clients; any other error is unexpected, and its text stays in the logs. */
const PUBLIC_CODES: ReadonlySet<string> = new Set<string>([...Object.values(ErrorCode), ...Object.values(ApolloServerErrorCode)].filter((code) => code !== ErrorCode.INTERNAL_SERVER_ERROR));

/** Stack frames kept in a log line of an unexpected error (the cause is near the top). */
const LOGGED_STACK_FRAMES = 12;

/** The original error's kind, message and first frames, with client text cut as in answers. */
function describeUnexpected(error: unknown, echoChars: number): Record<string, unknown> {
  const cause = error instanceof Error && 'originalError' in error && error.originalError instanceof Error ? error.originalError : error;
  if (!(cause instanceof Error)) return { type: typeof cause, message: clip(String(cause), MAX_MESSAGE_CHARS) };
  const frames = (cause.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at ')).slice(0, LOGGED_STACK_FRAMES);
  return { type: cause.name, message: clipEchoes(cause.message, echoChars), stack: frames.map((frame) => clip(frame.trim(), 300)) };
}

/**
 * The one place an error an answer carries is shaped, whoever made it: a GraphQL error (Apollo's
 * `formatError`, src/format-error.ts, which first gives it its client code), a refusal of the HTTP
 * request (src/http/refusal.ts) or of an operation's budget (src/budgets/plugin.ts, `errorEntry`).
 * Each gets, in this order, its message, its place in the document, and `extensions` with `code`
 * first and `requestId` last:
 *   - the request id, from the request scope (also in the request's log lines);
 *   - client text cut to a short prefix wherever the message or extensions repeat it;
 *   - in production, no internals: an error whose code is not a public one is answered
 *     `Internal server error` with no extensions but its code;
 *   - every such error logged at error level with the request id and its cause, when `raised` gives
 *     one (a refusal's writer logs its own).
 * Apollo Server's `errorNormalize` is the model: one function, whatever raised the error.
 */
export function shapeError(error: GraphQLFormattedError, code: string | undefined, { production, echoChars, logger }: ErrorShaping, raised?: { cause: unknown }): GraphQLFormattedError {
  const { code: _given, requestId: _carried, stacktrace, ...extensions } = error.extensions ?? {};
  // Only a refusal's writer may leave the code out (errorEntry): its text is the gateway's own.
  const unexpected = code !== undefined && (code === ErrorCode.INTERNAL_SERVER_ERROR || !PUBLIC_CODES.has(code));
  if (unexpected && raised !== undefined) {
    logger?.error({ requestId: currentRequestId(), code, path: error.path, error: describeUnexpected(raised.cause, echoChars) }, 'unexpected error');
  }
  const place = { ...(error.locations && { locations: error.locations }), ...(error.path && { path: error.path }) };
  if (production && unexpected) return { message: 'Internal server error', ...place, extensions: stampRequestId({ code: ErrorCode.INTERNAL_SERVER_ERROR }) };
  const kept = stampRequestId({ ...(code !== undefined && { code }), ...(clipEchoesDeep(extensions, echoChars) as Record<string, unknown>) });
  // The frames are the gateway's own; the lines before them repeat the message.
  if (Array.isArray(stacktrace)) kept.stacktrace = stacktrace.map((line) => (/^\s+at /.test(String(line)) ? String(line) : clipEchoes(String(line), echoChars)));
  return { message: clipEchoes(error.message, echoChars), ...place, extensions: kept };
}

/** Until a gateway starts (`useErrorShaping`): development rules, the default MAX_ECHOED_CHARS. */
let processShaping: ErrorShaping = { production: false, echoChars: 64, logger: undefined };
/** What a refusal's shaping reads of the gateway's rules: refusals are logged by their writers. */
type RefusalShaping = Omit<ErrorShaping, 'logger'>;

/**
 * The rules refusals are shaped by in this process, set once by the gateway as it starts (as the
 * cursor secret is): a process runs one gateway. GraphQL errors get the same rules from Apollo's
 * `formatError`.
 */
export function useErrorShaping({ production, echoChars }: RefusalShaping): void {
  processShaping = { production, echoChars, logger: undefined };
}

/**
 * An error made by the gateway outside graphql-js (a refusal of the HTTP request or of an
 * operation's budget): its message and extensions (with a `code`) shaped as every error is.
 * The refusal's writer logs it; no cause is given here.
 */
export function errorEntry(message: string, extensions: Record<string, unknown>): ErrorEntry {
  const code = typeof extensions.code === 'string' ? extensions.code : undefined;
  return shapeError({ message, extensions }, code, processShaping) as ErrorEntry;
}
