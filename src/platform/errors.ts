import { GraphQLError } from 'graphql';
import { ErrorCode } from '../errors.ts';

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
 * turns `fieldErrors` of a BAD_USER_INPUT into user errors.
 */
export class PlatformError extends GraphQLError {
  readonly code: ErrorCode;
  readonly fieldErrors: PlatformFieldError[];

  constructor(
    code: ErrorCode,
    message: string,
    details: { requestId: string; upstream?: UpstreamDetails; retryAfter?: number; fieldErrors?: PlatformFieldError[] },
  ) {
    const extensions: Record<string, unknown> = { code, requestId: details.requestId };
    if (details.upstream && Object.keys(details.upstream).length > 0) extensions.upstream = details.upstream;
    if (details.retryAfter !== undefined) extensions.retryAfter = details.retryAfter;
    super(message, { extensions });
    this.name = 'PlatformError';
    this.code = code;
    this.fieldErrors = details.fieldErrors ?? [];
  }
}

interface ParsedErrorBody {
  message?: string;
  traceId?: string;
  errorCode?: string;
  errors: PlatformFieldError[];
}

const asString = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

/**
 * Reads either platform error shape — `{timestamp,traceId,error,message}` or
 * `{timestamp,traceId,message,errorCode,errors:[{path,message,errorCode}]}` —
 * and tolerates anything else (plain text, a proxy's HTML, broken JSON, nothing).
 */
export function parseErrorBody(body: string, contentType: string | undefined): ParsedErrorBody {
  const text = body.trim();
  if (text.startsWith('{')) {
    try {
      const json = JSON.parse(text) as Record<string, unknown>;
      const errors = Array.isArray(json.errors)
        ? json.errors.flatMap((entry: unknown) => {
            if (!entry || typeof entry !== 'object') return [];
            const e = entry as Record<string, unknown>;
            return [{ path: asString(e.path) ?? '', message: asString(e.message) ?? 'is invalid', errorCode: asString(e.errorCode) ?? 'INVALID' }];
          })
        : [];
      return {
        message: asString(json.message) ?? asString(json.error),
        traceId: asString(json.traceId),
        errorCode: asString(json.errorCode),
        errors,
      };
    } catch {
      return { errors: [] };
    }
  }
  // Plain text is the platform (or a proxy) talking to us; HTML is a proxy's error page and says nothing useful.
  const isHtml = (contentType ?? '').includes('html') || text.startsWith('<');
  if (text && !isHtml) return { message: text.split('\n')[0]!.slice(0, 200), errors: [] };
  return { errors: [] };
}

const reason: Partial<Record<ErrorCode, string>> = {
  UNAUTHENTICATED: 'The platform rejected the access token',
  FORBIDDEN: 'The access token is not allowed to do this',
  NOT_FOUND: 'Not found on the platform',
  BAD_USER_INPUT: 'The platform rejected the request',
  CONFLICT: 'The platform reported a conflict',
  RATE_LIMITED: 'The platform is rate limiting this caller',
  UPSTREAM_ERROR: 'The platform failed to answer',
};

export function codeForStatus(status: number): ErrorCode {
  if (status === 401) return ErrorCode.UNAUTHENTICATED;
  if (status === 403) return ErrorCode.FORBIDDEN;
  if (status === 404) return ErrorCode.NOT_FOUND;
  // 413/414/431: the request the caller's arguments produced was too large for the platform.
  if (status === 400 || status === 422 || status === 413 || status === 414 || status === 431) return ErrorCode.BAD_USER_INPUT;
  if (status === 409) return ErrorCode.CONFLICT;
  if (status === 429) return ErrorCode.RATE_LIMITED;
  return ErrorCode.UPSTREAM_ERROR;
}

/** Retry-After as whole seconds (delta-seconds or an HTTP date), when the platform sent one. */
export function retryAfterSeconds(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  // An HTTP date starts with a day name; V8's lenient Date.parse would read '1.5' or '-5' as a date in 2001.
  if (!/^[A-Za-z]{3,9},? /.test(value.trim())) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * The platform may echo the caller's token in an error body ("Invalid token …"); it must not travel on
 * in our messages, extensions or logs. The raw body is cleaned before the message is cut to length (so no
 * prefix of the token survives), the parsed fields again in case JSON escaping hid it from the first pass.
 */
function withoutToken(authorization: string | undefined): (text: string) => string {
  const token = authorization?.replace(/^\S+\s+/, '').trim();
  return token ? (text) => text.split(token).join('[REDACTED]') : (text) => text;
}

/** Maps a non-2xx platform answer to the gateway's error; `authorization` is what was sent, to keep it out of the result. */
export function errorFromResponse(
  response: { status: number; body: string; contentType?: string; retryAfter?: string | string[] },
  requestId: string,
  authorization?: string,
): PlatformError {
  const code = codeForStatus(response.status);
  const clean = withoutToken(authorization);
  const raw = parseErrorBody(clean(response.body), response.contentType);
  const optional = (text: string | undefined) => (text === undefined ? undefined : clean(text));
  const parsed: ParsedErrorBody = {
    message: optional(raw.message),
    traceId: optional(raw.traceId),
    errorCode: optional(raw.errorCode),
    errors: raw.errors.map((e) => ({ path: clean(e.path), message: clean(e.message), errorCode: clean(e.errorCode) })),
  };
  const upstream: UpstreamDetails = { status: response.status };
  if (parsed.traceId) upstream.traceId = parsed.traceId;
  if (parsed.errorCode) upstream.errorCode = parsed.errorCode;
  // 5xx messages are the platform's internals: say what happened, not what it said.
  const detail = response.status < 500 && parsed.message ? `: ${parsed.message}` : '';
  const message = `${reason[code] ?? 'The platform failed'} (HTTP ${response.status})${detail}`;
  return new PlatformError(code, message, {
    requestId,
    upstream,
    retryAfter: code === ErrorCode.RATE_LIMITED ? (retryAfterSeconds(response.retryAfter) ?? 1) : undefined,
    fieldErrors: parsed.errors,
  });
}

/** Maps a call that produced no usable answer (network, timeout, open breaker, unusable body, caller gone). */
export function transportError(kind: 'timeout' | 'network' | 'breaker' | 'body' | 'cancelled', requestId: string, detail: string, status?: number): PlatformError {
  const upstream = status === undefined ? undefined : { status };
  switch (kind) {
    case 'timeout':
      return new PlatformError(ErrorCode.UPSTREAM_TIMEOUT, `The platform did not answer in time (${detail})`, { requestId, upstream });
    case 'breaker':
      return new PlatformError(ErrorCode.UPSTREAM_ERROR, 'The platform is failing; calls are paused for a short cool-down', { requestId, upstream });
    case 'cancelled':
      return new PlatformError(ErrorCode.CANCELLED, `The platform call was stopped (${detail})`, { requestId, upstream });
    case 'body':
      return new PlatformError(ErrorCode.UPSTREAM_ERROR, `The platform answered with an unusable body (${detail})`, { requestId, upstream });
    default:
      return new PlatformError(ErrorCode.UPSTREAM_ERROR, `The platform could not be reached (${detail})`, { requestId, upstream });
  }
}
