import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import nock from 'nock';
import { ErrorCode } from '../../src/errors.ts';
import { rethrowOnArguments } from '../../src/platform/argument-errors.ts';
import type { PlatformClient } from '../../src/platform/client.ts';
import { runWithRequestId } from '../../src/request/scope.ts';
import { RequestClient } from '../support/request-client.ts';
import { PlatformError } from '../../src/platform/platform-error.ts';
import { PolicyChain } from '../../src/platform/policy-chain.ts';
import { pageFetcher, readPage, readRecord } from '../../src/platform/pages.ts';
import { useNock } from './nock-guard.ts';
import { PLATFORM_URL, TOKEN, failure, json, syncFailure, upstreamSettings } from './support.ts';

const REQUEST_ID = 'req-fetch-1';
const ARGUMENTS = { status: ['filter', 'status'], sort: ['orderBy'] } as const;

describe('pageFetcher', () => {
  useNock();

  let http: PolicyChain;
  let client: PlatformClient;
  beforeEach(() => {
    http = new PolicyChain(PLATFORM_URL, upstreamSettings({ UPSTREAM_RETRY_LIMIT: '0' }));
    client = new RequestClient(http, TOKEN, REQUEST_ID);
  });
  afterEach(() => http.close());

  const envelopeFetch = pageFetcher<{ id: string }>({ route: 'things.list', path: '/v1/things', bareArrayAllowed: false, argumentPaths: ARGUMENTS });
  const bareFetch = pageFetcher<{ id: string }>({ route: 'things.list', path: '/v1/things', bareArrayAllowed: true, argumentPaths: ARGUMENTS });

  it('asks for the query with the page and size, and reads the envelope with what it shows of a page-size cap', async () => {
    const scope = nock(PLATFORM_URL)
      .get('/v1/things')
      .query({ status: 'NEW', page: '2', size: '5' })
      .reply(200, json({ totalElements: 12, totalPages: 3, hasNext: false, content: [{ id: 't10' }, { id: 't11' }] }), { 'content-type': 'application/json' });

    const page = await envelopeFetch(client, { status: 'NEW' }, { page: 2, size: 5 });

    scope.done();
    expect(page).toStrictEqual({ items: [{ id: 't10' }, { id: 't11' }], total: 12, hasNext: false, totalPages: 3 });
  });

  const evidence: [string, Record<string, unknown>, { hasNext: boolean | null; totalPages: number | null }][] = [
    ['hasNext true, no pages at all', { hasNext: true, totalPages: 0 }, { hasNext: true, totalPages: 0 }],
    ['neither field', {}, { hasNext: null, totalPages: null }],
    ['hasNext as text, totalPages as text', { hasNext: 'false', totalPages: '3' }, { hasNext: null, totalPages: null }],
    ['a fractional page count', { hasNext: false, totalPages: 2.5 }, { hasNext: false, totalPages: null }],
    ['a negative page count', { hasNext: false, totalPages: -1 }, { hasNext: false, totalPages: null }],
    ['an unsafe page count', { hasNext: false, totalPages: 2 ** 53 }, { hasNext: false, totalPages: null }],
  ];
  for (const [name, fields, expected] of evidence) {
    it(`cap evidence of an envelope with ${name}`, async () => {
      const scope = nock(PLATFORM_URL)
        .get('/v1/things')
        .query({ page: '0', size: '2' })
        .reply(200, json({ totalElements: 1, content: [{ id: 't1' }], ...fields }), { 'content-type': 'application/json' });
      const page = await envelopeFetch(client, {}, { page: 0, size: 2 });
      scope.done();
      expect(page).toStrictEqual({ items: [{ id: 't1' }], total: 1, ...expected });
    });
  }

  it('a bare array, where allowed, shows no cap evidence at all', async () => {
    const scope = nock(PLATFORM_URL).get('/v1/things').query({ page: '1', size: '2' }).reply(200, json([{ id: 't3' }]), { 'content-type': 'application/json' });
    const page = await bareFetch(client, {}, { page: 1, size: 2 });
    scope.done();
    expect(page).toStrictEqual({ items: [{ id: 't3' }], total: null });
  });

  it('a bare array where the endpoint promises an envelope is an unusable body', async () => {
    const scope = nock(PLATFORM_URL).get('/v1/things').query({ page: '0', size: '2' }).reply(200, json([{ id: 't3' }]), { 'content-type': 'application/json' });
    const error = await failure(runWithRequestId(REQUEST_ID, () => envelopeFetch(client, {}, { page: 0, size: 2 })));
    scope.done();
    expect(error.message).toBe('The platform answered with an unusable body (not the page the contract describes)');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR' });
  });

  it('a refusal naming its query parameters is addressed to the arguments', async () => {
    const scope = nock(PLATFORM_URL)
      .get('/v1/things')
      .query({ status: 'OLD', page: '0', size: '2' })
      .reply(400, json({ traceId: 'tr-1', message: 'Bad filter', errors: [{ path: 'status[0]', message: 'unknown status', errorCode: 'INVALID_VALUE' }] }), {
        'content-type': 'application/json',
      });
    const error = await failure(envelopeFetch(client, { status: 'OLD' }, { page: 0, size: 2 }));
    scope.done();
    expect(error.message).toBe('The platform rejected the request (HTTP 400): Bad filter');
    expect(error.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      upstream: { status: 400, traceId: 'tr-1' },
      field: ['filter', 'status'],
      fieldErrors: [{ field: ['filter', 'status'], message: 'unknown status', code: 'INVALID_VALUE' }],
    });
  });
});

