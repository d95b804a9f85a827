import { ErrorCode } from '../errors.ts';
import { PlatformError } from './platform-error.ts';

/** For one list endpoint: each query parameter the caller's arguments set → the GraphQL argument path it came from. */
export type ArgumentPaths = Readonly<Record<string, readonly string[]>>;

/** A platform field error, addressed to the GraphQL argument it concerns (null: a parameter no argument sets). */
interface ArgumentError {
  field: readonly string[] | null;
  message: string;
  code: string;
}

/**
 * For list queries, which have no payload to carry user errors: a platform refusal (BAD_USER_INPUT) whose
 * `errors[].path` names query parameters is re-addressed to the GraphQL arguments, as `updateDocument`
 * does for its input. `extensions.field` is the first argument path (the same extension the gateway's own
 * argument checks set), `extensions.fieldErrors` lists every error. Anything else is rethrown unchanged.
 * Use as `.catch(rethrowOnArguments(paths))` on the list call.
 */
/** The argument path of the query parameter `name`: only the endpoint's own parameters, never an Object member such as `constructor`. */
function parameterPath(paths: ArgumentPaths, name: string): readonly string[] | null {
  return Object.hasOwn(paths, name) ? (paths[name] as readonly string[]) : null;
}

export function rethrowOnArguments(paths: ArgumentPaths): (error: unknown) => never {
  return (error) => {
    if (!(error instanceof PlatformError) || error.code !== ErrorCode.BAD_USER_INPUT || error.fieldErrors.length === 0) throw error;
    const fieldErrors: ArgumentError[] = error.fieldErrors.map((fieldError) => ({
      // `status[0]` or `sort.direction` still names its parameter first.
      field: parameterPath(paths, fieldError.path.split(/[.[]/, 1)[0]!),
      message: fieldError.message,
      code: fieldError.errorCode,
    }));
    const field = fieldErrors.find((fieldError) => fieldError.field !== null)?.field ?? null;
    const readdressed = new PlatformError(error.code, error.message, { fieldErrors: error.fieldErrors });
    Object.assign(readdressed.extensions, error.extensions, field ? { field, fieldErrors } : { fieldErrors });
    throw readdressed;
  };
}
