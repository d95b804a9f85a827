import type { PlatformFieldError } from './platform-error.ts';
import { NO_REDACTION, type Redactor } from './token-redaction.ts';

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

/** The first line (LF or CRLF), read no further than `max` characters (a body can be large; only its start is used). */
function firstLine(text: string, max: number): string {
  const head = text.slice(0, max);
  const end = head.indexOf('\n');
  const line = end === -1 ? head : head.slice(0, end);
  // A CRLF body's line ends in a carriage return, which is no part of the message.
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
