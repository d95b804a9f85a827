import { describe, expect, it } from '@jest/globals';
import { runWithRequestId } from '../../src/request/scope.ts';
import { parseErrorBody } from '../../src/platform/error-body.ts';
import { codeForStatus, errorFromResponse, retryAfterSeconds, transportError } from '../../src/platform/error-mapping.ts';
import { NO_REDACTION, TOKEN_ECHO_MIN, tokenRedactor } from '../../src/platform/token-redaction.ts';

// The error mapping's pure parts, called directly with exact inputs: every status and transport
// kind, the edges of Retry-After, of the error body's shapes and of token redaction.

describe('codeForStatus', () => {
  it('maps every status the contract names, and anything else to UPSTREAM_ERROR', () => {
    const statuses = [200, 302, 400, 401, 402, 403, 404, 405, 409, 410, 413, 414, 422, 429, 431, 500, 503];
    expect(Object.fromEntries(statuses.map((status) => [status, codeForStatus(status)]))).toEqual({
      200: 'UPSTREAM_ERROR',
      302: 'UPSTREAM_ERROR',
      400: 'BAD_USER_INPUT',
      401: 'UNAUTHENTICATED',
      402: 'UPSTREAM_ERROR',
      403: 'FORBIDDEN',
      404: 'NOT_FOUND',
      405: 'UPSTREAM_ERROR',
      409: 'CONFLICT',
      410: 'UPSTREAM_ERROR',
      413: 'BAD_USER_INPUT',
      414: 'BAD_USER_INPUT',
      422: 'BAD_USER_INPUT',
      429: 'RATE_LIMITED',
      431: 'BAD_USER_INPUT',
      500: 'UPSTREAM_ERROR',
      503: 'UPSTREAM_ERROR',
    });
  });
});

describe('transportError', () => {
  it('words each kind of failure and codes it', () => {
    const said = (kind: Parameters<typeof transportError>[0], detail: string) => {
      const error = runWithRequestId('r-t', () => transportError(kind, detail));
      return [error.extensions.code, error.message];
    };
    expect(said('timeout', 'response timeout')).toEqual(['UPSTREAM_TIMEOUT', 'The platform did not answer in time (response timeout)']);
    expect(said('breaker', 'circuit open')).toEqual(['UPSTREAM_ERROR', 'The platform is failing; calls are paused for a short cool-down']);
    expect(said('busy', '4 calls in flight and 8 waiting')).toEqual([
      'UPSTREAM_BUSY',
      'The gateway is limiting calls to this platform route (4 calls in flight and 8 waiting); try again shortly',
    ]);
    expect(said('cancelled', 'the caller closed the connection')).toEqual(['CANCELLED', 'The platform call was stopped (the caller closed the connection)']);
    expect(said('body', 'empty body')).toEqual(['UPSTREAM_ERROR', 'The platform answered with an unusable body (empty body)']);
    expect(said('network', 'ECONNREFUSED')).toEqual(['UPSTREAM_ERROR', 'The platform could not be reached (ECONNREFUSED)']);
  });

  it('names the status only when there was one', () => {
    expect(runWithRequestId('r-s', () => transportError('network', 'unexpected failure', 502)).extensions).toStrictEqual({ code: 'UPSTREAM_ERROR', upstream: { status: 502 } });
    expect(runWithRequestId('r-s', () => transportError('network', 'unexpected failure')).extensions).toStrictEqual({ code: 'UPSTREAM_ERROR' });
  });
});

describe('errorFromResponse', () => {
  it('keeps the message of a 4xx, never of a 5xx, and the platform’s codes of either', () => {
    const body = JSON.stringify({ traceId: 'tr-5', message: 'db down at Repo.java:7', errorCode: 'INTERNAL' });
    const server = runWithRequestId('r-1', () => errorFromResponse({ status: 500, body, contentType: 'application/json' }));
    expect(server.message).toBe('The platform failed to answer (HTTP 500)');
    expect(server.extensions).toStrictEqual({ code: 'UPSTREAM_ERROR', upstream: { status: 500, traceId: 'tr-5', errorCode: 'INTERNAL' } });
    const client = runWithRequestId('r-2', () => errorFromResponse({ status: 499, body, contentType: 'application/json' }));
    expect(client.message).toBe('The platform failed to answer (HTTP 499): db down at Repo.java:7');
  });

  it('a 429 with an unreadable Retry-After still waits a second; the token it echoes is cut', () => {
    const limited = runWithRequestId('r-3', () => errorFromResponse({ status: 429, body: 'slow down, abcdefghijk', retryAfter: 'soon' }, 'Bearer abcdefghijk'));
    expect(limited.message).toBe('The platform is rate limiting this caller (HTTP 429): slow down, [REDACTED]');
    expect(limited.extensions).toStrictEqual({ code: 'RATE_LIMITED', upstream: { status: 429 }, retryAfter: 1 });
  });
});

