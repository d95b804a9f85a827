import { GraphQLError, type SourceLocation } from 'graphql';

/**
 * graphql-jit reports errors with its own subclass of GraphQLError, which
 * drops the extensions of a thrown GraphQLError and leaves `extensions` unset.
 * This rebuilds each the way graphql-js' `locatedError` does, so error codes,
 * masking and stack traces downstream see what graphql-js would have produced.
 */
export function asLocatedError(error: GraphQLError): GraphQLError {
  // jit's class inherits from graphql-js' GraphQLError but leaves `extensions` undefined, which Apollo reads unguarded.
  if (error.constructor === GraphQLError) return error;
  const { originalError, path } = error as { originalError?: unknown; path?: ReadonlyArray<string | number> };
  // A GraphQLError that already carries a path is passed through by graphql-js unchanged.
  if (originalError instanceof GraphQLError && Array.isArray(originalError.path)) return originalError;
  const cause = originalError instanceof Error ? originalError : undefined;
  const located = new GraphQLError(cause?.message ?? error.message, {
    path,
    originalError: cause,
    extensions: cause instanceof GraphQLError ? cause.extensions : undefined,
  });
  const locations = (error as { locations?: readonly SourceLocation[] }).locations;
  if (locations && locations.length > 0) Object.defineProperty(located, 'locations', { value: locations, enumerable: true });
  return located;
}
