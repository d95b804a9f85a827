import { describe, expect, it } from '@jest/globals';
import { parseErrorBody } from '../../src/platform/error-body.ts';
import { tokenRedactor, type Redactor } from '../../src/platform/token-redaction.ts';

// The platform's error body, read from each of its two JSON shapes, from plain text, and from what
// says nothing (HTML, broken JSON, nothing at all); every text taken from it goes through the redactor.

/** Cuts every `SECRET` out; reads six characters past a cut so that a `SECRET` straddling it is still seen. */
const SECRETS: Redactor = { redact: (text) => text.replaceAll('SECRET', '[X]'), reach: 6 };

describe('parseErrorBody, the JSON shapes', () => {
  it('reads the short shape {timestamp,traceId,error,message}: message and trace id, no code, no field errors', () => {
    const body = JSON.stringify({ timestamp: '2024-05-01T10:00:00Z', traceId: 't-1', error: 'Not Found', message: 'Document 7 not found' });
    expect(parseErrorBody(body, 'application/json')).toStrictEqual({ message: 'Document 7 not found', traceId: 't-1', errorCode: undefined, errors: [] });
  });

  it('reads the validation shape with its code and every field error in order', () => {
    const body = JSON.stringify({
      timestamp: '2024-05-01T10:00:00Z',
      traceId: 't-2',
      message: 'Validation failed',
      errorCode: 'VALIDATION_ERROR',
      errors: [
        { path: 'title', message: 'must not be blank', errorCode: 'NOT_BLANK' },
        { path: 'status[0]', message: 'is unknown', errorCode: 'UNKNOWN_VALUE' },
      ],
    });
    expect(parseErrorBody(body, 'application/json')).toStrictEqual({
      message: 'Validation failed',
      traceId: 't-2',
      errorCode: 'VALIDATION_ERROR',
      errors: [
        { path: 'title', message: 'must not be blank', errorCode: 'NOT_BLANK' },
        { path: 'status[0]', message: 'is unknown', errorCode: 'UNKNOWN_VALUE' },
      ],
    });
  });

  it('takes `error` as the message when `message` is missing, empty or not a string', () => {
    expect(parseErrorBody('{"error":"Bad Request"}', undefined).message).toBe('Bad Request');
    expect(parseErrorBody('{"message":"","error":"Bad Request"}', undefined).message).toBe('Bad Request');
    expect(parseErrorBody('{"message":42,"error":"Bad Request"}', undefined).message).toBe('Bad Request');
    expect(parseErrorBody('{"message":"Conflict","error":"Bad Request"}', undefined).message).toBe('Conflict');
  });

  it('leaves out a trace id, code or message that is empty or not a string', () => {
    expect(parseErrorBody('{"message":null,"error":"","traceId":7,"errorCode":["E"]}', 'application/json')).toStrictEqual({
      message: undefined,
      traceId: undefined,
      errorCode: undefined,
      errors: [],
    });
  });

  it('gives a field error missing its parts an empty path, "is invalid" and INVALID, and skips entries that are not objects', () => {
    const body = JSON.stringify({
      errors: [null, 'title is wrong', 5, {}, { path: '', message: '', errorCode: '' }, { path: ['title'], message: 3, errorCode: false }, { path: 'title' }],
    });
    expect(parseErrorBody(body, 'application/json').errors).toEqual([
      { path: '', message: 'is invalid', errorCode: 'INVALID' },
      { path: '', message: 'is invalid', errorCode: 'INVALID' },
      { path: '', message: 'is invalid', errorCode: 'INVALID' },
      { path: 'title', message: 'is invalid', errorCode: 'INVALID' },
    ]);
  });

  it('reads no field errors when `errors` is not a list', () => {
    expect(parseErrorBody('{"message":"m","errors":{"path":"title"}}', 'application/json')).toStrictEqual({ message: 'm', traceId: undefined, errorCode: undefined, errors: [] });
    expect(parseErrorBody('{"message":"m","errors":"title"}', 'application/json').errors).toEqual([]);
  });

  it('reads JSON surrounded by white space, whatever the content type says', () => {
    expect(parseErrorBody('\n  {"message":"Gone","traceId":"t-3"}  \n', 'text/html')).toStrictEqual({ message: 'Gone', traceId: 't-3', errorCode: undefined, errors: [] });
  });

  it('reads nothing from JSON that does not parse', () => {
    expect(parseErrorBody('{"message":"cut short', 'application/json')).toStrictEqual({ errors: [] });
    expect(parseErrorBody('{not json at all}', undefined)).toStrictEqual({ errors: [] });
  });
});

