import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { accountOf } from '../support/expected.ts';
import { startSandbox } from '../../sandbox/index.ts';
import type { DocumentRecord, DocumentType, Sandbox } from '../../sandbox/index.ts';
import { ACME, GLOBEX, call, get, put, violations } from './client.ts';
import type { ShapeA, ShapeB } from './client.ts';

// A fixed clock: updatedAt and the "not in the future" rule become exact.
const NOW = '2026-11-20T12:34:56.789Z';
let sandbox: Sandbox;
let acme: string;

beforeAll(async () => {
  sandbox = await startSandbox({ now: () => new Date(NOW), urlTtlSeconds: 120 });
  acme = accountOf(sandbox, ACME);
});
beforeEach(() => sandbox.store.reset());
afterAll(() => sandbox.close());

const find = (predicate: (d: DocumentRecord) => boolean): DocumentRecord => {
  const found = sandbox.store.documents(acme).find(predicate);
  if (!found) throw new Error('no such seeded document');
  return found;
};
const ofType = (documentType: DocumentType, extra: (d: DocumentRecord) => boolean = () => true) => find((d) => d.documentType === documentType && extra(d));
const expiresAt = Math.floor(Date.parse(NOW) / 1000) + 120;

type Answer = DocumentRecord & { url?: { value: string; allowed: string; expiresIn: number }; thumbnailUrl?: { value: string; allow: string; expiresIn: number } };

