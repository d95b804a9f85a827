import { ApolloServerErrorCode } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { Logger } from 'pino';
import { clip, clipEchoes, clipEchoesDeep, MAX_MESSAGE_CHARS } from './client-text.ts';
import { ErrorCode, stampRequestId } from './errors.ts';
import { persistedQueryRefusalCode } from './hardening/persisted-queries.ts';
import { currentRequestId } from './request/scope.ts';

/** Codes whose message is written for clients; any other error is unexpected, and its text stays in the logs. */
const PUBLIC_CODES: ReadonlySet<string> = new Set<string>([...Object.values(ErrorCode), ...Object.values(ApolloServerErrorCode)].filter((code) => code !== ErrorCode.INTERNAL_SERVER_ERROR));

/**
 * graphql-js' refusals of an argument's value during execution (`getArgumentValues`): a null or
 * missing variable where the argument, an input field or a list item is non-null. Validation lets a
 * nullable variable with a default stand there, so only the value a client sends breaks the rule;
 * graphql-js gives these errors no code.
 */
const ARGUMENT_REFUSAL = /^Argument "[^"]+" (?:of (?:non-null|required) type "[^"]+" (?:must not be null|was not provided|was provided the variable "\$[^"]+" which was not provided a runtime value)|has invalid value [\s\S]+)\.$/;

/** Whether the error is graphql-js' own refusal of an argument value (located at its field, or alone when it broke a root `@skip`/`@include`). */
function isArgumentRefusal(error: unknown): boolean {
  const cause = error instanceof GraphQLError && error.originalError instanceof GraphQLError ? error.originalError : error;
  return (
    cause instanceof GraphQLError &&
    cause.originalError === undefined &&
    cause.extensions.code === undefined &&
    cause.nodes?.length === 1 &&
    ARGUMENT_REFUSAL.test(cause.message)
  );
}

/** Stack frames kept in a log line of an unexpected error (the cause is near the top). */
const LOGGED_STACK_FRAMES = 12;

export interface ErrorFormatting {
  production: boolean;
  /** Longest client text repeated in a message, an extension or a log line (MAX_ECHOED_CHARS). */
  echoChars: number;
  /** Where unexpected errors are logged. */
  logger: Logger;
}

/** The original error's kind, message and first frames, with client text cut as in answers. */
function describeUnexpected(error: unknown, echoChars: number): Record<string, unknown> {
  const cause = error instanceof Error && 'originalError' in error && error.originalError instanceof Error ? error.originalError : error;
  if (!(cause instanceof Error)) return { type: typeof cause, message: clip(String(cause), MAX_MESSAGE_CHARS) };
  const frames = (cause.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at ')).slice(0, LOGGED_STACK_FRAMES);
  return { type: cause.name, message: clipEchoes(cause.message, echoChars), stack: frames.map((frame) => clip(frame.trim(), 300)) };
}

/**
 * Apollo Server's `formatError`: every error answer passes through here, those
 * of the GraphQL pipeline and the refusals Apollo makes before it. Each gets
 *   - a code: a client mistake Apollo leaves without one gets its client code (graphql-js' refusal
 *     of an argument value during execution is BAD_USER_INPUT);
 *   - the request id (also in the request's log lines);
 *   - client text cut to a short prefix wherever the message or extensions repeat it;
 *   - in production, no internals: an unexpected error's message is replaced.
 * Every INTERNAL_SERVER_ERROR is logged at error level with the request id and the original cause.
 */
export function formatError({ production, echoChars, logger }: ErrorFormatting) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    // The request id is the scope's, whatever the error carried: formatting runs in the request being answered.
    const { code: givenCode, requestId: _carried, stacktrace, ...extensions } = formatted.extensions ?? {};
    const requestId = currentRequestId();
    const refusalCode = persistedQueryRefusalCode(error);
    // Apollo gives an error without a code INTERNAL_SERVER_ERROR; graphql-js' refusal of a client's argument value is a client mistake.
    const code = refusalCode ?? (isArgumentRefusal(error) ? ErrorCode.BAD_USER_INPUT : typeof givenCode === 'string' ? givenCode : ErrorCode.INTERNAL_SERVER_ERROR);
    const message = clipEchoes(formatted.message, echoChars);
    const unexpected = code === ErrorCode.INTERNAL_SERVER_ERROR || !PUBLIC_CODES.has(code);

    if (unexpected) {
      logger.error({ requestId, code, path: formatted.path, error: describeUnexpected(error, echoChars) }, 'unexpected error');
    }
    if (production && unexpected) {
      return { message: 'Internal server error', locations: formatted.locations, path: formatted.path, extensions: stampRequestId({ code: ErrorCode.INTERNAL_SERVER_ERROR }) };
    }
    const kept = stampRequestId({ ...(clipEchoesDeep(extensions, echoChars) as Record<string, unknown>), code });
    // The frames are the gateway's own; the lines before them repeat the message.
    if (Array.isArray(stacktrace)) kept.stacktrace = stacktrace.map((line) => (/^\s+at /.test(String(line)) ? String(line) : clipEchoes(String(line), echoChars)));
    return { ...formatted, message, extensions: kept };
  };
}