describe('parseErrorBody, text that is not JSON', () => {
  it('takes the first line of plain text, trimmed, as the message', () => {
    expect(parseErrorBody('  Service unavailable\nretry later\n', 'text/plain')).toStrictEqual({ message: 'Service unavailable', errors: [] });
    expect(parseErrorBody('upstream connect error', undefined)).toStrictEqual({ message: 'upstream connect error', errors: [] });
  });

  it('takes the first line of a CRLF body without its carriage return', () => {
    expect(parseErrorBody('Bad gateway\r\nmore', 'text/plain')).toStrictEqual({ message: 'Bad gateway', errors: [] });
    expect(parseErrorBody('Bad gateway\r', 'text/plain')).toStrictEqual({ message: 'Bad gateway', errors: [] });
  });

  it('cuts a plain-text message to 200 characters, even when its first line ends later', () => {
    expect(parseErrorBody(`${'x'.repeat(250)}\nsecond line`, 'text/plain')).toStrictEqual({ message: 'x'.repeat(200), errors: [] });
    expect(parseErrorBody('y'.repeat(200), 'text/plain')).toStrictEqual({ message: 'y'.repeat(200), errors: [] });
  });

  it('reads nothing from HTML, by content type or by its first character', () => {
    expect(parseErrorBody('502 Bad Gateway', 'text/html; charset=utf-8')).toStrictEqual({ errors: [] });
    expect(parseErrorBody('<html><body>502 Bad Gateway</body></html>', undefined)).toStrictEqual({ errors: [] });
    expect(parseErrorBody('  <h1>Error</h1>', 'text/plain')).toStrictEqual({ errors: [] });
  });

  it('reads nothing from an empty or blank body', () => {
    expect(parseErrorBody('', 'application/json')).toStrictEqual({ errors: [] });
    expect(parseErrorBody(' \n\t ', undefined)).toStrictEqual({ errors: [] });
  });
});

describe('parseErrorBody, redaction', () => {
  it('redacts every text taken from a JSON body, after its escapes are read', () => {
    const body = JSON.stringify({
      traceId: 't-SECRET',
      message: 'Invalid token SECRET',
      errorCode: 'SECRET_CODE',
      errors: [{ path: 'SECRET', message: 'token SECRET rejected', errorCode: 'BAD_SECRET' }],
    }).replace('Invalid token SECRET', 'Invalid token \\u0053ECRET');
    expect(parseErrorBody(body, 'application/json', SECRETS)).toStrictEqual({
      message: 'Invalid token [X]',
      traceId: 't-[X]',
      errorCode: '[X]_CODE',
      errors: [{ path: '[X]', message: 'token [X] rejected', errorCode: 'BAD_[X]' }],
    });
  });

  it('redacts the `error` text when it stands in for the message', () => {
    expect(parseErrorBody('{"error":"no SECRET here"}', undefined, SECRETS).message).toBe('no [X] here');
  });

  it('redacts plain text before cutting it, reading as far past the cut as the redactor asks', () => {
    expect(parseErrorBody(`${'a'.repeat(197)}SECRET and more`, 'text/plain', SECRETS)).toStrictEqual({ message: `${'a'.repeat(197)}[X]`, errors: [] });
    expect(parseErrorBody(`SECRET${'b'.repeat(300)}`, 'text/plain', SECRETS)).toStrictEqual({ message: `[X]${'b'.repeat(197)}`, errors: [] });
  });

  it('without a redactor, cuts plain text at 200 characters as it is', () => {
    expect(parseErrorBody(`${'a'.repeat(197)}SECRET and more`, 'text/plain')).toStrictEqual({ message: `${'a'.repeat(197)}SEC`, errors: [] });
  });

  it("cuts the caller's token out of the platform's message with the token redactor", () => {
    const redactor = tokenRedactor('Bearer tok-0123456789abcdef');
    expect(parseErrorBody('{"message":"Invalid token tok-0123456789abcdef","traceId":"t-4"}', 'application/json', redactor)).toStrictEqual({
      message: 'Invalid token [REDACTED]',
      traceId: 't-4',
      errorCode: undefined,
      errors: [],
    });
    expect(parseErrorBody('Invalid token tok-0123456789abcdef\n', 'text/plain', redactor)).toStrictEqual({ message: 'Invalid token [REDACTED]', errors: [] });
  });
});
