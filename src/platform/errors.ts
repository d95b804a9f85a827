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
 * The redactor cleans every text taken from the body, after JSON unescaping
 * and before a plain-text message is cut to length.
 */
export function parseErrorBody(body: string, contentType: string | undefined, redactor: Redactor = NO_REDACTION): ParsedErrorBody {
  const text = body.trim();
  const cleaned = (value: unknown): string | undefined => {
    const found = asString(value);
    return found === undefined ? undefined : redactor.redact(found);
  };
  if (text.startsWith('{')) {
    try {
      const json = JSON.parse(text) as Record<string, unknown>;
      const errors = Array.isArray(json.errors)
        ? json.errors.flatMap((entry: unknown) => {
            if (!entry || typeof entry !== 'object') return [];
            const e = entry as Record<string, unknown>;
            return [{ path: cleaned(e.path) ?? '', message: cleaned(e.message) ?? 'is invalid', errorCode: cleaned(e.errorCode) ?? 'INVALID' }];
          })
        : [];
      return {
        message: cleaned(json.message) ?? cleaned(json.error),
        traceId: cleaned(json.traceId),
        errorCode: cleaned(json.errorCode),
        errors,
      };
    } catch {
      return { errors: [] };
    }
  }
  // Plain text is the platform (or a proxy) talking to us; HTML is a proxy's error page and says nothing useful.
  const isHtml = (contentType ?? '').includes('html') || text.startsWith('<');
  if (text && !isHtml) {
    return { message: redactor.redact(firstLine(text, PLAIN_MESSAGE_LENGTH + redactor.reach)).slice(0, PLAIN_MESSAGE_LENGTH), errors: [] };
  }
  return { errors: [] };
}

const PLAIN_MESSAGE_LENGTH = 200;

/** The first line, read no further than `max` characters (a body can be large; only its start is used). */
function firstLine(text: string, max: number): string {
  const head = text.slice(0, max);
  const end = head.indexOf('\n');
  return end === -1 ? head : head.slice(0, end);
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

/** The shortest run of the caller's token that counts as an echo of it. */
export const TOKEN_ECHO_MIN = 8;

export interface Redactor {
  redact(text: string): string;
  /** How far past a cut a text must be read so that an echo straddling the cut is still seen whole. */
  reach: number;
}

const NO_REDACTION: Redactor = { redact: (text) => text, reach: 0 };

/**
 * The platform may echo the caller's token in an error body ("Invalid token …"); it must not travel on
 * in our messages, extensions or logs. Cut out: the whole token, and every run of TOKEN_ECHO_MIN or more
 * characters that also occur in a row in the token, whether written raw or percent-encoded (`%2F`, also
 * mixed with raw characters). A run is found by its windows of TOKEN_ECHO_MIN characters: every window
 * that is a piece of the token is cut, so a shortened, extended or partly encoded echo goes too.
 * Only failures pay for this: a redactor is made per failed call.
 */
export function tokenRedactor(authorization: string | undefined): Redactor {
  const token = authorization?.replace(/^\S+\s+/, '').trim();
  if (!token) return NO_REDACTION;
  const pieces = new Set<string>();
  for (let i = 0; i + TOKEN_ECHO_MIN <= token.length; i++) pieces.add(token.slice(i, i + TOKEN_ECHO_MIN));
  return {
    redact(text) {
      const whole = text.split(token).join(REDACTED);
      return pieces.size === 0 ? whole : withoutPieces(whole, pieces);
    },
    // A percent-encoded character takes 3.
    reach: token.length * 3,
  };
}

const REDACTED = '[REDACTED]';
const HEX = /^[0-9a-fA-F]{2}$/;

function withoutPieces(text: string, pieces: ReadonlySet<string>): string {
  // The text as decoded (one level of percent-encoding, ASCII only), each decoded character remembering
  // where it came from in the text.
  let decoded = '';
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < text.length; ) {
    const code = text[i] === '%' && HEX.test(text.slice(i + 1, i + 3)) ? Number.parseInt(text.slice(i + 1, i + 3), 16) : -1;
    const width = code >= 0 && code < 0x80 ? 3 : 1;
    decoded += width === 3 ? String.fromCharCode(code) : text[i];
    from.push(i);
    to.push(i + width);
    i += width;
  }
  const cut = new Uint8Array(text.length);
  let found = false;
  for (let j = 0; j + TOKEN_ECHO_MIN <= decoded.length; j++) {
    if (!pieces.has(decoded.slice(j, j + TOKEN_ECHO_MIN))) continue;
    cut.fill(1, from[j]!, to[j + TOKEN_ECHO_MIN - 1]!);
    found = true;
  }
  if (!found) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (!cut[i]) out += text[i];
    else if (i === 0 || !cut[i - 1]) out += REDACTED;
  }
  return out;
}