describe('rethrowOnArguments', () => {
  const rethrow = rethrowOnArguments(ARGUMENTS);
  const thrown = (error: unknown): unknown => {
    try {
      runWithRequestId(REQUEST_ID, () => rethrow(error));
    } catch (caught) {
      return caught;
    }
    throw new Error('rethrowOnArguments returned');
  };
  const refusal = (code: ErrorCode, fieldErrors: { path: string; message: string; errorCode: string }[]) =>
    runWithRequestId(REQUEST_ID, () => new PlatformError(code, 'The platform rejected the request (HTTP 400)', { upstream: { status: 400, traceId: 'tr-9' }, fieldErrors }));

  it('rethrows anything but a BAD_USER_INPUT with field errors as it is', () => {
    const plain = new Error('socket hang up');
    expect(thrown(plain)).toBe(plain);
    const conflict = refusal(ErrorCode.CONFLICT, [{ path: 'status', message: 'stale', errorCode: 'STALE' }]);
    expect(thrown(conflict)).toBe(conflict);
    const bare = refusal(ErrorCode.BAD_USER_INPUT, []);
    expect(thrown(bare)).toBe(bare);
    expect(bare.extensions).toEqual({ code: 'BAD_USER_INPUT', upstream: { status: 400, traceId: 'tr-9' } });
  });

  it('names the first argument a field error concerns; a dotted parameter is its first segment', () => {
    const original = refusal(ErrorCode.BAD_USER_INPUT, [
      { path: 'page', message: 'too large', errorCode: 'OUT_OF_RANGE' },
      { path: 'sort.direction', message: 'ASC or DESC', errorCode: 'INVALID_VALUE' },
      { path: 'status', message: 'unknown', errorCode: 'INVALID_VALUE' },
    ]);
    const error = thrown(original) as PlatformError;
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).not.toBe(original);
    expect([error.code, error.message, error.fieldErrors]).toEqual([ErrorCode.BAD_USER_INPUT, original.message, original.fieldErrors]);
    expect(error.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      upstream: { status: 400, traceId: 'tr-9' },
      field: ['orderBy'],
      fieldErrors: [
        { field: null, message: 'too large', code: 'OUT_OF_RANGE' },
        { field: ['orderBy'], message: 'ASC or DESC', code: 'INVALID_VALUE' },
        { field: ['filter', 'status'], message: 'unknown', code: 'INVALID_VALUE' },
      ],
    });
  });

  it('sets no field when no error concerns an argument', () => {
    const error = thrown(refusal(ErrorCode.BAD_USER_INPUT, [{ path: 'size', message: 'too large', errorCode: 'OUT_OF_RANGE' }])) as PlatformError;
    expect(error.extensions).toStrictEqual({
      code: 'BAD_USER_INPUT',
      upstream: { status: 400, traceId: 'tr-9' },
      fieldErrors: [{ field: null, message: 'too large', code: 'OUT_OF_RANGE' }],
    });
  });
});

describe('PlatformError', () => {
  it('carries upstream details only when there are some, and retryAfter only when set', () => {
    const bare = runWithRequestId('r1', () => new PlatformError(ErrorCode.NOT_FOUND, 'gone', { upstream: {} }));
    expect(bare.extensions).toStrictEqual({ code: 'NOT_FOUND' });
    expect([bare.name, bare.message, bare.code, bare.fieldErrors]).toEqual(['PlatformError', 'gone', 'NOT_FOUND', []]);
    const limited = runWithRequestId('r2', () => new PlatformError(ErrorCode.RATE_LIMITED, 'slow', { upstream: { status: 429 }, retryAfter: 0 }));
    expect(limited.extensions).toStrictEqual({ code: 'RATE_LIMITED', upstream: { status: 429 }, retryAfter: 0 });
  });

  it('carries no request id, made inside a request or outside one: formatError alone stamps it', () => {
    const outside = new PlatformError(ErrorCode.UPSTREAM_ERROR, 'down', { upstream: { status: 503 } });
    const inside = runWithRequestId('r3', () => new PlatformError(ErrorCode.UPSTREAM_ERROR, 'down', { upstream: { status: 503 } }));
    expect([outside.extensions, inside.extensions]).toStrictEqual([
      { code: 'UPSTREAM_ERROR', upstream: { status: 503 } },
      { code: 'UPSTREAM_ERROR', upstream: { status: 503 } },
    ]);
  });
});

describe('records', () => {
  it('an array is never a record, even one with an id property', () => {
    const pretender = Object.assign([{ id: 'x' }], { id: 'a1' });
    expect(syncFailure(() => runWithRequestId(REQUEST_ID, () => readRecord(pretender))).extensions).toEqual({ code: 'UPSTREAM_ERROR' });
    for (const bareArrayAllowed of [false, true]) {
      const error = syncFailure(() => runWithRequestId(REQUEST_ID, () => readPage({ totalElements: 1, content: [pretender] }, { bareArrayAllowed })));
      expect(error.message).toBe('The platform answered with an unusable body (not the page the contract describes)');
    }
    const envelopeAsArray = Object.assign([], { totalElements: 0, content: [] });
    expect(syncFailure(() => runWithRequestId(REQUEST_ID, () => readPage(envelopeAsArray, { bareArrayAllowed: false }))).extensions.code).toBe('UPSTREAM_ERROR');
  });
});
