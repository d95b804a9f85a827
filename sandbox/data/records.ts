/** Records in the platform's JSON shape, exactly as the API returns them. */

export const ACTOR_TYPES = ['employee', 'internal', 'operator_employee', 'service-account'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];
/** `id` is blank ("") or absent when the type is internal. */
export interface Actor { readonly id?: string; readonly type: ActorType }

export const EXCEPTION_CATEGORIES = ['BANK_ACCOUNT_VERIFICATION', 'CUSTOMER', 'TRANSACTION'] as const;
export type ExceptionCategory = (typeof EXCEPTION_CATEGORIES)[number];
export const EXCEPTION_TYPES = ['ACH_RETURN', 'ACH_NOC', 'BANK_ACCOUNT_VERIFICATION_DECLINED', 'BANK_ACCOUNT_VERIFICATION_NOC', 'EARNED_WAGE_ACCESS', 'RECONCILIATION'] as const;
export type ExceptionType = (typeof EXCEPTION_TYPES)[number];
export const EXCEPTION_STATUSES = ['NEW', 'IN_PROGRESS', 'RESOLVED', 'REOPENED'] as const;
export type ExceptionStatus = (typeof EXCEPTION_STATUSES)[number];

export interface Assignee { readonly id: string; readonly firstName: string; readonly lastName: string; readonly email: string }

export interface Note {
  readonly id: string;
  readonly entityId: string;
  readonly entityType: string;
  readonly title: string;
  readonly contentText: string;
  readonly businessAccountId: string;
  readonly createdBy: Actor;
  readonly createdAt: string;
  readonly updatedBy: Actor;
  readonly updatedAt: string;
}

/** `assignedTo` is absent when nobody is assigned. */
export interface ExceptionRecord {
  readonly id: string;
  readonly entityId: string;
  readonly businessAccountId: string;
  readonly assignedTo?: Assignee;
  readonly category: ExceptionCategory;
  readonly type: ExceptionType;
  readonly notes: Note;
  readonly status: ExceptionStatus;
  readonly description: string;
  readonly createdBy: Actor;
  readonly createdAt: string;
  readonly updatedBy: Actor;
  readonly updatedAt: string;
}

export interface AcceptanceRecord {
  readonly id: string;
  readonly documentId: string;
  readonly documentVersion: string;
  readonly acceptorType: string;
  readonly acceptorId: string;
  readonly businessAccountId: string;
  readonly scopes: { readonly FINANCIAL_ACCOUNT_ID: string };
  readonly metadata: Readonly<Record<string, string>>;
  readonly accepted: boolean;
  readonly respondedAt: string;
  readonly createdBy: Actor;
  readonly createdAt: string;
  readonly downloadUrl: string;
}

/** Values the LinX search accepts as a status filter. */
export const LINX_FILTER_STATUSES = ['NEW', 'QUEUED', 'COMPLETED', 'INVALID', 'CANCELLING', 'FAILED'] as const;
/** Values a returned batch carries: the filter values plus ACTIVE. */
export const LINX_STATUSES = [...LINX_FILTER_STATUSES, 'ACTIVE'] as const;
export type LinxStatus = (typeof LINX_STATUSES)[number];

export interface LinxBatchRecord {
  readonly id: string;
  readonly status: LinxStatus;
  readonly templateId: string;
  readonly templateVersionId: string;
  readonly templateVersion: number;
  readonly templateDisplayName: string;
  readonly activeRequestsCount: number;
  readonly cancelledRequestsCount: number;
  readonly completedRequestsCount: number;
  readonly declinedRequestsCount: number;
  readonly expiredRequestsCount: number;
  readonly failedRequestsCount: number;
  readonly rejectedRequestsCount: number;
  readonly totalRequestsCount: number;
  readonly createdBy: Actor;
  readonly createdAt: string;
  readonly updatedBy: Actor;
  readonly updatedAt: string;
}

export interface LinxTemplateVersion { readonly templateVersionId: string; readonly templateVersion: number; readonly displayName: string }
export interface LinxTemplate { readonly templateId: string; readonly versions: readonly LinxTemplateVersion[] }

export const DOCUMENT_TYPES = ['driving-license', 'passport', 'formation', 'tax', 'ownership', 'other'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
export const HOLDER_TYPES = ['BENEFICIARY', 'BUSINESS_ACCOUNT', 'CUSTOMER'] as const;
export type HolderType = (typeof HOLDER_TYPES)[number];
export const DOCUMENT_STATUSES = ['NEW', 'UPLOADED', 'INCOMPLETE', 'SCANNED', 'MALICIOUS'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];
export const DOCUMENT_EXTENSIONS = ['JPG', 'JPEG', 'PNG', 'PDF'] as const;
export type DocumentExtension = (typeof DOCUMENT_EXTENSIONS)[number];
export type VerificationStatus = 'UNVERIFIED' | 'VERIFIED';

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
export interface DocumentRecord {
  readonly id: string;
  readonly providerExternalId?: string;
  readonly provider?: string;
  readonly businessAccountId: string;
  readonly holderId: string;
  readonly holderType: HolderType;
  readonly documentType: DocumentType;
  readonly name: string;
  readonly description?: string;
  readonly number?: string;
  readonly issuingDate?: string;
  readonly issuingCountryCode?: string;
  readonly issuingStateCode?: string;
  readonly extension: DocumentExtension;
  readonly contentLength: number;
  readonly version: string;
  readonly expiryDate?: string;
  readonly status: DocumentStatus;
  readonly verificationStatus: VerificationStatus;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly createdBy: Actor;
  readonly createdAt: string;
  readonly updatedBy: Actor;
  readonly updatedAt: string;
}

export interface ContentUrl { readonly value: string; readonly allowed: 'GET' | 'PUT'; readonly expiresIn: number }
/** The thumbnail's URL object spells its method field `allow`. */
export interface ThumbnailUrl { readonly value: string; readonly allow: 'GET'; readonly expiresIn: number }