describe('retryAfterSeconds', () => {
  const now = Date.parse('2026-11-20T10:00:00.000Z');

  it('reads an HTTP date with or without its comma, a day name of any length, and rounds part of a second up', () => {
    expect(retryAfterSeconds('Friday, 20-Nov-26 10:00:10 GMT', now)).toBe(10);
    expect(retryAfterSeconds('Fri 20 Nov 2026 10:00:10 GMT', now)).toBe(10);
    expect(retryAfterSeconds('Fri, 20 Nov 2026 10:00:10 GMT', now - 1)).toBe(11);
    expect(retryAfterSeconds('Fri, 20 Nov 2026 10:00:10 GMT', now + 999)).toBe(10);
    expect(retryAfterSeconds('Fri, 20 Nov 2026 10:00:10 GMT', now + 1000)).toBe(9);
  });

  it('ignores what only looks like a date, and digits around other text', () => {
    expect(retryAfterSeconds('Fr, 20 Nov 2026 10:00:10 GMT', now)).toBeUndefined();
    expect(retryAfterSeconds('Wednesdays, 20 Nov 2026 10:00:10 GMT', now)).toBeUndefined();
    expect(retryAfterSeconds('Fri, 99 Nov 2026 10:00:10 GMT', now)).toBeUndefined();
    expect(retryAfterSeconds('x12', now)).toBeUndefined();
    expect(retryAfterSeconds('12x', now)).toBeUndefined();
    expect(retryAfterSeconds(' Fri, 20 Nov 2026 10:00:10 GMT', now)).toBe(10);
    expect(retryAfterSeconds([], now)).toBeUndefined();
  });
});

describe('parseErrorBody', () => {
  it('reads an object body with blanks around it, and field errors of shape B with every default', () => {
    const body = `  \n${JSON.stringify({ error: 'Bad Request', errors: [{}, { path: 'name', message: 'too long', errorCode: 'SIZE' }, 'x', 0] })}\n`;
    expect(parseErrorBody(body, 'application/json')).toStrictEqual({
      message: 'Bad Request',
      traceId: undefined,
      errorCode: undefined,
      errors: [
        { path: '', message: 'is invalid', errorCode: 'INVALID' },
        { path: 'name', message: 'too long', errorCode: 'SIZE' },
      ],
    });
  });

  it('an errors field that is not a list gives no field errors', () => {
    expect(parseErrorBody(JSON.stringify({ message: 'm', errors: { path: 'name' } }), 'application/json').errors).toEqual([]);
    expect(parseErrorBody(JSON.stringify({ message: 'm', errors: 'name' }), 'application/json').errors).toEqual([]);
  });

  it('plain text: its first line, from the start, cut at 200 characters; HTML by type or markup is dropped', () => {
    expect(parseErrorBody('\n\n  first\nsecond', undefined)).toStrictEqual({ message: 'first', errors: [] });
    expect(parseErrorBody(`${'y'.repeat(199)}\nsecond`, 'text/plain')).toStrictEqual({ message: 'y'.repeat(199), errors: [] });
    expect(parseErrorBody('y'.repeat(250), 'text/plain')).toStrictEqual({ message: 'y'.repeat(200), errors: [] });
    expect(parseErrorBody('[1, 2]', 'application/json')).toStrictEqual({ message: '[1, 2]', errors: [] });
    expect(parseErrorBody('Service Unavailable', 'application/xhtml+xml')).toStrictEqual({ errors: [] });
    expect(parseErrorBody('<', 'text/plain')).toStrictEqual({ errors: [] });
    expect(parseErrorBody('   ', 'text/plain')).toStrictEqual({ errors: [] });
  });

  it('reads no further into a long first line than the message and the reach of an echo', () => {
    // Eight percent-encoded echoes of an 8-character token fill 192 characters; 224 are read (200 +
    // the reach of 24), which the redaction shrinks to one cut and 32 more characters.
    const echo = '%61%62%63%64%65%66%67%68';
    const text = `${echo.repeat(8)}${'x'.repeat(500)}`;
    expect(parseErrorBody(text, 'text/plain', tokenRedactor('Bearer abcdefgh')).message).toBe(`[REDACTED]${'x'.repeat(32)}`);
  });

  it('a plain-text echo of the token is cut before the message is cut to length', () => {
    const redactor = tokenRedactor('Bearer 0123456789abcdef');
    const text = `${'z'.repeat(195)} 0123456789abcdef end`;
    expect(parseErrorBody(text, 'text/plain', redactor).message).toBe(`${'z'.repeat(195)} [RED`);
  });
});