/** Maps a non-2xx platform answer to the gateway's error; `authorization` is what was sent, to keep it out of the result. */
export function errorFromResponse(
  response: { status: number; body: string; contentType?: string; retryAfter?: string | string[] },
  requestId: string,
  authorization?: string,
): PlatformError {
  const code = codeForStatus(response.status);
  const parsed = parseErrorBody(response.body, response.contentType, tokenRedactor(authorization));
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

/** Maps a call that produced no usable answer (network, timeout, open breaker, route busy, unusable body, caller gone). */
export function transportError(kind: 'timeout' | 'network' | 'breaker' | 'busy' | 'body' | 'cancelled', requestId: string, detail: string, status?: number): PlatformError {
  const upstream = status === undefined ? undefined : { status };
  switch (kind) {
    case 'timeout':
      return new PlatformError(ErrorCode.UPSTREAM_TIMEOUT, `The platform did not answer in time (${detail})`, { requestId, upstream });
    case 'breaker':
      return new PlatformError(ErrorCode.UPSTREAM_ERROR, 'The platform is failing; calls are paused for a short cool-down', { requestId, upstream });
    case 'busy':
      return new PlatformError(ErrorCode.UPSTREAM_BUSY, `The gateway is limiting calls to this platform route (${detail}); try again shortly`, { requestId, upstream });
    case 'cancelled':
      return new PlatformError(ErrorCode.CANCELLED, `The platform call was stopped (${detail})`, { requestId, upstream });
    case 'body':
      return new PlatformError(ErrorCode.UPSTREAM_ERROR, `The platform answered with an unusable body (${detail})`, { requestId, upstream });
    default:
      return new PlatformError(ErrorCode.UPSTREAM_ERROR, `The platform could not be reached (${detail})`, { requestId, upstream });
  }
}

/** For one list endpoint: each query parameter the caller's arguments set → the GraphQL argument path it came from. */
export type ArgumentPaths = Readonly<Record<string, readonly string[]>>;

/** A platform field error, addressed to the GraphQL argument it concerns (null: a parameter no argument sets). */
export interface ArgumentError {
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
export function rethrowOnArguments(paths: ArgumentPaths): (error: unknown) => never {
  return (error) => {
    if (!(error instanceof PlatformError) || error.code !== ErrorCode.BAD_USER_INPUT || error.fieldErrors.length === 0) throw error;
    const fieldErrors: ArgumentError[] = error.fieldErrors.map((fieldError) => ({
      // `status[0]` or `sort.direction` still names its parameter first.
      field: paths[fieldError.path.split(/[.[]/, 1)[0]!] ?? null,
      message: fieldError.message,
      code: fieldError.errorCode,
    }));
    const field = fieldErrors.find((fieldError) => fieldError.field !== null)?.field ?? null;
    const readdressed = new PlatformError(error.code, error.message, { requestId: String(error.extensions.requestId), fieldErrors: error.fieldErrors });
    Object.assign(readdressed.extensions, error.extensions, field ? { field, fieldErrors } : { fieldErrors });
    throw readdressed;
  };
}
