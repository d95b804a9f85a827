import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import nock from 'nock';
import { exceptionsQuery, fetchExceptions } from '../../src/exceptions/api.ts';
import { RequestClient } from '../support/request-client.ts';
import { parseErrorBody } from '../../src/platform/error-body.ts';
import { runWithRequestId } from '../../src/request/scope.ts';
import { errorFromResponse, retryAfterSeconds } from '../../src/platform/error-mapping.ts';
import type { PolicyChain} from '../../src/platform/policy-chain.ts';
import { type UpstreamCallEvent } from '../../src/platform/policy-chain.ts';
import { useNock } from './nock-guard.ts';
import { PLATFORM_URL, TOKEN, eventsOf, failure, json, observedPlatformHttp } from './support.ts';

useNock();

const REQUEST_ID = 'req-map-1';
const TIMESTAMP = '2026-11-20T10:15:30.123Z';

let http: PolicyChain;
let events: UpstreamCallEvent[];
let client: RequestClient;

beforeEach(() => {
  // Retries have their own suite; here every status must surface from a single request.
  ({ http, events } = observedPlatformHttp());
  client = new RequestClient(http, TOKEN, REQUEST_ID);
});

afterEach(() => http.close());

const shapeA = (traceId: string, error: string, message: string) => ({ timestamp: TIMESTAMP, traceId, error, message });

