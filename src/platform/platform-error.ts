import { GraphQLError } from 'graphql';
import type { ErrorCode } from '../errors.ts';

/** What the platform said about one rejected field (`errors[]` of its validation body). */
export interface PlatformFieldError {
  path: string;
  message: string;
  errorCode: string;
}

export interface UpstreamDetails {
  status?: number;
  traceId?: string;
  errorCode?: string;
}

/**
 * A failed platform call, already mapped to the gateway's public error code.
 * It is a GraphQLError so resolvers can let it propagate untouched; the mutation
 * turns `fieldErrors` of a BAD_USER_INPUT into user errors. It carries no request id: formatError
 * stamps the answer's from the request scope, the one place an error gets it.
 */
export class PlatformError extends GraphQLError {
  readonly code: ErrorCode;
  readonly fieldErrors: PlatformFieldError[];

  constructor(
    code: ErrorCode,
    message: string,
    details: { upstream?: UpstreamDetails; retryAfter?: number; fieldErrors?: PlatformFieldError[] } = {},
  ) {
    const extensions: Record<string, unknown> = { code };
    if (details.upstream && Object.keys(details.upstream).length > 0) extensions.upstream = details.upstream;
    if (details.retryAfter !== undefined) extensions.retryAfter = details.retryAfter;
    super(message, { extensions });
    this.name = 'PlatformError';
    this.code = code;
    this.fieldErrors = details.fieldErrors ?? [];
  }
}
