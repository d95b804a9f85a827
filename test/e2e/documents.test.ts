import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { DocumentRecord } from '../../sandbox/data/records.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { accountOf, actor, isoInstant } from '../support/expected.ts';
import { until } from '../support/time.ts';

const FIELDS = `id providerExternalId provider businessAccountId holderId holderType documentType name description number issuingDate
  issuingCountryCode issuingStateCode extension contentLength version expiryDate status verificationStatus metadata
  createdBy { id type } createdAt updatedBy { id type } updatedAt
  url { value allowed expiresIn expiresAt } thumbnailUrl { value allowed expiresIn expiresAt }`;

const DOCUMENT = `query($id: ID!) { document(id: $id) { ${FIELDS} } }`;
const UPDATE = `mutation($input: UpdateDocumentInput!) { updateDocument(input: $input) {
  document { id name version status documentType description number issuingCountryCode issuingStateCode expiryDate metadata }
  uploadUrl { value allowed expiresIn expiresAt }
  userErrors { field message code } } }`;

const GRAPHQL_TYPE: Record<string, string> = {
  'driving-license': 'DRIVING_LICENSE',
  passport: 'PASSPORT',
  formation: 'FORMATION',
  tax: 'TAX',
  ownership: 'OWNERSHIP',
  other: 'OTHER',
};

let stack: Stack;
let documents: readonly DocumentRecord[];
const byType = (type: string, status?: string) => documents.find((d) => d.documentType === type && (!status || d.status === status))!;

beforeAll(async () => {
  stack = await startStack();
  documents = stack.sandbox.store.documents(accountOf(stack.sandbox, stack.acme));
});
afterAll(() => stack.close());
beforeEach(() => {
  stack.sandbox.store.reset();
  documents = stack.sandbox.store.documents(accountOf(stack.sandbox, stack.acme));
  stack.sandbox.resetRequests();
});

function expectedDocument(d: DocumentRecord) {
  return {
    id: d.id,
    providerExternalId: d.providerExternalId ?? null,
    provider: d.provider ?? null,
    businessAccountId: d.businessAccountId,
    holderId: d.holderId,
    holderType: d.holderType,
    documentType: GRAPHQL_TYPE[d.documentType],
    name: d.name,
    description: d.description ?? null,
    number: d.number ?? null,
    issuingDate: d.issuingDate ?? null,
    issuingCountryCode: d.issuingCountryCode ?? null,
    issuingStateCode: d.issuingStateCode ?? null,
    extension: d.extension,
    contentLength: d.contentLength,
    version: d.version,
    expiryDate: d.expiryDate ?? null,
    status: d.status,
    verificationStatus: d.verificationStatus,
    metadata: d.metadata ?? null,
    createdBy: actor(d.createdBy),
    createdAt: isoInstant(d.createdAt),
    updatedBy: actor(d.updatedBy),
    updatedAt: isoInstant(d.updatedAt),
  };
}

type Url = { value: string; allowed: string; expiresIn: number; expiresAt: string } | null;

describe('document(id)', () => {
  it('covers every type, holder type and status in the sandbox', () => {
    expect(new Set(documents.map((d) => d.documentType))).toEqual(new Set(Object.keys(GRAPHQL_TYPE)));
    expect(new Set(documents.map((d) => d.holderType))).toEqual(new Set(['BENEFICIARY', 'BUSINESS_ACCOUNT', 'CUSTOMER']));
    expect(new Set(documents.map((d) => d.status))).toEqual(new Set(['NEW', 'UPLOADED', 'INCOMPLETE', 'SCANNED', 'MALICIOUS']));
  });

  it('answers every document exactly; download and thumbnail URLs only when SCANNED', async () => {
    for (const d of documents) {
      const before = Date.now();
      const response = await stack.gql<{ document: Record<string, unknown> & { url: Url; thumbnailUrl: Url } }>(DOCUMENT, { id: d.id });
      expect(response.body.errors).toBeUndefined();
      const { url, thumbnailUrl, ...rest } = response.body.data!.document;
      expect(rest).toEqual(expectedDocument(d));
      if (d.status === 'SCANNED') {
        for (const u of [url!, thumbnailUrl!]) {
          expect(u.allowed).toBe('GET');
          expect(u.value.startsWith(stack.sandbox.documentsUrl)).toBe(true);
          const expiresAt = Date.parse(u.expiresAt);
          expect(expiresAt).toBeGreaterThanOrEqual(before + u.expiresIn * 1000 - 1000);
          expect(expiresAt).toBeLessThanOrEqual(Date.now() + u.expiresIn * 1000);
        }
      } else {
        expect([url, thumbnailUrl]).toEqual([null, null]);
      }
    }
  });

  it('fetches a document once for several aliases', async () => {
    const d = documents[0]!;
    const response = await stack.gql(`query($id: ID!) { a: document(id: $id) { id } b: document(id: $id) { name } c: document(id: $id) { status } }`, { id: d.id });
    expect(response.body).toEqual({ data: { a: { id: d.id }, b: { name: d.name }, c: { status: d.status } } });
    expect(stack.platformCalls()).toHaveLength(1);
  });

  it('answers null with NOT_FOUND for unknown and foreign ids', async () => {
    const foreign = stack.sandbox.store.documents(accountOf(stack.sandbox, stack.globex))[0]!.id;
    for (const id of ['00000000-0000-4000-8000-000000000000', foreign]) {
      const response = await stack.gql(DOCUMENT, { id });
      expect(response.body.data).toEqual({ document: null });
      expect(response.body.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', upstream: { status: 404 } });
    }
    expect(stack.platformCalls().map((c) => c.path)).toEqual([
      '/v1/documents/00000000-0000-4000-8000-000000000000',
      `/v1/documents/${foreign}`,
    ]);
  });

  it('refuses path-escaping ids as no UUID, before any platform call', async () => {
    for (const id of ['../exceptions', '%2e%2e']) {
      const response = await stack.gql(DOCUMENT, { id });
      expect(response.body.data).toEqual({ document: null });
      expect(response.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['id'] });
    }
    expect(stack.platformCalls()).toEqual([]);
  });
});

