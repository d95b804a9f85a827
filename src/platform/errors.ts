/**
 * Index of the platform's error modules, one per concern: the error type (platform-error.ts), reading
 * error bodies (error-body.ts), failures → public codes (error-mapping.ts), keeping the caller's token
 * out of them (token-redaction.ts) and field errors → GraphQL arguments (argument-errors.ts).
 * Code imports from the module of its concern; this index holds nothing of its own and goes once no
 * module imports it.
 */
export { PlatformError, type PlatformFieldError, type UpstreamDetails } from './platform-error.ts';
export { parseErrorBody } from './error-body.ts';
export { codeForStatus, errorFromResponse, retryAfterSeconds, transportError } from './error-mapping.ts';
export { TOKEN_ECHO_MIN, tokenRedactor, type Redactor } from './token-redaction.ts';
export { rethrowOnArguments, type ArgumentError, type ArgumentPaths } from './argument-errors.ts';
