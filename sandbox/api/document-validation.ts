/** The rules of PUT /v1/documents/{documentId}, all checked at once. */
import type { FieldError } from './query.ts';
import { DOCUMENT_TYPES } from '../data/records.ts';
import type { DocumentRecord, DocumentType } from '../data/records.ts';

/** The details a PUT replaces; everything else on the document is kept. */
type DocumentDetails = Pick<DocumentRecord, 'name' | 'description' | 'number' | 'issuingDate' | 'issuingCountryCode' | 'issuingStateCode' | 'expiryDate' | 'metadata'>;

/** Violations that are about changing what cannot change (answered 422), as opposed to a malformed body (400). */
export const IMMUTABLE_ERROR_CODES: ReadonlySet<string> = new Set(['DOCUMENT_TYPE_IMMUTABLE', 'EXTENSION_IMMUTABLE', 'CONTENT_LENGTH_IMMUTABLE']);

const DESCRIPTION_REQUIRED: ReadonlySet<DocumentType> = new Set(['formation', 'tax', 'ownership', 'other']);
const IDENTITY: ReadonlySet<DocumentType> = new Set(['driving-license', 'passport']);
const COUNTRY_CODE = /^[A-Z]{2,3}$/;
const STATE_CODE = /^[A-Z0-9]{2,3}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MAX_METADATA_ENTRIES = 6;
const MAX_METADATA_VALUE = 1024;

function isRealDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** [errorCode, message] */
type Problem = readonly [string, string];

export interface ValidationOutcome {
  readonly errors: FieldError[];
  /** Present exactly when there are no errors. */
  readonly details?: DocumentDetails;
}

/**
 * Conditional requirements follow the stored documentType: the type cannot
 * change, so the stored one is the type the document keeps. `today` is the
 * current UTC date (yyyy-mm-dd) for the "not in the future" rule.
 */
export function validateDocumentUpdate(body: Readonly<Record<string, unknown>>, stored: DocumentRecord, today: string): ValidationOutcome {
  const errors: FieldError[] = [];
  const fail = (path: string, message: string, errorCode: string): void => {
    errors.push({ path, message, errorCode });
  };
  const present = (field: string): boolean => body[field] !== undefined && body[field] !== null;
  const type = stored.documentType;

  if (!present('documentType')) fail('documentType', 'is required', 'REQUIRED');
  else if (!(DOCUMENT_TYPES as readonly unknown[]).includes(body.documentType)) fail('documentType', `must be one of ${DOCUMENT_TYPES.join(', ')}`, 'INVALID_VALUE');
  else if (body.documentType !== type) fail('documentType', `cannot change from ${type}`, 'DOCUMENT_TYPE_IMMUTABLE');
  if (present('extension') && body.extension !== stored.extension) fail('extension', `cannot change from ${stored.extension}`, 'EXTENSION_IMMUTABLE');
  if (present('contentLength') && body.contentLength !== stored.contentLength) fail('contentLength', `cannot change from ${stored.contentLength}`, 'CONTENT_LENGTH_IMMUTABLE');

  /** A string field: undefined when absent or invalid (the violation is recorded). */
  const text = (field: string, required: boolean, check?: (value: string) => Problem | undefined): string | undefined => {
    if (!present(field)) {
      if (required) fail(field, 'is required', 'REQUIRED');
      return undefined;
    }
    const value = body[field];
    if (typeof value !== 'string') {
      fail(field, 'must be a string', 'INVALID_TYPE');
      return undefined;
    }
    const problem = check?.(value);
    if (problem !== undefined) {
      fail(field, problem[1], problem[0]);
      return undefined;
    }
    return value;
  };
  const length = (min: number, max: number) => (value: string): Problem | undefined =>
    value.length < min || value.length > max ? ['LENGTH', `length must be between ${min} and ${max}`] : undefined;
  const date = (value: string): Problem | undefined => (isRealDate(value) ? undefined : ['INVALID_DATE', 'must be a real date in the form yyyy-mm-dd']);

  const name = text('name', true, length(1, 40));
  const description = text('description', DESCRIPTION_REQUIRED.has(type), length(1, 100));
  const number = text('number', IDENTITY.has(type), (value) => (value.length === 0 ? ['LENGTH', 'must not be empty'] : undefined));
  const issuingDate = text('issuingDate', false, (value) => date(value) ?? (value > today ? ['FUTURE_DATE', 'must not be in the future'] : undefined));
  const issuingCountryCode = text('issuingCountryCode', IDENTITY.has(type), (value) =>
    COUNTRY_CODE.test(value) ? undefined : ['PATTERN', 'must be 2 to 3 uppercase letters (ISO 3166-1 alpha-2 or alpha-3)']);
  const issuingStateCode = text('issuingStateCode', type === 'driving-license', (value) =>
    STATE_CODE.test(value) ? undefined : ['PATTERN', 'must be 2 to 3 uppercase letters or digits (ISO 3166-2 subdivision)']);
  const expiryDate = text('expiryDate', IDENTITY.has(type), date);

  let metadata: Record<string, string> | undefined;
  if (present('metadata')) {
    const value = body.metadata;
    if (typeof value !== 'object' || Array.isArray(value)) fail('metadata', 'must be an object of string values', 'INVALID_TYPE');
    else {
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.length > MAX_METADATA_ENTRIES) fail('metadata', `must have at most ${MAX_METADATA_ENTRIES} entries`, 'TOO_MANY_ENTRIES');
      metadata = {};
      for (const [key, entry] of entries) {
        if (typeof entry !== 'string') fail(`metadata.${key}`, 'must be a string', 'INVALID_TYPE');
        else if (entry.length > MAX_METADATA_VALUE) fail(`metadata.${key}`, `must be at most ${MAX_METADATA_VALUE} characters`, 'TOO_LONG');
        else metadata[key] = entry;
      }
    }
  }

  if (errors.length > 0 || name === undefined) return { errors };
  const details: DocumentDetails = {
    name,
    ...(description === undefined ? {} : { description }),
    ...(number === undefined ? {} : { number }),
    ...(issuingDate === undefined ? {} : { issuingDate }),
    ...(issuingCountryCode === undefined ? {} : { issuingCountryCode }),
    ...(issuingStateCode === undefined ? {} : { issuingStateCode }),
    ...(expiryDate === undefined ? {} : { expiryDate }),
    ...(metadata === undefined ? {} : { metadata }),
  };
  return { errors, details };
}
