import { describe, expect, it } from '@jest/globals';
import { documentResolvers, documentTypes } from '../../src/documents/resolvers.ts';
import { ErrorCode } from '../../src/errors.ts';
import type { UpdateDocumentInput } from '../../src/generated/graphql.ts';
import { PlatformError } from '../../src/platform/platform-error.ts';

type Resolver = (...args: unknown[]) => unknown;
const Document = documentResolvers.Document as unknown as Record<string, Resolver>;
const ContentUrl = documentResolvers.ContentUrl as unknown as Record<string, Resolver>;
const updateDocument = (documentResolvers.Mutation as unknown as Record<string, Resolver>).updateDocument!;

const RECEIVED = 1_700_000_000_000;
const field = (name: string, document: Record<string, unknown>) => Document[name]!({ receivedAt: RECEIVED, ...document }, {}, {}, {});

/** A context whose platform answers a PUT with `answer` (or throws it), and whose document loader notes what it is told. */
function context(answer: Record<string, unknown> | Error) {
  const puts: unknown[][] = [];
  const loader: string[] = [];
  const ctx = {
    platform: {
      segment: (id: string) => encodeURIComponent(id),
      put: async (...args: unknown[]) => {
        puts.push(args);
        if (answer instanceof Error) throw answer;
        return answer;
      },
    },
    loaders: {
      document: {
        clear(id: string) {
          loader.push(`clear ${id}`);
          return this;
        },
        prime(id: string, document: { id: string }) {
          loader.push(`prime ${id} ${document.id}`);
          return this;
        },
      },
    },
  };
  return { ctx, puts, loader };
}

const INPUT: UpdateDocumentInput = { id: 'd0c00000-0000-4000-8000-000000000001', documentType: 'PASSPORT', name: 'Passport', number: 'X1', issuingCountryCode: 'FR', expiryDate: '2031-01-01', description: null };

describe('Document fields', () => {
  it('maps the platform document type, and fails on one the schema does not know', () => {
    expect(field('documentType', { documentType: 'driving-license' })).toBe('DRIVING_LICENSE');
    expect(() => field('documentType', { documentType: 'visa' })).toThrow('The platform sent an unknown documentType "visa"');
    expect(documentTypes.toPlatform('OWNERSHIP')).toBe('ownership');
  });

  it('reads an unknown status or verification status as UNKNOWN, an unknown extension or holder type as null', () => {
    expect([field('status', { status: 'SCANNED' }), field('status', { status: 'QUARANTINED' }), field('status', { status: null })]).toEqual(['SCANNED', 'UNKNOWN', null]);
    expect([field('verificationStatus', { verificationStatus: 'VERIFIED' }), field('verificationStatus', { verificationStatus: 'MAYBE' })]).toEqual(['VERIFIED', 'UNKNOWN']);
    expect([field('extension', { extension: 'PDF' }), field('extension', { extension: 'TIFF' })]).toEqual(['PDF', null]);
    expect([field('holderType', { holderType: 'CUSTOMER' }), field('holderType', { holderType: 'ROBOT' })]).toEqual(['CUSTOMER', null]);
  });

  it('references the holder entity by its type, and nothing without a known type and an id', () => {
    expect(field('holder', { holderType: 'BENEFICIARY', holderId: 'b1' })).toEqual({ __typename: 'BeneficialOwner', id: 'b1' });
    expect(field('holder', { holderType: 'BUSINESS_ACCOUNT', holderId: 'ba1' })).toEqual({ __typename: 'BusinessAccount', id: 'ba1' });
    expect(field('holder', { holderType: 'CUSTOMER', holderId: 'c1' })).toEqual({ __typename: 'CustomerAccount', id: 'c1' });
    expect([field('holder', { holderType: 'CUSTOMER' }), field('holder', { holderType: 'ROBOT', holderId: 'r1' })]).toEqual([null, null]);
    expect([field('businessAccount', { businessAccountId: 'ba1' }), field('businessAccount', { businessAccountId: null })]).toEqual([{ id: 'ba1' }, null]);
  });

  it('gives download URLs only for a document scanned clean, and only GET ones; the thumbnail spells it allow', () => {
    const url = { value: 'https://files/d1', allowed: 'GET', expiresIn: 300 };
    expect(field('url', { status: 'SCANNED', url })).toEqual({ value: 'https://files/d1', allowed: 'GET', expiresIn: 300, receivedAt: RECEIVED });
    expect(field('thumbnailUrl', { status: 'SCANNED', thumbnailUrl: { value: 'https://files/t1', allow: 'GET' } })).toEqual({ value: 'https://files/t1', allowed: 'GET', expiresIn: null, receivedAt: RECEIVED });
    expect(field('url', { status: 'UPLOADED', url })).toBeNull();
    expect(field('url', { status: 'SCANNED', url: { ...url, allowed: 'PUT' } })).toBeNull();
    expect(field('url', { status: 'SCANNED', url: { ...url, value: '' } })).toBeNull();
    expect(field('url', { status: 'SCANNED', url: null })).toBeNull();
  });
});