describe('GET /v1/documents/{id}', () => {
  it('returns a SCANNED document with a download URL and a thumbnail URL spelled with allow', async () => {
    const document = find((d) => d.status === 'SCANNED');
    const { status, body } = await get<Answer>(sandbox, `/v1/documents/${document.id}`);
    expect(status).toBe(200);
    const { url, thumbnailUrl, ...rest } = body;
    expect(rest).toEqual(document);
    expect(url).toEqual({ value: expect.any(String), allowed: 'GET', expiresIn: 120 });
    expect(url!.value).toMatch(new RegExp(`^${sandbox.documentsUrl}/documents/${document.id}\\?expires=${expiresAt}&signature=[\\w-]{43}$`));
    expect(thumbnailUrl).toEqual({ value: expect.any(String), allow: 'GET', expiresIn: 120 });
    expect(thumbnailUrl!.value).toMatch(new RegExp(`^${sandbox.documentsUrl}/documents/${document.id}/thumbnail\\?expires=${expiresAt}&signature=[\\w-]{43}$`));
  });

  it('reads the id case-insensitively, as a UUID', async () => {
    const document = find((d) => d.status === 'NEW');
    expect((await get<Answer>(sandbox, `/v1/documents/${document.id.toUpperCase()}`)).body).toEqual(document);
  });

  it.each(['NEW', 'UPLOADED', 'INCOMPLETE', 'MALICIOUS'] as const)('returns a %s document without any content URL', async (status) => {
    const document = find((d) => d.status === status);
    const answer = await get<Answer>(sandbox, `/v1/documents/${document.id}`);
    expect(answer.body).toEqual(document);
  });

  it("answers 404 for another Business Account's document, exactly as for a missing one", async () => {
    const foreign = sandbox.store.documents(accountOf(sandbox, GLOBEX))[0]!;
    const asAcme = await get<ShapeA>(sandbox, `/v1/documents/${foreign.id}`);
    const missing = await get<ShapeA>(sandbox, '/v1/documents/00000000-0000-4000-8000-000000000000');
    expect(asAcme.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(asAcme.body).toMatchObject({ error: 'Not Found', message: `Document ${foreign.id} not found` });
    expect((await get(sandbox, `/v1/documents/${foreign.id}`, GLOBEX)).status).toBe(200);
    expect((await put(sandbox, `/v1/documents/${foreign.id}`, { documentType: foreign.documentType, name: 'x' })).status).toBe(404);
  });
});

describe('PUT /v1/documents/{id}', () => {
  it('stores the details and answers the document with an upload URL', async () => {
    const passport = ofType('passport');
    const details = { documentType: 'passport', name: 'Passport 2026', number: 'X1234567', issuingDate: '2026-11-20', issuingCountryCode: 'USA', expiryDate: '2036-11-19', metadata: { source: 'api' } };
    const { status, body } = await put<Answer>(sandbox, `/v1/documents/${passport.id}`, details);
    expect(status).toBe(200);
    const { provider: _p, providerExternalId: _x, description: _d, issuingStateCode: _s, ...kept } = passport;
    const updatedBy = { id: expect.any(String), type: 'service-account' };
    expect(body).toEqual({
      ...kept,
      name: 'Passport 2026', number: 'X1234567', issuingDate: '2026-11-20', issuingCountryCode: 'USA', expiryDate: '2036-11-19', metadata: { source: 'api' },
      updatedBy, updatedAt: '2026-11-20T12:34:56.789+0000',
      url: { value: expect.stringMatching(new RegExp(`^${sandbox.documentsUrl}/documents/${passport.id}\\?expires=${expiresAt}&signature=`)), allowed: 'PUT', expiresIn: 120 },
    });
    expect(body.thumbnailUrl).toBeUndefined();
    const { url: _u, ...record } = body;
    expect(sandbox.store.document(passport.id)).toEqual({ ...record, ...(passport.provider ? { provider: passport.provider, providerExternalId: passport.providerExternalId } : {}) });
    // PUT replaces the details: what the body leaves out is gone.
    expect(sandbox.store.document(passport.id)?.description).toBeUndefined();
  });

  it('accepts the unchanged extension and contentLength in the body', async () => {
    const other = ofType('other');
    const answer = await put(sandbox, `/v1/documents/${other.id}`, { documentType: 'other', name: 'Lease', description: 'Signed lease', extension: other.extension, contentLength: other.contentLength });
    expect(answer.status).toBe(200);
  });

  const rules = async (documentType: DocumentType, body: Record<string, unknown>, extra?: (d: DocumentRecord) => boolean) => {
    const document = ofType(documentType, extra);
    const answer = await put<ShapeB>(sandbox, `/v1/documents/${document.id}`, { documentType, ...body });
    expect(sandbox.store.document(document.id)).toEqual(document);
    return answer;
  };

  it('lists every missing required field of a driving license at once', async () => {
    const document = ofType('driving-license');
    const { status, body } = await put<ShapeB>(sandbox, `/v1/documents/${document.id}`, {});
    expect(status).toBe(400);
    expect(body.errorCode).toBe('VALIDATION_ERROR');
    expect(body.errors).toEqual([
      { path: 'documentType', message: 'is required', errorCode: 'REQUIRED' },
      { path: 'name', message: 'is required', errorCode: 'REQUIRED' },
      { path: 'number', message: 'is required', errorCode: 'REQUIRED' },
      { path: 'issuingCountryCode', message: 'is required', errorCode: 'REQUIRED' },
      { path: 'issuingStateCode', message: 'is required', errorCode: 'REQUIRED' },
      { path: 'expiryDate', message: 'is required', errorCode: 'REQUIRED' },
    ]);
  });

  it('requires number, country and expiry (not state) for a passport', async () => {
    expect(violations((await rules('passport', { name: 'P' })).body)).toEqual([['number', 'REQUIRED'], ['issuingCountryCode', 'REQUIRED'], ['expiryDate', 'REQUIRED']]);
  });

  it.each(['formation', 'tax', 'ownership', 'other'] as const)('requires a description for %s', async (documentType) => {
    const answer = await rules(documentType, { name: 'Doc' });
    expect(answer.status).toBe(400);
    expect(violations(answer.body)).toEqual([['description', 'REQUIRED']]);
  });

  const identity = { number: 'D1', issuingCountryCode: 'US', issuingStateCode: 'CA', expiryDate: '2030-01-01' };
  it.each([
    ['an empty name', { name: '' }, [['name', 'LENGTH']]],
    ['a 41-character name', { name: 'n'.repeat(41) }, [['name', 'LENGTH']]],
    ['a name that is not a string', { name: 7 }, [['name', 'INVALID_TYPE']]],
    ['a 101-character description', { name: 'ok', description: 'd'.repeat(101) }, [['description', 'LENGTH']]],
    ['an empty number', { name: 'ok', number: '' }, [['number', 'LENGTH']]],
    ['an impossible issuingDate', { name: 'ok', issuingDate: '2026-02-29' }, [['issuingDate', 'INVALID_DATE']]],
    ['an issuingDate in another format', { name: 'ok', issuingDate: '11/20/2026' }, [['issuingDate', 'INVALID_DATE']]],
    ['an issuingDate tomorrow', { name: 'ok', issuingDate: '2026-11-21' }, [['issuingDate', 'FUTURE_DATE']]],
    ['a lower-case country', { name: 'ok', issuingCountryCode: 'us' }, [['issuingCountryCode', 'PATTERN']]],
    ['a 4-letter country', { name: 'ok', issuingCountryCode: 'USAA' }, [['issuingCountryCode', 'PATTERN']]],
    ['a 1-character state', { name: 'ok', issuingStateCode: 'C' }, [['issuingStateCode', 'PATTERN']]],
    ['a lower-case state', { name: 'ok', issuingStateCode: 'ca' }, [['issuingStateCode', 'PATTERN']]],
    ['a malformed expiryDate', { name: 'ok', expiryDate: '2030-1-1' }, [['expiryDate', 'INVALID_DATE']]],
    ['metadata with 7 entries', { name: 'ok', metadata: Object.fromEntries([1, 2, 3, 4, 5, 6, 7].map((n) => [`k${n}`, 'v'])) }, [['metadata', 'TOO_MANY_ENTRIES']]],
    ['a metadata value over 1024 characters', { name: 'ok', metadata: { note: 'x'.repeat(1025), ok: 'y'.repeat(1024) } }, [['metadata.note', 'TOO_LONG']]],
    ['a metadata value that is not a string', { name: 'ok', metadata: { count: 3 } }, [['metadata.count', 'INVALID_TYPE']]],
    ['metadata that is an array', { name: 'ok', metadata: ['a'] }, [['metadata', 'INVALID_TYPE']]],
    ['an unknown documentType', { name: 'ok', documentType: 'visa' }, [['documentType', 'INVALID_VALUE']]],
  ])('rejects %s with 400', async (_case, body, expected) => {
    const answer = await rules('other', { description: 'Proof', ...body });
    expect(answer.status).toBe(400);
    expect(violations(answer.body)).toEqual(expected);
  });

  it('accepts the limits themselves: 40-character name, 100-character description, 6 metadata entries, issued today', async () => {
    const license = ofType('driving-license');
    const details = {
      documentType: 'driving-license', ...identity, name: 'n'.repeat(40), description: 'd'.repeat(100), issuingDate: '2026-11-20', issuingStateCode: '06',
      metadata: Object.fromEntries([1, 2, 3, 4, 5, 6].map((n) => [`k${n}`, 'v'.repeat(1024)])),
    };
    const answer = await put<Answer>(sandbox, `/v1/documents/${license.id}`, details);
    expect(answer.status).toBe(200);
    const { documentType: _t, ...stored } = details;
    expect(sandbox.store.document(license.id)).toMatchObject(stored);
  });

  it.each([
    ['documentType', { documentType: 'passport' }, 'DOCUMENT_TYPE_IMMUTABLE'],
    ['extension', { extension: 'GIF' }, 'EXTENSION_IMMUTABLE'],
    ['contentLength', { contentLength: 1 }, 'CONTENT_LENGTH_IMMUTABLE'],
  ])('answers 422 for a changed %s', async (path, change, code) => {
    const answer = await rules('other', { name: 'ok', description: 'Proof', ...change });
    expect(answer.status).toBe(422);
    expect(answer.body.errorCode).toBe('IMMUTABLE_FIELD_CHANGED');
    expect(violations(answer.body)).toEqual([[path, code]]);
  });

  it('answers 400 listing both kinds when a body changes the type and breaks a rule', async () => {
    const answer = await rules('other', { documentType: 'tax', name: '', description: 'Proof' });
    expect(answer.status).toBe(400);
    expect(violations(answer.body)).toEqual([['documentType', 'DOCUMENT_TYPE_IMMUTABLE'], ['name', 'LENGTH']]);
  });

  it('answers 400 for malformed JSON or a body that is not an object, and 415 for another media type', async () => {
    const document = ofType('other');
    const send = (body: string, contentType = 'application/json') =>
      call<ShapeB>(`${sandbox.url}/v1/documents/${document.id}`, { method: 'PUT', headers: { authorization: `Bearer ${ACME}`, 'content-type': contentType }, body });
    const malformed = await send('{"documentType": "other",');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errorCode).toBe('MALFORMED_JSON');
    expect(violations(malformed.body)).toEqual([['body', 'MALFORMED_JSON']]);
    expect((await send('["other"]')).status).toBe(400);
    const text = await send('{}', 'text/plain');
    expect(text.status).toBe(415);
    expect((text.body as unknown as ShapeA).error).toBe('Unsupported Media Type');
    expect(sandbox.store.document(document.id)).toEqual(document);
  });
});
