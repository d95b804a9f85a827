import { describe, expect, it } from '@jest/globals';
import { runWithRequestId } from '../../src/request/scope.ts';
import { parseErrorBody } from '../../src/platform/error-body.ts';
import { codeForStatus, errorFromResponse, retryAfterSeconds, transportError } from '../../src/platform/error-mapping.ts';
import { tokenRedactor } from '../../src/platform/token-redaction.ts';

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
    // Eight percent-encoded echoes of an 8-character token fill 192 characters; 296 are read (200 +
    // the reach of 96), which the redaction shrinks to one cut and 104 more characters.
    const echo = '%61%62%63%64%65%66%67%68';
    const text = `${echo.repeat(8)}${'x'.repeat(500)}`;
    expect(parseErrorBody(text, 'text/plain', tokenRedactor('Bearer abcdefgh')).message).toBe(`[REDACTED]${'x'.repeat(104)}`);
  });

  it('a plain-text echo of the token is cut before the message is cut to length', () => {
    const redactor = tokenRedactor('Bearer 0123456789abcdef');
    const text = `${'z'.repeat(195)} 0123456789abcdef end`;
    expect(parseErrorBody(text, 'text/plain', redactor).message).toBe(`${'z'.repeat(195)} [RED`);
  });
});
