import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { Logger } from 'pino';
import { ErrorCode, shapeError, type ErrorShaping } from './errors.ts';
import { persistedQueryRefusalCode } from './hardening/persisted-queries.ts';

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

export type ErrorFormatting = ErrorShaping & { logger: Logger };

/**
 * Apollo Server's `formatError`: every error answer passes through here, those of the GraphQL
 * pipeline and the refusals Apollo makes before it. Here each gets its code (a client mistake
 * Apollo leaves without one gets its client code: graphql-js' refusal of an argument value during
 * execution is BAD_USER_INPUT, Apollo's persisted-query refusals theirs); `shapeError`
 * (src/errors.ts), which shapes every error an answer carries, does the rest: the request id,
 * client text cut, no internals in production, unexpected errors logged with their cause.
 */
export function formatError(shaping: ErrorFormatting) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const givenCode = formatted.extensions?.code;
    // Apollo gives an error without a code INTERNAL_SERVER_ERROR; graphql-js' refusal of a client's argument value is a client mistake.
    const code = persistedQueryRefusalCode(error) ?? (isArgumentRefusal(error) ? ErrorCode.BAD_USER_INPUT : typeof givenCode === 'string' ? givenCode : ErrorCode.INTERNAL_SERVER_ERROR);
    return shapeError(formatted, code, shaping, { cause: error });
  };
}