describe('updateDocument', () => {
  const passport = () => byType('passport');
  const valid = () => ({
    id: passport().id,
    documentType: 'PASSPORT',
    name: 'Passport of J. Doe',
    number: 'X1234567',
    issuingCountryCode: 'USA',
    expiryDate: '2031-05-01',
    issuingDate: '2021-05-01',
    metadata: { source: 'onboarding' },
  });

  it.each([
    ['name too long', { name: 'n'.repeat(41) }, [['input', 'name'], 'TOO_LONG']],
    ['empty name', { name: '' }, [['input', 'name'], 'TOO_SHORT']],
    ['number missing for a passport', { number: null }, [['input', 'number'], 'REQUIRED']],
    ['country missing for a passport', { issuingCountryCode: null }, [['input', 'issuingCountryCode'], 'REQUIRED']],
    ['expiry missing for a passport', { expiryDate: null }, [['input', 'expiryDate'], 'REQUIRED']],
    ['country in lower case', { issuingCountryCode: 'us' }, [['input', 'issuingCountryCode'], 'INVALID_FORMAT']],
    ['country too long', { issuingCountryCode: 'USAA' }, [['input', 'issuingCountryCode'], 'INVALID_FORMAT']],
    ['state code with digits', { issuingStateCode: 'C1' }, [['input', 'issuingStateCode'], 'INVALID_FORMAT']],
    ['issuing date in the future', { issuingDate: '2999-01-01' }, [['input', 'issuingDate'], 'IN_FUTURE']],
    ['description too long', { description: 'd'.repeat(101) }, [['input', 'description'], 'TOO_LONG']],
    ['seven metadata entries', { metadata: { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6', g: '7' } }, [['input', 'metadata'], 'TOO_MANY_ENTRIES']],
    ['metadata value too long', { metadata: { note: 'x'.repeat(1025) } }, [['input', 'metadata', 'note'], 'TOO_LONG']],
    ['metadata value not a string', { metadata: { count: 3 } }, [['input', 'metadata', 'count'], 'INVALID_TYPE']],
  ] as const)('rejects %s without calling the platform', async (_, change, [field, code]) => {
    const response = await stack.gql<{ updateDocument: { document: unknown; uploadUrl: unknown; userErrors: { field: string[]; code: string }[] } }>(UPDATE, {
      input: { ...valid(), ...change },
    });
    expect(response.body.errors).toBeUndefined();
    const payload = response.body.data!.updateDocument;
    expect(payload.document).toBeNull();
    expect(payload.uploadUrl).toBeNull();
    expect(payload.userErrors.map((e) => [e.field, e.code])).toEqual([[field, code]]);
    expect(stack.platformCalls()).toHaveLength(0);
  });

  it('applies the conditional rules of each document type', async () => {
    const cases: [string, Record<string, unknown>, string[][]][] = [
      ['driving-license', { documentType: 'DRIVING_LICENSE', name: 'DL' }, [['input', 'number'], ['input', 'issuingCountryCode'], ['input', 'expiryDate'], ['input', 'issuingStateCode']]],
      ['formation', { documentType: 'FORMATION', name: 'Articles' }, [['input', 'description']]],
      ['tax', { documentType: 'TAX', name: 'W-9' }, [['input', 'description']]],
      ['ownership', { documentType: 'OWNERSHIP', name: 'Cap table' }, [['input', 'description']]],
      ['other', { documentType: 'OTHER', name: 'Misc' }, [['input', 'description']]],
    ];
    for (const [type, input, fields] of cases) {
      const response = await stack.gql<{ updateDocument: { userErrors: { field: string[]; code: string }[] } }>(UPDATE, { input: { id: byType(type).id, ...input } });
      expect(response.body.data!.updateDocument.userErrors).toEqual(fields.map((field) => expect.objectContaining({ field, code: 'REQUIRED' })));
    }
    expect(stack.platformCalls()).toHaveLength(0);
  });

  it('updates, returns the upload URL, and the upload moves the document to SCANNED with a new version', async () => {
    const doc = passport();
    const response = await stack.gql<{ updateDocument: { document: Record<string, unknown>; uploadUrl: NonNullable<Url>; userErrors: unknown[] } }>(UPDATE, { input: valid() });
    expect(response.body.errors).toBeUndefined();
    const payload = response.body.data!.updateDocument;
    expect(payload.userErrors).toEqual([]);
    expect(payload.document).toEqual({
      id: doc.id,
      name: 'Passport of J. Doe',
      version: doc.version,
      status: doc.status,
      documentType: 'PASSPORT',
      description: null,
      number: 'X1234567',
      issuingCountryCode: 'USA',
      issuingStateCode: null,
      expiryDate: '2031-05-01',
      metadata: { source: 'onboarding' },
    });
    expect(payload.uploadUrl.allowed).toBe('PUT');
    expect(payload.uploadUrl.value.startsWith(stack.sandbox.documentsUrl)).toBe(true);
    expect(stack.platformCalls().map((c) => `${c.method} ${c.path}`)).toEqual([`PUT /v1/documents/${doc.id}`]);

    const bytes = doc.extension === 'PDF' ? Buffer.from('%PDF-1.7\nhello\n%%EOF') : doc.extension === 'PNG' ? Buffer.from('89504e470d0a1a0a0000', 'hex') : Buffer.from('ffd8ffe000104a464946', 'hex');
    const type = doc.extension === 'PDF' ? 'application/pdf' : doc.extension === 'PNG' ? 'image/png' : 'image/jpeg';
    const upload = await fetch(payload.uploadUrl.value, { method: 'PUT', body: bytes, headers: { 'content-type': type } });
    expect(upload.status).toBe(200);

    // The sandbox scans an upload a moment after it arrives: ask until it is scanned (bounded for a hang, not for speed).
    const current = await until('the scanned document', async () => {
      const r = await stack.gql<{ document: { status: string; version: string; url: Url } }>(`query($id: ID!) { document(id: $id) { status version url { allowed value } } }`, { id: doc.id });
      const document = r.body.data!.document;
      return document.status === 'UPLOADED' ? undefined : document;
    }, 20_000);
    expect(current.status).toBe('SCANNED');
    expect(current.version).toBe(String(Number(doc.version) + 1));
    expect(current.url!.allowed).toBe('GET');
    const download = await fetch(current.url!.value);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
    // The content host never saw the caller's token.
    expect(stack.sandbox.requests.filter((r) => r.host === 'content').every((r) => r.authorization === undefined)).toBe(true);
  });

  it("maps the platform's own validation errors into userErrors", async () => {
    // The platform refuses a change of documentType (422); the gateway cannot know the stored type.
    const response = await stack.gql<{ updateDocument: { document: unknown; userErrors: { field: string[] | null; code: string }[] } }>(UPDATE, {
      input: { id: byType('other').id, documentType: 'PASSPORT', name: 'x', number: 'N1', issuingCountryCode: 'FR', expiryDate: '2030-01-01' },
    });
    expect(response.body.errors).toBeUndefined();
    const payload = response.body.data!.updateDocument;
    expect(payload.document).toBeNull();
    expect(payload.userErrors.length).toBeGreaterThan(0);
    expect(payload.userErrors[0]!.field).toEqual(['input', 'documentType']);
    expect(stack.platformCalls()).toHaveLength(1);
  });

  it('makes exactly one PUT when the platform answers 503', async () => {
    stack.sandbox.faults.set('document.put', { status: 503 });
    try {
      const response = await stack.gql(UPDATE, { input: valid() });
      expect(response.body.data).toEqual({ updateDocument: null });
      expect(response.body.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: { status: 503 } });
      expect(stack.platformCalls().filter((c) => c.method === 'PUT')).toHaveLength(1);
    } finally {
      stack.sandbox.faults.clear();
    }
  });
});