describe('status rows', () => {
  const rows = [
    { status: 401, code: 'UNAUTHENTICATED', reason: 'The platform rejected the access token' },
    { status: 403, code: 'FORBIDDEN', reason: 'The access token is not allowed to do this' },
    { status: 404, code: 'NOT_FOUND', reason: 'Not found on the platform' },
    { status: 409, code: 'CONFLICT', reason: 'The platform reported a conflict' },
    { status: 413, code: 'BAD_USER_INPUT', reason: 'The platform rejected the request' },
    { status: 414, code: 'BAD_USER_INPUT', reason: 'The platform rejected the request' },
    { status: 431, code: 'BAD_USER_INPUT', reason: 'The platform rejected the request' },
  ] as const;

  for (const { status, code, reason } of rows) {
    it(`${status} → ${code}, with the platform's message, trace id and status`, async () => {
      const scope = nock(PLATFORM_URL)
        .get('/v1/documents/doc-1')
        .reply(status, json(shapeA(`trace-${status}`, 'Some Error', `Platform says ${status}`)), { 'content-type': 'application/json' });

      const error = await failure(client.get('documents.get', '/v1/documents/doc-1'));

      scope.done();
      expect(error.message).toBe(`${reason} (HTTP ${status}): Platform says ${status}`);
      expect(error.extensions).toEqual({ code, upstream: { status, traceId: `trace-${status}` } });
      expect(error.fieldErrors).toEqual([]);
      expect(eventsOf(events)).toEqual([
        { route: 'documents.get', method: 'GET', status, retries: 0, requestId: REQUEST_ID, errorCode: code },
      ]);
    });
  }

  for (const status of [400, 422] as const) {
    it(`${status} → BAD_USER_INPUT with the platform's field errors parsed`, async () => {
      const scope = nock(PLATFORM_URL)
        .put('/v1/documents/passport', { documentType: 'passport', name: '' })
        .reply(
          status,
          json({
            timestamp: TIMESTAMP,
            traceId: `trace-${status}`,
            message: 'Validation failed',
            errorCode: 'VALIDATION_ERROR',
            errors: [
              { path: 'name', message: 'length must be between 1 and 40', errorCode: 'SIZE' },
              { path: 'expiryDate', message: 'is required for passport', errorCode: 'REQUIRED' },
            ],
          }),
          { 'content-type': 'application/json' },
        );

      const error = await failure(client.put('documents.update', '/v1/documents/passport', { documentType: 'passport', name: '' }));

      scope.done();
      expect(error.message).toBe(`The platform rejected the request (HTTP ${status}): Validation failed`);
      expect(error.extensions).toEqual({
        code: 'BAD_USER_INPUT',
        upstream: { status, traceId: `trace-${status}`, errorCode: 'VALIDATION_ERROR' },
      });
      expect(error.fieldErrors).toEqual([
        { path: 'name', message: 'length must be between 1 and 40', errorCode: 'SIZE' },
        { path: 'expiryDate', message: 'is required for passport', errorCode: 'REQUIRED' },
      ]);
      // The field errors are for the mutation payload, not for the client-facing extensions.
      expect(error.extensions).not.toHaveProperty('fieldErrors');
    });
  }

  it('429 → RATE_LIMITED with retryAfter from delta-seconds', async () => {
    const scope = nock(PLATFORM_URL)
      .get('/exceptions')
      .reply(429, json(shapeA('trace-429', 'Too Many Requests', 'Slow down')), { 'content-type': 'application/json', 'retry-after': '7' });

    const error = await failure(client.get('exceptions.list', '/exceptions'));

    scope.done();
    expect(error.message).toBe('The platform is rate limiting this caller (HTTP 429): Slow down');
    expect(error.extensions).toEqual({ code: 'RATE_LIMITED', upstream: { status: 429, traceId: 'trace-429' }, retryAfter: 7 });
  });

  it('429 → RATE_LIMITED with retryAfter from an HTTP date, counted from now', async () => {
    // Aligned to a whole second so the only slack is the time the call itself takes.
    const at = Math.ceil(Date.now() / 1000) * 1000 + 60_000;
    const scope = nock(PLATFORM_URL).get('/exceptions').reply(429, '', { 'retry-after': new Date(at).toUTCString() });

    const error = await failure(client.get('exceptions.list', '/exceptions'));

    scope.done();
    expect(error.extensions.code).toBe('RATE_LIMITED');
    expect(error.extensions.retryAfter).toBeGreaterThanOrEqual(60);
    expect(error.extensions.retryAfter).toBeLessThanOrEqual(61);
    expect(error.message).toBe('The platform is rate limiting this caller (HTTP 429)');
  });

  it('429 without Retry-After still tells the client to wait a second', async () => {
    const scope = nock(PLATFORM_URL).get('/exceptions').reply(429, '');

    const error = await failure(client.get('exceptions.list', '/exceptions'));

    scope.done();
    expect(error.extensions).toEqual({ code: 'RATE_LIMITED', upstream: { status: 429 }, retryAfter: 1 });
  });

  for (const status of [500, 502, 503, 504] as const) {
    it(`${status} → UPSTREAM_ERROR without repeating the platform's internals`, async () => {
      const scope = nock(PLATFORM_URL)
        .get('/v1/acceptances')
        .reply(status, json(shapeA(`trace-${status}`, 'Internal Server Error', 'NullPointerException at AcceptanceService.java:42')), {
          'content-type': 'application/json',
        });

      const error = await failure(client.get('acceptances.list', '/v1/acceptances'));

      scope.done();
      expect(error.message).toBe(`The platform failed to answer (HTTP ${status})`);
      expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: { status, traceId: `trace-${status}` } });
      expect(eventsOf(events)).toEqual([
        { route: 'acceptances.list', method: 'GET', status, retries: 0, requestId: REQUEST_ID, errorCode: 'UPSTREAM_ERROR' },
      ]);
    });
  }

  it('a redirect is not followed (it could carry the token elsewhere) and is an upstream fault', async () => {
    const scope = nock(PLATFORM_URL).get('/v1/documents/doc-1').reply(302, '', { location: 'http://elsewhere.test/steal' });

    const error = await failure(client.get('documents.get', '/v1/documents/doc-1'));

    scope.done();
    expect(error.message).toBe('The platform failed to answer (HTTP 302)');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: { status: 302 } });
  });
});