describe('ContentUrl.expiresAt', () => {
  it('is the moment received plus the seconds it lasts, or null when the platform did not say', () => {
    expect(ContentUrl.expiresAt!({ value: 'u', allowed: 'GET', expiresIn: 90, receivedAt: RECEIVED }, {}, {}, {})).toEqual(new Date(RECEIVED + 90_000));
    expect(ContentUrl.expiresAt!({ value: 'u', allowed: 'GET', expiresIn: null, receivedAt: RECEIVED }, {}, {}, {})).toBeNull();
  });
});

describe('Mutation.updateDocument', () => {
  it('answers every broken rule as user errors without calling the platform', async () => {
    const { ctx, puts } = context({});
    const payload = await updateDocument({}, { input: { ...INPUT, number: null, name: '' } }, ctx, {});
    expect(payload).toEqual({
      document: null,
      uploadUrl: null,
      userErrors: [
        { field: ['input', 'name'], message: 'name must be at least 1 character', code: 'TOO_SHORT' },
        { field: ['input', 'number'], message: 'number is required for PASSPORT documents', code: 'REQUIRED' },
      ],
    });
    expect(puts).toEqual([]);
  });

  it('sends the contract’s fields in platform spellings, leaves out absent ones, and primes the loader with the answer', async () => {
    const record = { id: 'd0c00000-0000-4000-8000-000000000001', documentType: 'passport', name: 'Passport', url: { value: 'https://upload/d1', allowed: 'PUT', expiresIn: 600 } };
    const { ctx, puts, loader } = context(record);
    const payload = (await updateDocument({}, { input: { ...INPUT, metadata: { k: 'v' } } }, ctx, {})) as { document: { receivedAt: number }; uploadUrl: unknown; userErrors: unknown };
    expect(puts).toEqual([
      ['documents.update', '/v1/documents/d0c00000-0000-4000-8000-000000000001', { documentType: 'passport', name: 'Passport', number: 'X1', issuingCountryCode: 'FR', expiryDate: '2031-01-01', metadata: { k: 'v' } }],
    ]);
    expect(payload).toEqual({
      document: { ...record, receivedAt: expect.any(Number) },
      uploadUrl: { value: 'https://upload/d1', allowed: 'PUT', expiresIn: 600, receivedAt: payload.document.receivedAt },
      userErrors: [],
    });
    expect(loader).toEqual(['clear d0c00000-0000-4000-8000-000000000001', 'prime d0c00000-0000-4000-8000-000000000001 d0c00000-0000-4000-8000-000000000001']);
  });

  it('has no upload URL when the platform sends none for PUT', async () => {
    const { ctx } = context({ id: 'd0c00000-0000-4000-8000-000000000001', url: { value: 'https://files/d1', allowed: 'GET' } });
    expect(await updateDocument({}, { input: INPUT }, ctx, {})).toMatchObject({ uploadUrl: null, userErrors: [] });
  });

  it("answers the platform's field errors as user errors on the input, worded like the gateway's own", async () => {
    const refusal = new PlatformError(ErrorCode.BAD_USER_INPUT, 'rejected', {
      fieldErrors: [
        { path: 'metadata.colour', message: 'is not allowed', errorCode: 'UNKNOWN_KEY' },
        { path: 'number', message: 'number is taken', errorCode: 'DUPLICATE' },
        { path: '', message: 'the document is locked', errorCode: 'LOCKED' },
      ],
    });
    expect(await updateDocument({}, { input: INPUT }, context(refusal).ctx, {})).toEqual({
      document: null,
      uploadUrl: null,
      userErrors: [
        { field: ['input', 'metadata', 'colour'], message: 'metadata.colour is not allowed', code: 'UNKNOWN_KEY' },
        { field: ['input', 'number'], message: 'number is taken', code: 'DUPLICATE' },
        { field: null, message: 'the document is locked', code: 'LOCKED' },
      ],
    });
  });

  it('answers a refusal without field errors as one user error, coded as the platform coded it', async () => {
    const coded = new PlatformError(ErrorCode.BAD_USER_INPUT, 'The platform rejected the request (HTTP 400)', { upstream: { status: 400, errorCode: 'TYPE_MISMATCH' } });
    expect((await updateDocument({}, { input: INPUT }, context(coded).ctx, {}) as { userErrors: unknown }).userErrors).toEqual([
      { field: null, message: 'The platform rejected the request (HTTP 400)', code: 'TYPE_MISMATCH' },
    ]);
    const bare = new PlatformError(ErrorCode.BAD_USER_INPUT, 'rejected');
    expect((await updateDocument({}, { input: INPUT }, context(bare).ctx, {}) as { userErrors: unknown }).userErrors).toEqual([{ field: null, message: 'rejected', code: 'REJECTED' }]);
  });

  it('lets any other failure through as an error', async () => {
    for (const failure of [new PlatformError(ErrorCode.CONFLICT, 'stale'), new Error('bug')]) {
      await expect(updateDocument({}, { input: INPUT }, context(failure).ctx, {})).rejects.toBe(failure);
    }
  });
});
