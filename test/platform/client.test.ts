import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import nock from 'nock';
import { createLogger } from '../../src/logger.ts';
import { runWithRequestId } from '../../src/request/scope.ts';
import { pathSegment, queryString } from '../../src/platform/client.ts';
import { RequestClient } from '../support/request-client.ts';
import type { PolicyChain} from '../../src/platform/policy-chain.ts';
import { type UpstreamCallEvent } from '../../src/platform/policy-chain.ts';
import { useNock } from './nock-guard.ts';
import { PLATFORM_URL, TOKEN, TOKEN_SECRET, failure, json, syncFailure, observedPlatformHttp } from './support.ts';

useNock();

const REQUEST_ID = 'req-client-1';
const page = (ids: string[]) => ({ totalElements: ids.length, totalPages: 1, number: 0, numberOfElements: ids.length, hasNext: false, content: ids.map((id) => ({ id })) });

let http: PolicyChain;
let events: UpstreamCallEvent[];

beforeEach(() => {
  ({ http, events } = observedPlatformHttp());
});

afterEach(() => http.close());

describe('credentials', () => {
  const UNAUTHENTICATED = 'Send the platform access token as "Authorization: Bearer <token>"';

  for (const authorization of [undefined, '', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNzd29yZA==', `Token ${TOKEN_SECRET}`, TOKEN_SECRET]) {
    it(`${JSON.stringify(authorization)} → UNAUTHENTICATED before any call`, async () => {
      const client = new RequestClient(http, authorization, REQUEST_ID);

      for (const call of [() => client.get('exceptions.list', '/exceptions'), () => client.put('documents.update', '/v1/documents/tax', { name: 'Tax' })]) {
        const error = await failure(call());
        expect(error.message).toBe(UNAUTHENTICATED);
        expect(error.extensions).toEqual({ code: 'UNAUTHENTICATED' });
      }
      // No interceptor is defined: any request would also fail the suite's guard.
      expect(events).toEqual([]);
      expect(client.calls).toBe(0);
    });
  }

  it('sends the Authorization header in its one canonical spelling, and the request id as received', async () => {
    const authorization = `bearer  ${TOKEN_SECRET}`;
    const scope = nock(PLATFORM_URL, { reqheaders: { authorization: `Bearer ${TOKEN_SECRET}`, 'x-request-id': 'req-exact-9', accept: 'application/json' } })
      .get('/exceptions')
      .reply(200, json(page(['e1'])))
      .put('/v1/documents/tax', { name: 'Tax' })
      .reply(200, json({ id: 'tax' }));
    const client = new RequestClient(http, authorization, 'req-exact-9');

    await expect(client.get('exceptions.list', '/exceptions')).resolves.toEqual(page(['e1']));
    await expect(client.put('documents.update', '/v1/documents/tax', { name: 'Tax' })).resolves.toEqual({ id: 'tax' });

    scope.done();
  });

  describe('the token never leaks into errors or events', () => {
    const echoes: [string, number, string, Record<string, string>][] = [
      ['a plain-text 401', 401, `Invalid token ${TOKEN_SECRET}`, { 'content-type': 'text/plain' }],
      ['a shape A 403', 403, json({ timestamp: 't', traceId: 'tr', error: 'Forbidden', message: `Token ${TOKEN_SECRET} lacks scope documents:write` }), { 'content-type': 'application/json' }],
      [
        'a shape B 422',
        422,
        json({
          timestamp: 't',
          traceId: 'tr',
          message: `Rejected for ${TOKEN}`,
          errorCode: 'INVALID',
          errors: [{ path: 'authorization', message: `${TOKEN} is malformed`, errorCode: 'FORMAT' }],
        }),
        { 'content-type': 'application/json' },
      ],
    ];

    for (const [name, status, body, headers] of echoes) {
      it(`even when the platform echoes it in ${name}`, async () => {
        const scope = nock(PLATFORM_URL).get('/v1/documents/d1').reply(status, body, headers);
        const error = await failure(new RequestClient(http, TOKEN, REQUEST_ID).get('documents.get', '/v1/documents/d1'));
        scope.done();

        const exposed = JSON.stringify({ message: error.message, extensions: error.extensions, fieldErrors: error.fieldErrors, events });
        expect(exposed).not.toContain(TOKEN_SECRET);
        expect(error.message).toContain('[REDACTED]');
      });
    }

    it('keeps the rest of an echoing message', async () => {
      const scope = nock(PLATFORM_URL).get('/v1/documents/d1').reply(401, `Invalid token ${TOKEN_SECRET}`, { 'content-type': 'text/plain' });
      const error = await failure(new RequestClient(http, TOKEN, REQUEST_ID).get('documents.get', '/v1/documents/d1'));
      scope.done();
      expect(error.message).toBe('The platform rejected the access token (HTTP 401): Invalid token [REDACTED]');
      expect(error.extensions).toEqual({ code: 'UNAUTHENTICATED', upstream: { status: 401 } });
    });

    it('even when JSON escaping hides it in the raw body', async () => {
      const opaque = 'Bearer tok/with+slash==';
      const scope = nock(PLATFORM_URL).get('/v1/documents/d1').reply(401, '{"traceId":"t","message":"Invalid token tok\\/with+slash=="}', { 'content-type': 'application/json' });
      const error = await failure(new RequestClient(http, opaque, REQUEST_ID).get('documents.get', '/v1/documents/d1'));
      scope.done();
      expect(error.message).toBe('The platform rejected the access token (HTTP 401): Invalid token [REDACTED]');
    });

    it('even when a long message would cut it in half', async () => {
      const body = `${'x'.repeat(180)} token ${TOKEN_SECRET} rejected`;
      const scope = nock(PLATFORM_URL).get('/v1/documents/d1').reply(401, body, { 'content-type': 'text/plain' });
      const error = await failure(new RequestClient(http, TOKEN, REQUEST_ID).get('documents.get', '/v1/documents/d1'));
      scope.done();
      expect(error.message).toBe(`The platform rejected the access token (HTTP 401): ${'x'.repeat(180)} token [REDACTED] re`);
      expect(error.message).not.toContain(TOKEN_SECRET.slice(0, 8));
    });

    describe('pieces and encodings of it', () => {
      const ENCODED = 'Bearer abc/def+ghi/jkl==';
      const rejected = async (body: string, authorization = TOKEN, contentType = 'text/plain') => {
        const scope = nock(PLATFORM_URL).get('/v1/documents/d1').reply(401, body, { 'content-type': contentType });
        const error = await failure(new RequestClient(http, authorization, REQUEST_ID).get('documents.get', '/v1/documents/d1'));
        scope.done();
        return error;
      };
      const said = (text: string) => `The platform rejected the access token (HTTP 401): ${text}`;

      it('the token minus its last characters', async () => {
        expect((await rejected(`Invalid token ${TOKEN_SECRET.slice(0, -3)}`)).message).toBe(said('Invalid token [REDACTED]'));
      });

      it('the token lacking up to four characters at its ends, never a shorter piece of it (a word or an id may be one)', async () => {
        const piece = TOKEN_SECRET.slice(20, 28);
        expect((await rejected(`bad signature part x${piece}y near "${TOKEN_SECRET.slice(2, -2)}"`)).message).toBe(said(`bad signature part x${piece}y near "[REDACTED]"`));
        expect((await rejected(`near "${TOKEN_SECRET.slice(3, -2)}"`)).message).toBe(said(`near "${TOKEN_SECRET.slice(3, -2)}"`));
      });

      it('7 characters in a row are not an echo (a message may share short words with a token)', async () => {
        expect((await rejected(`Invalid token ${TOKEN_SECRET.slice(0, 7)}`)).message).toBe(said(`Invalid token ${TOKEN_SECRET.slice(0, 7)}`));
      });

      it('percent-encoded, in either hex case, fully or partly, and cut short', async () => {
        const secret = ENCODED.slice('Bearer '.length);
        const everyByte = [...secret].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
        for (const echo of [encodeURIComponent(secret), encodeURIComponent(secret).toLowerCase(), everyByte, encodeURIComponent(secret).slice(0, -6)]) {
          const error = await rejected(`token=${echo}; rejected`, ENCODED);
          expect(error.message).toBe(said('token=[REDACTED]; rejected'));
        }
      });

      it('in every text of a shape B body: message, trace id, error code, field errors', async () => {
        const piece = TOKEN_SECRET;
        const body = json({
          timestamp: 't',
          traceId: `trace-${piece}`,
          message: `Rejected ${encodeURIComponent(piece)}`,
          errorCode: `BAD_${piece}`,
          errors: [{ path: `headers.${piece}`, message: `${piece} is malformed`, errorCode: 'FORMAT' }],
        });
        const scope = nock(PLATFORM_URL).get('/v1/documents/d1').reply(422, body, { 'content-type': 'application/json' });
        const error = await failure(new RequestClient(http, TOKEN, REQUEST_ID).get('documents.get', '/v1/documents/d1'));
        scope.done();
        expect(error.message).toBe('The platform rejected the request (HTTP 422): Rejected [REDACTED]');
        expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', upstream: { status: 422, traceId: 'trace-[REDACTED]', errorCode: 'BAD_[REDACTED]' } });
        // Exactly the echo: the words after it stay whole.
        expect(error.fieldErrors).toEqual([{ path: 'headers.[REDACTED]', message: '[REDACTED] is malformed', errorCode: 'FORMAT' }]);
      });

      it('in a long plain-text message, before it is cut to length', async () => {
        const echo = encodeURIComponent(ENCODED.slice('Bearer '.length));
        const error = await rejected(`${'x'.repeat(185)} ${echo} tail`, ENCODED);
        expect(error.message).toBe(said(`${'x'.repeat(185)} [REDACTED] tai`));
      });
    });
  });
});

describe('per-request GET dedup', () => {
  it('two identical GETs, query keys in any order, make one upstream request', async () => {
    const scope = nock(PLATFORM_URL).get('/exceptions').query({ page: '0', size: '20', status: ['NEW', 'REOPENED'] }).once().reply(200, json(page(['e1', 'e2'])));
    const client = new RequestClient(http, TOKEN, REQUEST_ID);

    const [first, second] = await Promise.all([
      client.get('exceptions.list', '/exceptions', { page: 0, size: 20, status: ['NEW', 'REOPENED'] }),
      client.get('exceptions.list', '/exceptions', { status: ['NEW', 'REOPENED'], size: 20, page: 0 }),
    ]);
    // Later in the same request: still served from the request's own cache.
    const third = await client.get('exceptions.list', '/exceptions', { size: 20, status: ['NEW', 'REOPENED'], page: 0, category: undefined });

    scope.done();
    expect(first).toEqual(page(['e1', 'e2']));
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(client.calls).toBe(1);
    expect(events).toHaveLength(1);
  });

  it('different queries or paths are different requests', async () => {
    const scope = nock(PLATFORM_URL)
      .get('/exceptions')
      .query({ page: '0' })
      .reply(200, json(page(['p0'])))
      .get('/exceptions')
      .query({ page: '1' })
      .reply(200, json(page(['p1'])))
      .get('/exceptions')
      .query({ status: ['REOPENED', 'NEW'] })
      .reply(200, json(page(['s1'])))
      .get('/exceptions')
      .query({ status: ['NEW', 'REOPENED'] })
      .reply(200, json(page(['s2'])))
      .get('/v1/acceptances')
      .query({ page: '0' })
      .reply(200, json(page(['a0'])));
    const client = new RequestClient(http, TOKEN, REQUEST_ID);

    const bodies = await Promise.all([
      client.get('exceptions.list', '/exceptions', { page: 0 }),
      client.get('exceptions.list', '/exceptions', { page: 1 }),
      // Repeated values keep their order: sort keys are significant.
      client.get('exceptions.list', '/exceptions', { status: ['REOPENED', 'NEW'] }),
      client.get('exceptions.list', '/exceptions', { status: ['NEW', 'REOPENED'] }),
      client.get('acceptances.list', '/v1/acceptances', { page: 0 }),
    ]);

    scope.done();
    expect(bodies).toEqual([page(['p0']), page(['p1']), page(['s1']), page(['s2']), page(['a0'])]);
    expect(client.calls).toBe(5);
  });

  it('two requests (two callers) never share: each makes its own call with its own token', async () => {
    const otherToken = 'Bearer other-caller-token';
    const scope = nock(PLATFORM_URL)
      .get('/exceptions')
      .matchHeader('authorization', TOKEN)
      .matchHeader('x-request-id', 'req-a')
      .reply(200, json(page(['mine'])))
      .get('/exceptions')
      .matchHeader('authorization', otherToken)
      .matchHeader('x-request-id', 'req-b')
      .reply(200, json(page(['theirs'])));
    const a = new RequestClient(http, TOKEN, 'req-a');
    const b = new RequestClient(http, otherToken, 'req-b');

    const [mine, theirs] = await Promise.all([a.get('exceptions.list', '/exceptions'), b.get('exceptions.list', '/exceptions')]);

    scope.done();
    expect(mine).toEqual(page(['mine']));
    expect(theirs).toEqual(page(['theirs']));
    expect([a.calls, b.calls]).toEqual([1, 1]);
  });

  it('a failed GET is not repeated within the request either', async () => {
    const scope = nock(PLATFORM_URL).get('/v1/documents/d1').once().reply(404, '');
    const client = new RequestClient(http, TOKEN, REQUEST_ID);

    const errors = await Promise.all([failure(client.get('documents.get', '/v1/documents/d1')), failure(client.get('documents.get', '/v1/documents/d1'))]);

    scope.done();
    expect(errors.map((e) => e.extensions.code)).toEqual(['NOT_FOUND', 'NOT_FOUND']);
    expect(client.calls).toBe(1);
  });

  it('getUncached() keeps nothing in the request’s GET cache: each call is a call, its query in canonical order', async () => {
    const scope = nock(PLATFORM_URL)
      .get('/v1/documents/d1?a=1&b=2')
      .matchHeader('authorization', TOKEN)
      .matchHeader('x-request-id', REQUEST_ID)
      .reply(200, json({ id: 'd1', version: '1' }))
      .get('/v1/documents/d1?a=1&b=2')
      .reply(200, json({ id: 'd1', version: '2' }));
    const client = new RequestClient(http, TOKEN, REQUEST_ID);

    const first = await client.getUncached('documents.get', '/v1/documents/d1', { b: 2, a: 1 });
    const second = await client.getUncached('documents.get', '/v1/documents/d1', { a: 1, b: 2 });

    scope.done();
    expect([first, second]).toEqual([{ id: 'd1', version: '1' }, { id: 'd1', version: '2' }]);
    expect(client.calls).toBe(2);
    expect(events.map((e) => [e.route, e.method, e.status])).toEqual([['documents.get', 'GET', 200], ['documents.get', 'GET', 200]]);
  });

  it('getUncached() without a token → UNAUTHENTICATED before any call', async () => {
    const client = new RequestClient(http, undefined, REQUEST_ID);
    const error = await failure(client.getUncached('documents.get', '/v1/documents/d1'));
    expect(error.extensions).toEqual({ code: 'UNAUTHENTICATED' });
    expect(client.calls).toBe(0);
    expect(events).toEqual([]);
  });

  it('PUT is never deduplicated: two identical PUTs are two upstream PUTs', async () => {
    const body = { documentType: 'tax', name: 'Tax', description: 'Tax form' };
    const scope = nock(PLATFORM_URL)
      .put('/v1/documents/tax', body)
      .reply(200, json({ id: 'tax', version: '2' }))
      .put('/v1/documents/tax', body)
      .reply(200, json({ id: 'tax', version: '3' }));
    const client = new RequestClient(http, TOKEN, REQUEST_ID);

    const results = await Promise.all([client.put('documents.update', '/v1/documents/tax', body), client.put('documents.update', '/v1/documents/tax', body)]);

    scope.done();
    expect(results.map((r) => (r as { version: string }).version).sort()).toEqual(['2', '3']);
    expect(client.calls).toBe(2);
    expect(events.map((e) => e.method)).toEqual(['PUT', 'PUT']);
  });
});

describe('pathSegment', () => {
  it('encodes a value as exactly one segment', () => {
    expect(pathSegment('../exceptions')).toBe('..%2Fexceptions');
    expect(pathSegment('a b/c?d#e%f')).toBe('a%20b%2Fc%3Fd%23e%25f');
    expect(pathSegment('%2e%2e')).toBe('%252e%252e');
    expect(pathSegment('...')).toBe('...');
    expect(pathSegment('driving-license')).toBe('driving-license');
  });

  for (const value of ['.', '..', '']) {
    it(`rejects ${JSON.stringify(value)} with BAD_USER_INPUT before any call`, async () => {
      const client = new RequestClient(http, TOKEN, REQUEST_ID);
      const getDocument = async (id: string) => client.get('documents.get', `/v1/documents/${client.segment(id)}`);

      const error = await failure(getDocument(value));

      expect(error.message).toBe(`"${value}" is not a valid id`);
      expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT' });
      expect(syncFailure(() => runWithRequestId('other-req', () => pathSegment(value))).extensions).toEqual({ code: 'BAD_USER_INPUT' });
      expect(client.calls).toBe(0);
      expect(events).toEqual([]);
    });
  }

  it('rejects an id with a lone surrogate with BAD_USER_INPUT instead of failing the request', () => {
    const error = syncFailure(() => runWithRequestId(REQUEST_ID, () => pathSegment('doc-\ud800')));
    expect(error.message).toBe('The id contains characters that cannot be encoded (a lone UTF-16 surrogate)');
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT' });
  });

  it('the encoded id reaches the platform as one segment', async () => {
    const scope = nock(PLATFORM_URL).get('/v1/documents/..%2Fexceptions').reply(200, json({ id: '../exceptions' }));
    const client = new RequestClient(http, TOKEN, REQUEST_ID);
    await expect(client.get('documents.get', `/v1/documents/${client.segment('../exceptions')}`)).resolves.toEqual({ id: '../exceptions' });
    scope.done();
  });
});

describe('queryString', () => {
  it('sorts keys, repeats array values in their order, drops null and undefined', () => {
    expect(queryString({})).toBe('');
    expect(queryString({ a: undefined, b: null })).toBe('');
    expect(queryString({ size: 20, page: 0 })).toBe('?page=0&size=20');
    expect(queryString({ page: 0, size: 20 })).toBe(queryString({ size: 20, page: 0 }));
    expect(queryString({ sort: ['updatedAt,ASC', 'createdAt,DESC'], hasNext: true })).toBe('?hasNext=true&sort=updatedAt%2CASC&sort=createdAt%2CDESC');
    expect(queryString({ status: [] })).toBe('');
    expect(queryString({ search: 'a&b=c d+é', timeZone: 'UTC+01:00' })).toBe('?search=a%26b%3Dc+d%2B%C3%A9&timeZone=UTC%2B01%3A00');
  });
});

describe('logging', () => {
  function capture() {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    return { logger: createLogger('info', { destination }), output: () => lines.join(''), records: () => lines.join('').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>) };
  }

  it('redacts the Authorization header and cookies of a logged request', () => {
    const { logger, output, records } = capture();
    const headers = { authorization: TOKEN, cookie: 'session=s3cr3t', 'x-request-id': 'req-log-1', 'content-type': 'application/json' };

    logger.info({ req: { method: 'POST', url: '/graphql', headers } }, 'request received');
    logger.info({ headers }, 'headers');
    logger.warn({ authorization: TOKEN, upstream: { authorization: TOKEN, route: 'exceptions.list' } }, 'upstream call');

    expect(output()).not.toContain(TOKEN_SECRET);
    expect(output()).not.toContain('s3cr3t');
    const [request, bare, upstream] = records();
    expect(request).toMatchObject({
      msg: 'request received',
      service: 'platform-gateway',
      req: { method: 'POST', url: '/graphql', headers: { authorization: '[REDACTED]', cookie: '[REDACTED]', 'x-request-id': 'req-log-1', 'content-type': 'application/json' } },
    });
    expect(bare).toMatchObject({ headers: { authorization: '[REDACTED]', cookie: '[REDACTED]', 'x-request-id': 'req-log-1' } });
    expect(upstream).toMatchObject({ authorization: '[REDACTED]', upstream: { authorization: '[REDACTED]', route: 'exceptions.list' } });
    // The caller's object is not modified by redaction.
    expect(headers.authorization).toBe(TOKEN);
  });

  it('an upstream failure logged with its error carries no token', async () => {
    const scope = nock(PLATFORM_URL).get('/v1/documents/d1').reply(401, `Invalid token ${TOKEN_SECRET}`, { 'content-type': 'text/plain' });
    const error = await failure(new RequestClient(http, TOKEN, REQUEST_ID).get('documents.get', '/v1/documents/d1'));
    scope.done();

    const { logger, output } = capture();
    logger.error({ err: error, events }, 'platform call failed');

    expect(output()).toContain('platform call failed');
    expect(output()).not.toContain(TOKEN_SECRET);
  });
});
