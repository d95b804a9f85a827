import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import nock from 'nock';
import { RequestClient } from '../support/request-client.ts';
import { PolicyChain } from '../../src/platform/policy-chain.ts';
import { runWithRequestId } from '../../src/request/scope.ts';
import { readPage, readRecord } from '../../src/platform/pages.ts';
import { useNock } from './nock-guard.ts';
import { PLATFORM_URL, TOKEN, failure, json, syncFailure, upstreamSettings } from './support.ts';

const REQUEST_ID = 'req-pages-1';
const exception = (id: string) => ({ id, category: 'TRANSACTION', status: 'NEW', createdAt: '2026-11-20T10:15:30.123Z' });
const envelope = (content: unknown[], totalElements: number) => ({
  totalElements,
  totalPages: Math.ceil(totalElements / 2),
  number: 0,
  numberOfElements: content.length,
  hasNext: totalElements > content.length,
  content,
});

describe('readPage', () => {
  it('reads an envelope into items and total, keeping every field of each record', () => {
    const body = envelope([exception('e1'), exception('e2')], 5);
    expect(readPage(body, { bareArrayAllowed: false })).toEqual({ items: [exception('e1'), exception('e2')], total: 5 });
    // An endpoint that may answer a bare array still accepts an envelope.
    expect(readPage(body, { bareArrayAllowed: true })).toEqual({ items: [exception('e1'), exception('e2')], total: 5 });
    expect(readPage(envelope([], 0), { bareArrayAllowed: false })).toEqual({ items: [], total: 0 });
  });

  it('reads a bare array, without a total, only where the endpoint may answer one', () => {
    const body = [exception('b1'), exception('b2')];
    expect(readPage(body, { bareArrayAllowed: true })).toEqual({ items: body, total: null });
    const error = syncFailure(() => runWithRequestId(REQUEST_ID, () => readPage(body, { bareArrayAllowed: false })));
    expect(error.message).toBe('The platform answered with an unusable body (not the page the contract describes)');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR' });
  });

  const wrongPages: [string, unknown][] = [
    ['null', null],
    ['a string', 'page'],
    ['an empty object', {}],
    ['content without totalElements', { content: [exception('e1')] }],
    ['totalElements as a string', { ...envelope([exception('e1')], 1), totalElements: '1' }],
    ['a negative total', { ...envelope([], 0), totalElements: -1 }],
    ['a fractional total', { ...envelope([], 0), totalElements: 1.5 }],
    ['content that is not an array', { ...envelope([], 0), content: { id: 'e1' } }],
    ['a record without an id', envelope([{ category: 'TRANSACTION' }], 1)],
    ['a numeric id', envelope([{ id: 7 }], 1)],
    ['a null record', envelope([null], 1)],
    ['a bare array with a bad record', [exception('b1'), { id: null }]],
  ];
  for (const [name, body] of wrongPages) {
    it(`rejects ${name} as UPSTREAM_ERROR`, () => {
      for (const bareArrayAllowed of [false, true]) {
        const error = syncFailure(() => runWithRequestId(REQUEST_ID, () => readPage(body, { bareArrayAllowed })));
        expect(error.message).toBe('The platform answered with an unusable body (not the page the contract describes)');
        expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR' });
      }
    });
  }
});

describe('readRecord', () => {
  it('returns the record itself when it has a string id', () => {
    const document = { id: 'd1', name: 'Passport', metadata: { a: '1' } };
    expect(readRecord(document)).toBe(document);
  });

  for (const [name, body] of [
    ['null', null],
    ['an array', [{ id: 'd1' }]],
    ['a record without an id', { name: 'Passport' }],
    ['a numeric id', { id: 1 }],
    ['text', 'd1'],
  ] as [string, unknown][]) {
    it(`rejects ${name} as UPSTREAM_ERROR`, () => {
      const error = syncFailure(() => runWithRequestId(REQUEST_ID, () => readRecord(body)));
      expect(error.message).toBe('The platform answered with an unusable body (not the record the contract describes)');
      expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR' });
    });
  }
});

describe('a 200 the contract does not describe, through the client', () => {
  useNock();

  let http: PolicyChain;
  let client: RequestClient;
  beforeEach(() => {
    http = new PolicyChain(PLATFORM_URL, upstreamSettings());
    client = new RequestClient(http, TOKEN, REQUEST_ID);
  });
  afterEach(() => http.close());

  it('malformed JSON → UPSTREAM_ERROR, asked for once (a 200 is never retried)', async () => {
    const scope = nock(PLATFORM_URL).get('/exceptions').reply(200, '{"totalElements": 3, "content": [', { 'content-type': 'application/json' });
    const error = await failure(client.get('exceptions.list', '/exceptions'));
    scope.done();
    expect(error.message).toBe('The platform answered with an unusable body (malformed JSON)');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR' });
  });

  it('an empty body → UPSTREAM_ERROR', async () => {
    const scope = nock(PLATFORM_URL).get('/exceptions').reply(200, '');
    const error = await failure(client.get('exceptions.list', '/exceptions'));
    scope.done();
    expect(error.message).toBe('The platform answered with an unusable body (empty body)');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR' });
  });

  it('an empty body to a PUT → UPSTREAM_ERROR', async () => {
    const scope = nock(PLATFORM_URL).put('/v1/documents/tax', { name: 'Tax' }).reply(200, '');
    const error = await failure(client.put('documents.update', '/v1/documents/tax', { name: 'Tax' }));
    scope.done();
    expect(error.message).toBe('The platform answered with an unusable body (empty body)');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR' });
  });

  it('JSON of the wrong shape → UPSTREAM_ERROR from readPage', async () => {
    const scope = nock(PLATFORM_URL)
      .get('/v1/acceptances')
      .query({ financialAccountId: 'fa-1' })
      .reply(200, json({ items: [{ id: 'a1' }], total: 1 }), { 'content-type': 'application/json' });
    const body = await client.get('acceptances.list', '/v1/acceptances', { financialAccountId: 'fa-1' });
    scope.done();
    expect(body).toEqual({ items: [{ id: 'a1' }], total: 1 });
    const error = syncFailure(() => runWithRequestId(REQUEST_ID, () => readPage(body, { bareArrayAllowed: false })));
    expect(error.message).toBe('The platform answered with an unusable body (not the page the contract describes)');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR' });
  });

  it('a good page passes through the client and readPage intact', async () => {
    const page = envelope([exception('e1'), exception('e2')], 4);
    const scope = nock(PLATFORM_URL).get('/exceptions').query({ page: '0', size: '2' }).reply(200, json(page), { 'content-type': 'application/json' });
    const body = await client.get('exceptions.list', '/exceptions', { size: 2, page: 0 });
    scope.done();
    expect(readPage(body, { bareArrayAllowed: false })).toEqual({ items: [exception('e1'), exception('e2')], total: 4 });
  });

  it('JSON of the wrong shape → UPSTREAM_ERROR from readRecord', async () => {
    const scope = nock(PLATFORM_URL).put('/v1/documents/passport').reply(200, json({ document: { id: 'd1' } }), { 'content-type': 'application/json' });
    const body = await client.put('documents.update', '/v1/documents/passport', { name: 'Passport' });
    scope.done();
    const error = syncFailure(() => runWithRequestId(REQUEST_ID, () => readRecord(body)));
    expect(error.message).toBe('The platform answered with an unusable body (not the record the contract describes)');
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR' });
  });
});