describe('tokenRedactor', () => {
  it('needs a token: none, blank or a bare scheme redacts nothing', () => {
    for (const authorization of [undefined, '', '   ', 'Bearer ']) expect(tokenRedactor(authorization)).toBe(NO_REDACTION);
    expect(NO_REDACTION.redact('anything 0123456789')).toBe('anything 0123456789');
    expect(NO_REDACTION.reach).toBe(0);
  });

  it('takes the token after the scheme and any run of blanks; without a scheme the whole value is the token', () => {
    expect(tokenRedactor('Bearer \t  s3cr3t-t0ken').redact('got s3cr3t-t0ken here')).toBe('got [REDACTED] here');
    expect(tokenRedactor('Bearer s3cr3t-t0ken ').redact('got s3cr3t-t0ken here')).toBe('got [REDACTED] here');
    expect(tokenRedactor('s3cr3t-t0ken').redact('got s3cr3t-t0ken here')).toBe('got [REDACTED] here');
    // Only the scheme goes: "Bearer" itself is not part of the token.
    expect(tokenRedactor('Bearer s3cr3t-t0ken').redact('Bearer scheme')).toBe('Bearer scheme');
  });

  it('reaches three characters per token character (each may be percent-encoded)', () => {
    expect(tokenRedactor('Bearer 0123456789').reach).toBe(30);
  });

  it('a token shorter than an echo run is cut only whole', () => {
    const short = tokenRedactor('Bearer abc');
    expect(short.redact('abc and ab and abcabc')).toBe('[REDACTED] and ab and [REDACTED][REDACTED]');
  });

  it(`cuts every run of ${TOKEN_ECHO_MIN} token characters, at the very start and end, as one cut per run`, () => {
    const redactor = tokenRedactor('Bearer ABCDEFGHIJKL');
    expect(redactor.redact('CDEFGHIJ')).toBe('[REDACTED]');
    expect(redactor.redact('CDEFGHIJ!')).toBe('[REDACTED]!');
    expect(redactor.redact('!CDEFGHIJ')).toBe('![REDACTED]');
    expect(redactor.redact('ABCDEFGH+EFGHIJKL')).toBe('[REDACTED]+[REDACTED]');
    expect(redactor.redact('BCDEFGH')).toBe('BCDEFGH');
    expect(redactor.redact('')).toBe('');
  });

  it('decodes ASCII percent-encoding, only well-formed escapes of ASCII characters', () => {
    const redactor = tokenRedactor('Bearer ab/cd+efgh');
    expect(redactor.redact('x=ab%2Fcd%2befgh;')).toBe('x=[REDACTED];');
    // A malformed escape is text, not a character of the token.
    expect(redactor.redact('ab%2Gcd+efgh')).toBe('ab%2Gcd+efgh');
    expect(redactor.redact('ab%2')).toBe('ab%2');
    // %80 and above are bytes of a multi-byte character, never one ASCII character of the token.
    const latin = tokenRedactor('Bearer ab\u0080cdefgh');
    expect(latin.redact('ab%80cdefgh')).toBe('ab%80cdefgh');
    expect(latin.redact('ab\u0080cdefgh')).toBe('[REDACTED]');
    const del = tokenRedactor('Bearer ab\u007fcdefgh');
    expect(del.redact('ab%7fcdefgh')).toBe('[REDACTED]');
  });
});