describe('error body shapes', () => {
  async function failWith(status: number, body: string, headers: Record<string, string> = {}) {
    const scope = nock(PLATFORM_URL).get('/v1/documents/doc-9').reply(status, body, headers);
    // A new client per call: one client deduplicates identical GETs, failures included.
    const caller = new RequestClient(http, TOKEN, REQUEST_ID);
    const error = await failure(caller.get('documents.get', '/v1/documents/doc-9'));
    scope.done();
    return error;
  }

  it('shape A: message preferred, `error` used when there is no message', async () => {
    const withMessage = await failWith(404, json(shapeA('t-a1', 'Not Found', 'Document doc-9 does not exist')), { 'content-type': 'application/json' });
    expect(withMessage.message).toBe('Not found on the platform (HTTP 404): Document doc-9 does not exist');
    expect(withMessage.extensions.upstream).toEqual({ status: 404, traceId: 't-a1' });

    const errorOnly = await failWith(403, json({ timestamp: TIMESTAMP, traceId: 't-a2', error: 'Forbidden' }), { 'content-type': 'application/json' });
    expect(errorOnly.message).toBe('The access token is not allowed to do this (HTTP 403): Forbidden');
    expect(errorOnly.extensions.upstream).toEqual({ status: 403, traceId: 't-a2' });
  });

  it('shape B: incomplete or non-object field errors are normalised, not dropped silently', async () => {
    const error = await failWith(
      422,
      json({
        timestamp: TIMESTAMP,
        traceId: 't-b',
        message: 'Invalid document',
        errorCode: 'INVALID_DOCUMENT',
        errors: [{ path: 'metadata.k7', message: 'at most 6 entries', errorCode: 'MAX_ENTRIES' }, { path: 'issuingDate' }, 'garbage', null],
      }),
      { 'content-type': 'application/json' },
    );
    expect(error.message).toBe('The platform rejected the request (HTTP 422): Invalid document');
    expect(error.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      upstream: { status: 422, traceId: 't-b', errorCode: 'INVALID_DOCUMENT' },
    });
    expect(error.fieldErrors).toEqual([
      { path: 'metadata.k7', message: 'at most 6 entries', errorCode: 'MAX_ENTRIES' },
      { path: 'issuingDate', message: 'is invalid', errorCode: 'INVALID' },
    ]);
  });

  it('plain text: the first line, capped, becomes the detail', async () => {
    const conflict = await failWith(409, 'Document version 3 was replaced by version 4\n\tat com.platform.Documents.update', { 'content-type': 'text/plain' });
    expect(conflict.message).toBe('The platform reported a conflict (HTTP 409): Document version 3 was replaced by version 4');
    expect(conflict.extensions).toEqual({ code: 'CONFLICT', upstream: { status: 409 } });

    const long = await failWith(400, 'x'.repeat(500), { 'content-type': 'text/plain' });
    expect(long.message).toBe(`The platform rejected the request (HTTP 400): ${'x'.repeat(200)}`);
  });

  it("a proxy's HTML page never reaches the message", async () => {
    const page = '<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body><center><h1>403 Forbidden</h1></center><hr><center>nginx</center></body>\r\n</html>\r\n';
    const forbidden = await failWith(403, page, { 'content-type': 'text/html' });
    expect(forbidden.message).toBe('The access token is not allowed to do this (HTTP 403)');
    expect(forbidden.extensions).toEqual({ code: 'FORBIDDEN', upstream: { status: 403 } });

    // Mislabelled as text: recognised by its markup.
    const mislabelled = await failWith(404, '\n  <!DOCTYPE html><html><body>Not Found</body></html>', { 'content-type': 'text/plain' });
    expect(mislabelled.message).toBe('Not found on the platform (HTTP 404)');

    const badGateway = await failWith(502, '<html><body><h1>502 Bad Gateway</h1></body></html>', { 'content-type': 'text/html; charset=utf-8' });
    expect(badGateway.message).toBe('The platform failed to answer (HTTP 502)');
    expect(badGateway.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: { status: 502 } });
    for (const error of [forbidden, mislabelled, badGateway]) expect(error.message).not.toMatch(/[<>]/);
  });

  it('malformed JSON: the status still decides, with a generic message', async () => {
    const error = await failWith(400, '{"timestamp":"2026-11-20T10:15:30.123Z","traceId":"t-x","message":"size must', { 'content-type': 'application/json' });
    expect(error.message).toBe('The platform rejected the request (HTTP 400)');
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', upstream: { status: 400 } });
    expect(error.fieldErrors).toEqual([]);
  });

  it('empty body: the status still decides', async () => {
    const notFound = await failWith(404, '');
    expect(notFound.message).toBe('Not found on the platform (HTTP 404)');
    expect(notFound.extensions).toEqual({ code: 'NOT_FOUND', upstream: { status: 404 } });

    const unauthorized = await failWith(401, '   \n');
    expect(unauthorized.message).toBe('The platform rejected the access token (HTTP 401)');
    expect(unauthorized.extensions).toEqual({ code: 'UNAUTHENTICATED', upstream: { status: 401 } });

    const serverError = await failWith(500, '');
    expect(serverError.message).toBe('The platform failed to answer (HTTP 500)');
    expect(serverError.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: { status: 500 } });
  });
});

