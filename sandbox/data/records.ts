/**
 * Records in the platform's JSON shape, exactly as the API returns them. The
 * shapes are the contract's (openapi/platform.yaml, generated into
 * openapi/platform.ts): the gateway reads the same file, so the two cannot
 * disagree on a field's name or type without the compiler noticing. The import
 * is type-only and erased at run time: the sandbox shares no code with anyone.
 */
import type { components } from '../../openapi/platform.ts';

type Schema = components['schemas'];

/**
 * The contract leaves every response field optional; the sandbox always sends
 * them, except those named in `Optional`. `Nested` replaces fields whose value is
 * itself such a record (or narrows it), so they are complete too. Read-only.
 */
type Sent<T, Optional extends keyof T = never, Nested extends Partial<Record<keyof T, unknown>> = Record<never, never>> = Readonly<
  Omit<Required<Omit<T, Optional>> & Pick<T, Optional>, keyof Nested> & Nested
>;

/** Every value of the contract's enum `T`, each once: the compiler refuses a list that misses one or invents one. */
function enumValues<T extends string>() {
  return <const V extends readonly T[]>(values: V & ([T] extends [V[number]] ? unknown : { missing: Exclude<T, V[number]> })): V => values;
}

/** `id` is blank ("") or absent when the type is internal. */
export type Actor = Sent<Schema['Actor'], 'id'>;
type Actors = { createdBy: Actor; updatedBy: Actor };

export type ExceptionCategory = Schema['ExceptionCategory'];
export const EXCEPTION_CATEGORIES = enumValues<ExceptionCategory>()(['BANK_ACCOUNT_VERIFICATION', 'CUSTOMER', 'TRANSACTION']);
export type ExceptionType = Schema['ExceptionType'];
export const EXCEPTION_TYPES = enumValues<ExceptionType>()(['ACH_RETURN', 'ACH_NOC', 'BANK_ACCOUNT_VERIFICATION_DECLINED', 'BANK_ACCOUNT_VERIFICATION_NOC', 'EARNED_WAGE_ACCESS', 'RECONCILIATION']);
export type ExceptionStatus = Schema['ExceptionStatus'];
export const EXCEPTION_STATUSES = enumValues<ExceptionStatus>()(['NEW', 'IN_PROGRESS', 'RESOLVED', 'REOPENED']);

export type Assignee = Sent<Schema['Assignee']>;

export type Note = Sent<Schema['Note'], never, Actors>;

/** `assignedTo` is absent when nobody is assigned. */
export type ExceptionRecord = Sent<Schema['Exception'], 'assignedTo', Actors & { assignedTo?: Assignee; notes: Note }>;

export type AcceptanceRecord = Sent<
  Schema['DocumentAcceptance'],
  never,
  { scopes: { readonly FINANCIAL_ACCOUNT_ID: string }; metadata: Readonly<Record<string, string>>; createdBy: Actor }
>;

/** Values the LinX search accepts as a status filter. */
export const LINX_FILTER_STATUSES = enumValues<Schema['LinxBatchStatusFilter']>()(['NEW', 'QUEUED', 'COMPLETED', 'INVALID', 'CANCELLING', 'FAILED']);
/** Values a returned batch carries: the filter values plus ACTIVE (the contract leaves the set open). */
export const LINX_STATUSES = [...LINX_FILTER_STATUSES, 'ACTIVE'] as const;
export type LinxStatus = (typeof LINX_STATUSES)[number];

export type LinxBatchRecord = Sent<Schema['LinxBatchDetail'], never, Actors & { status: LinxStatus }>;

interface LinxTemplateVersion { readonly templateVersionId: string; readonly templateVersion: number; readonly displayName: string }
export interface LinxTemplate { readonly templateId: string; readonly versions: readonly LinxTemplateVersion[] }

export type DocumentType = Schema['DocumentType'];
export const DOCUMENT_TYPES = enumValues<DocumentType>()(['driving-license', 'passport', 'formation', 'tax', 'ownership', 'other']);
export type HolderType = Schema['HolderType'];
export type DocumentStatus = Schema['DocumentStatus'];
export const DOCUMENT_STATUSES = enumValues<DocumentStatus>()(['NEW', 'UPLOADED', 'INCOMPLETE', 'SCANNED', 'MALICIOUS']);
export type DocumentExtension = Schema['FileExtension'];
export const DOCUMENT_EXTENSIONS = enumValues<DocumentExtension>()(['JPG', 'JPEG', 'PNG', 'PDF']);

/**
 * Which holder may carry which document type. CUSTOMER covers individual and
 * business customers: driving-license/passport belong to individuals,
 * formation/tax/ownership to businesses, `other` to either.
 */
export const DOCUMENT_APPLICABILITY: Readonly<Record<DocumentType, readonly HolderType[]>> = {
  'driving-license': ['CUSTOMER', 'BENEFICIARY'],
  passport: ['CUSTOMER', 'BENEFICIARY'],
  formation: ['CUSTOMER'],
  tax: ['CUSTOMER'],
  ownership: ['CUSTOMER'],
  other: ['CUSTOMER', 'BENEFICIARY', 'BUSINESS_ACCOUNT'],
};

/**
 * A stored document. The content URLs (url, thumbnailUrl) are not part of the
 * record: they are signed and time-limited, so each response mints its own.
 * Optional details are absent rather than null.
 */
export type DocumentRecord = Sent<
  Omit<Schema['Document'], 'url' | 'thumbnailUrl'>,
  'providerExternalId' | 'provider' | 'description' | 'number' | 'issuingDate' | 'issuingCountryCode' | 'issuingStateCode' | 'expiryDate' | 'metadata',
  Actors & { metadata?: Readonly<Record<string, string>> }
>;

export type ContentUrl = Sent<Omit<Schema['ContentUrl'], 'allow'>>;
/** The thumbnail's URL object spells its method field `allow`. */
export type ThumbnailUrl = Sent<Omit<Schema['ContentUrl'], 'allowed'>, never, { allow: 'GET' }>;