describe('tokenRedactor, every spelling of an echo docs/security.md names', () => {
  const TOKEN = 'ab/cd+efghij';
  const redactor = tokenRedactor(`Bearer ${TOKEN}`);
  /** Each character of the token through `spell`. */
  const each = (spell: (char: string) => string) => [...TOKEN].map(spell).join('');
  const hex = (char: string) => char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');

  it('in any letter case', () => {
    expect(redactor.redact(`Invalid token ${TOKEN.toUpperCase()}.`)).toBe('Invalid token [REDACTED].');
    expect(redactor.redact('token AB/Cd+EfGh-')).toBe('token [REDACTED]-');
  });

  it('percent-encoded twice or more, fully or partly', () => {
    expect(redactor.redact('x=ab%252Fcd+efghij;')).toBe('x=[REDACTED];');
    expect(redactor.redact('x=ab%25252Fcd%25252Befghij;')).toBe('x=[REDACTED];');
    expect(redactor.redact(`x=${each((char) => `%25${hex(char)}`)};`)).toBe('x=[REDACTED];');
    // An escape whose own characters are escaped: %2F written as %25%32%46.
    expect(redactor.redact('x=ab%25%32%46cd+efghij;')).toBe('x=[REDACTED];');
  });

  it('as HTML character references, decimal, hexadecimal or named, once or twice encoded', () => {
    expect(redactor.redact('<p>ab&#47;cd&#x2B;efghij</p>')).toBe('<p>[REDACTED]</p>');
    expect(redactor.redact('<p>ab&sol;cd&plus;efghij</p>')).toBe('<p>[REDACTED]</p>');
    expect(redactor.redact(`<p>${each((char) => `&#${char.charCodeAt(0)};`)}</p>`)).toBe('<p>[REDACTED]</p>');
    expect(redactor.redact('<p>ab&amp;#47;cd&amp;plus;efghij</p>')).toBe('<p>[REDACTED]</p>');
    // Not a reference: no closing semicolon, an unknown name.
    expect(redactor.redact('ab&#47cd+efgh')).toBe('ab&#47cd+efgh');
    expect(redactor.redact('ab&slash;cd+efgh')).toBe('ab&slash;cd+efgh');
  });

  it('with whitespace or zero-width characters between its characters', () => {
    expect(redactor.redact(`token ${[...TOKEN].join(' ')} end`)).toBe('token [REDACTED] end');
    expect(redactor.redact(`token ${[...TOKEN].join('\u200b')} end`)).toBe('token [REDACTED] end');
    expect(redactor.redact(`token ${[...TOKEN].join('\u2060\ufeff\n')} end`)).toBe('token [REDACTED] end');
    expect(redactor.redact(`token ${[...TOKEN].join('&#8203;')} end`)).toBe('token [REDACTED] end');
    // Seven characters are still no echo.
    expect(redactor.redact('a b / c d + e')).toBe('a b / c d + e');
  });

  it('as base64 or base64url, of the token or of the whole header', () => {
    const bytes = Buffer.from(TOKEN);
    expect(redactor.redact(`auth=${bytes.toString('base64')};`)).toBe('auth=[REDACTED];');
    expect(redactor.redact(`auth=${bytes.toString('base64url')};`)).toBe('auth=[REDACTED];');
    expect(redactor.redact(`auth=${bytes.toString('base64').toLowerCase()};`)).toBe('auth=[REDACTED];');
    // "Bearer ab/cd+efghij": the group holding " ab" and the last, partial one stay; 2 and 1 characters of the token.
    const header = Buffer.from(`Bearer ${TOKEN}`).toString('base64');
    expect(redactor.redact(`auth=${header}`)).toBe(`auth=${header.slice(0, 12)}[REDACTED]${header.slice(24)}`);
    // Six bytes of the token are eight base64 characters: an echo. Five are not.
    expect(redactor.redact(bytes.subarray(3, 9).toString('base64'))).toBe('[REDACTED]');
    expect(redactor.redact(bytes.subarray(3, 8).toString('base64'))).toBe(bytes.subarray(3, 8).toString('base64'));
  });

  it('in every text of a JSON error body', () => {
    const body = JSON.stringify({
      message: `Invalid token ${TOKEN.toUpperCase()}`,
      traceId: Buffer.from(TOKEN).toString('base64'),
      errors: [{ path: 'authorization', message: [...TOKEN].join('\u200b'), errorCode: 'ab%252Fcd%252Befghij' }],
    });
    expect(parseErrorBody(body, 'application/json', redactor)).toStrictEqual({
      message: 'Invalid token [REDACTED]',
      traceId: '[REDACTED]',
      errorCode: undefined,
      errors: [{ path: 'authorization', message: '[REDACTED]', errorCode: '[REDACTED]' }],
    });
  });
});