describe('mapping functions', () => {
  it('parseErrorBody reads both platform shapes and tolerates anything else', () => {
    expect(parseErrorBody(json(shapeA('t1', 'Not Found', 'gone')), 'application/json')).toEqual({ message: 'gone', traceId: 't1', errors: [] });
    expect(parseErrorBody(json({ traceId: '', message: '', error: '', errorCode: 42 }), 'application/json')).toEqual({
      message: undefined,
      traceId: undefined,
      errorCode: undefined,
      errors: [],
    });
    expect(parseErrorBody('{broken', 'application/json')).toEqual({ errors: [] });
    expect(parseErrorBody('', undefined)).toEqual({ errors: [] });
    expect(parseErrorBody('<p>hi</p>', undefined)).toEqual({ errors: [] });
    expect(parseErrorBody('upstream connect error', 'text/html')).toEqual({ errors: [] });
    expect(parseErrorBody('  quota exceeded\nmore', 'text/plain')).toEqual({ message: 'quota exceeded', errors: [] });
  });

  it('retryAfterSeconds reads delta-seconds and HTTP dates and ignores nonsense', () => {
    const now = Date.parse('2026-11-20T10:00:00.000Z');
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds(' 3 ', now)).toBe(3);
    expect(retryAfterSeconds('0', now)).toBe(0);
    expect(retryAfterSeconds('Fri, 20 Nov 2026 10:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('Fri, 20 Nov 2026 10:00:30 GMT', now + 500)).toBe(30);
    expect(retryAfterSeconds('Fri, 20 Nov 2026 09:59:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds(['9', '10'], now)).toBe(9);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    // V8's lenient Date.parse reads these as dates in 2001; RFC 9110 says to ignore invalid values.
    expect(retryAfterSeconds('-5', now)).toBeUndefined();
    expect(retryAfterSeconds('1.5', now)).toBeUndefined();
    expect(retryAfterSeconds('5 apples', now)).toBeUndefined();
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
    expect(retryAfterSeconds('', now)).toBeUndefined();
  });

  it('errorFromResponse only sets retryAfter for 429', () => {
    const unavailable = runWithRequestId('r1', () => errorFromResponse({ status: 503, body: '', retryAfter: '30' }));
    expect(unavailable.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstream: { status: 503 } });
    const limited = runWithRequestId('r2', () => errorFromResponse({ status: 429, body: '', retryAfter: '30' }));
    expect(limited.extensions).toEqual({ code: 'RATE_LIMITED', upstream: { status: 429 }, retryAfter: 30 });
  });
});

describe('field errors of a list request, addressed to GraphQL arguments', () => {
  it('maps each parameter to its argument (indexed or dotted paths too); a parameter no argument sets has field null', async () => {
    const body = {
      timestamp: TIMESTAMP,
      traceId: 'trace-list',
      message: 'Request validation failed',
      errorCode: 'VALIDATION_ERROR',
      errors: [
        { path: 'createdDateFrom', message: 'is not a date', errorCode: 'INVALID_FORMAT' },
        { path: 'status[1]', message: 'must be one of NEW', errorCode: 'INVALID_VALUE' },
        { path: 'page', message: 'must be at least 0', errorCode: 'OUT_OF_RANGE' },
      ],
    };
    const scope = nock(PLATFORM_URL).get('/exceptions').query(true).reply(400, json(body), { 'content-type': 'application/json' });

    const error = await failure(fetchExceptions(client, exceptionsQuery({ createdFrom: '2026-03-01T00:00:00' }, null), { page: 0, size: 5 }));

    scope.done();
    expect(error.message).toBe('The platform rejected the request (HTTP 400): Request validation failed');
    expect(error.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      upstream: { status: 400, traceId: 'trace-list', errorCode: 'VALIDATION_ERROR' },
      field: ['filter', 'createdFrom'],
      fieldErrors: [
        { field: ['filter', 'createdFrom'], message: 'is not a date', code: 'INVALID_FORMAT' },
        { field: ['filter', 'status'], message: 'must be one of NEW', code: 'INVALID_VALUE' },
        { field: null, message: 'must be at least 0', code: 'OUT_OF_RANGE' },
      ],
    });
  });

  it('leaves other failures untouched', async () => {
    const scope = nock(PLATFORM_URL).get('/exceptions').query(true).reply(400, json(shapeA('trace-a', 'Bad Request', 'No')), { 'content-type': 'application/json' });
    const error = await failure(fetchExceptions(client, exceptionsQuery(null, null), { page: 0, size: 5 }));
    scope.done();
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', upstream: { status: 400, traceId: 'trace-a' } });
  });
});
