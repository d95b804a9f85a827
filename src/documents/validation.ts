import type { DocumentType, UpdateDocumentInput } from '../generated/graphql.ts';
import type { UserErrorModel } from './records.ts';

// The contract's rules for a document update, checked before the platform is
// called so that a form gets every problem at once and nothing is sent.

const NEEDS_DESCRIPTION: ReadonlySet<DocumentType> = new Set(['FORMATION', 'TAX', 'OWNERSHIP', 'OTHER']);
const IDENTITY: ReadonlySet<DocumentType> = new Set(['DRIVING_LICENSE', 'PASSPORT']);
const CODE = /^[A-Z]{2,3}$/;
const MAX_METADATA_ENTRIES = 6;
const MAX_METADATA_VALUE = 1024;

const error = (field: string[], message: string, code: string): UserErrorModel => ({ field: ['input', ...field], message, code });

function blank(value: string | null | undefined): boolean {
  return value === null || value === undefined || value.length === 0;
}

function length(field: string, value: string | null | undefined, min: number, max: number, errors: UserErrorModel[]) {
  if (value === null || value === undefined) return;
  if (value.length < min) errors.push(error([field], `${field} must be at least ${min} character${min === 1 ? '' : 's'}`, 'TOO_SHORT'));
  if (value.length > max) errors.push(error([field], `${field} must be at most ${max} characters`, 'TOO_LONG'));
}

/** Every broken rule of the input; empty when the platform may be called. `today` is yyyy-mm-dd (UTC). */
export function validateUpdate(input: UpdateDocumentInput, today: string): UserErrorModel[] {
  const errors: UserErrorModel[] = [];
  const type = input.documentType;

  length('name', input.name, 1, 40, errors);
  length('description', input.description, 1, 100, errors);
  if (NEEDS_DESCRIPTION.has(type) && blank(input.description)) {
    errors.push(error(['description'], `description is required for ${type} documents`, 'REQUIRED'));
  }
  if (IDENTITY.has(type)) {
    if (blank(input.number)) errors.push(error(['number'], `number is required for ${type} documents`, 'REQUIRED'));
    if (blank(input.issuingCountryCode)) errors.push(error(['issuingCountryCode'], `issuingCountryCode is required for ${type} documents`, 'REQUIRED'));
    if (blank(input.expiryDate)) errors.push(error(['expiryDate'], `expiryDate is required for ${type} documents`, 'REQUIRED'));
  }
  if (type === 'DRIVING_LICENSE' && blank(input.issuingStateCode)) {
    errors.push(error(['issuingStateCode'], 'issuingStateCode is required for DRIVING_LICENSE documents', 'REQUIRED'));
  }
  for (const field of ['issuingCountryCode', 'issuingStateCode'] as const) {
    const value = input[field];
    if (!blank(value) && !CODE.test(value!)) {
      errors.push(error([field], `${field} must be 2 or 3 uppercase letters (ISO 3166)`, 'INVALID_FORMAT'));
    }
  }
  if (input.issuingDate && input.issuingDate > today) {
    errors.push(error(['issuingDate'], `issuingDate must not be in the future (today is ${today})`, 'IN_FUTURE'));
  }
  if (input.metadata) {
    const entries = Object.entries(input.metadata);
    if (entries.length > MAX_METADATA_ENTRIES) {
      errors.push(error(['metadata'], `metadata may hold at most ${MAX_METADATA_ENTRIES} entries (got ${entries.length})`, 'TOO_MANY_ENTRIES'));
    }
    for (const [key, value] of entries) {
      if (typeof value !== 'string') errors.push(error(['metadata', key], `metadata value of "${key}" must be a string`, 'INVALID_TYPE'));
      else if (value.length > MAX_METADATA_VALUE) {
        errors.push(error(['metadata', key], `metadata value of "${key}" must be at most ${MAX_METADATA_VALUE} characters`, 'TOO_LONG'));
      }
    }
  }
  return errors;
}

/**
 * A platform field error (`{ path: "number", message: "is required" }`) worded
 * like the gateway's own checks ("number is required for PASSPORT documents"):
 * a sentence that names the field, so a client shows either kind the same way.
 */
export function platformFieldMessage(path: string, message: string): string {
  if (path === '' || message.startsWith(`${path} `)) return message;
  return `${path} ${message}`;
}
