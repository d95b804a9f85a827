import { describe, expect, it } from '@jest/globals';
import { platformFieldMessage, validateUpdate } from '../../src/documents/validation.ts';
import type { UpdateDocumentInput } from '../../src/generated/graphql.ts';

const TODAY = '2026-03-15';

const other = (overrides: Partial<UpdateDocumentInput> = {}): UpdateDocumentInput => ({ id: 'd1', documentType: 'OTHER', name: 'Lease', description: 'Office lease', ...overrides });
const passport = (overrides: Partial<UpdateDocumentInput> = {}): UpdateDocumentInput => ({
  id: 'd2',
  documentType: 'PASSPORT',
  name: 'Passport',
  number: 'X123',
  issuingCountryCode: 'FR',
  expiryDate: '2030-01-01',
  ...overrides,
});

describe('validateUpdate', () => {
  it('finds nothing wrong with a complete input', () => {
    expect(validateUpdate(other(), TODAY)).toEqual([]);
    expect(validateUpdate(passport({ issuingDate: TODAY }), TODAY)).toEqual([]);
    expect(validateUpdate(passport({ documentType: 'DRIVING_LICENSE', issuingStateCode: 'CA' }), TODAY)).toEqual([]);
  });

  it('bounds the name to 1–40 characters and the description to 1–100', () => {
    expect(validateUpdate(other({ name: 'n'.repeat(40), description: 'd'.repeat(100) }), TODAY)).toEqual([]);
    expect(validateUpdate(other({ name: '', description: 'd'.repeat(101) }), TODAY)).toEqual([
      { field: ['input', 'name'], message: 'name must be at least 1 character', code: 'TOO_SHORT' },
      { field: ['input', 'description'], message: 'description must be at most 100 characters', code: 'TOO_LONG' },
    ]);
    expect(validateUpdate(other({ name: 'n'.repeat(41) }), TODAY)).toEqual([{ field: ['input', 'name'], message: 'name must be at most 40 characters', code: 'TOO_LONG' }]);
  });

  it.each(['FORMATION', 'TAX', 'OWNERSHIP', 'OTHER'] as const)('requires a description for %s documents', (documentType) => {
    expect(validateUpdate(other({ documentType, description: null }), TODAY)).toEqual([
      { field: ['input', 'description'], message: `description is required for ${documentType} documents`, code: 'REQUIRED' },
    ]);
  });

  it('reports an empty description as too short and as missing', () => {
    expect(validateUpdate(other({ documentType: 'TAX', description: '' }), TODAY).map((error) => error.code)).toEqual(['TOO_SHORT', 'REQUIRED']);
  });

  it('does not require a description of an identity document', () => {
    expect(validateUpdate(passport({ description: undefined }), TODAY)).toEqual([]);
  });

  it('requires number, issuing country and expiry date of a passport, and the state too of a driving licence, all at once', () => {
    const bare = { number: null, issuingCountryCode: '', expiryDate: undefined };
    expect(validateUpdate(passport(bare), TODAY)).toEqual([
      { field: ['input', 'number'], message: 'number is required for PASSPORT documents', code: 'REQUIRED' },
      { field: ['input', 'issuingCountryCode'], message: 'issuingCountryCode is required for PASSPORT documents', code: 'REQUIRED' },
      { field: ['input', 'expiryDate'], message: 'expiryDate is required for PASSPORT documents', code: 'REQUIRED' },
    ]);
    expect(validateUpdate(passport({ ...bare, documentType: 'DRIVING_LICENSE' }), TODAY).map((error) => error.field)).toEqual([
      ['input', 'number'],
      ['input', 'issuingCountryCode'],
      ['input', 'expiryDate'],
      ['input', 'issuingStateCode'],
    ]);
  });

  it('takes 2 or 3 uppercase letters as a country or state code, whatever the type', () => {
    expect(validateUpdate(other({ issuingCountryCode: 'USA', issuingStateCode: 'NY' }), TODAY)).toEqual([]);
    expect(validateUpdate(other({ issuingCountryCode: 'fr', issuingStateCode: 'CALI' }), TODAY)).toEqual([
      { field: ['input', 'issuingCountryCode'], message: 'issuingCountryCode must be 2 or 3 uppercase letters (ISO 3166)', code: 'INVALID_FORMAT' },
      { field: ['input', 'issuingStateCode'], message: 'issuingStateCode must be 2 or 3 uppercase letters (ISO 3166)', code: 'INVALID_FORMAT' },
    ]);
    expect(validateUpdate(other({ issuingCountryCode: 'F' }), TODAY).map((error) => error.code)).toEqual(['INVALID_FORMAT']);
    expect(validateUpdate(other({ issuingStateCode: 'N1' }), TODAY).map((error) => error.code)).toEqual(['INVALID_FORMAT']);
  });

  it('refuses an issuing date after today, and takes today', () => {
    expect(validateUpdate(other({ issuingDate: TODAY }), TODAY)).toEqual([]);
    expect(validateUpdate(other({ issuingDate: '2026-03-16' }), TODAY)).toEqual([
      { field: ['input', 'issuingDate'], message: 'issuingDate must not be in the future (today is 2026-03-15)', code: 'IN_FUTURE' },
    ]);
  });

  it('takes up to 6 metadata entries of strings up to 1024 characters', () => {
    const metadata = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`k${i}`, i === 0 ? 'v'.repeat(1024) : '']));
    expect(validateUpdate(other({ metadata }), TODAY)).toEqual([]);
  });

  it('refuses a seventh entry, a value that is not a string, and a value too long, each on its own field', () => {
    const metadata = { a: '1', b: 2, c: null, d: 'x'.repeat(1025), e: '5', f: '6', g: '7' };
    expect(validateUpdate(other({ metadata }), TODAY)).toEqual([
      { field: ['input', 'metadata'], message: 'metadata may hold at most 6 entries (got 7)', code: 'TOO_MANY_ENTRIES' },
      { field: ['input', 'metadata', 'b'], message: 'metadata value of "b" must be a string', code: 'INVALID_TYPE' },
      { field: ['input', 'metadata', 'c'], message: 'metadata value of "c" must be a string', code: 'INVALID_TYPE' },
      { field: ['input', 'metadata', 'd'], message: 'metadata value of "d" must be at most 1024 characters', code: 'TOO_LONG' },
    ]);
  });
});

describe('platformFieldMessage', () => {
  it('puts the field in front of a message that does not start with it', () => {
    expect(platformFieldMessage('number', 'is required')).toBe('number is required');
  });

  it('keeps a message that already names its field, or that has no field', () => {
    expect(platformFieldMessage('number', 'number is required')).toBe('number is required');
    expect(platformFieldMessage('', 'is invalid')).toBe('is invalid');
    // Only the field as a whole word counts.
    expect(platformFieldMessage('number', 'numbers are digits')).toBe('number numbers are digits');
  });
});
