import type { ActorRecord } from '../platform/records.ts';

/** A content URL as the platform sends it; the thumbnail spells its method `allow`. */
export interface ContentUrlRecord {
  value: string;
  allowed?: string;
  allow?: string;
  expiresIn?: number | null;
}

/** A Document as `GET`/`PUT /v1/documents/{id}` return it. */
export interface DocumentRecord {
  id: string;
  providerExternalId?: string | null;
  provider?: string | null;
  businessAccountId?: string | null;
  holderId?: string | null;
  holderType?: string | null;
  documentType: string;
  name?: string | null;
  description?: string | null;
  number?: string | null;
  issuingDate?: string | null;
  issuingCountryCode?: string | null;
  issuingStateCode?: string | null;
  extension?: string | null;
  contentLength?: number | null;
  version?: string | null;
  expiryDate?: string | null;
  url?: ContentUrlRecord | null;
  thumbnailUrl?: ContentUrlRecord | null;
  status?: string | null;
  verificationStatus?: string | null;
  metadata?: Record<string, unknown> | null;
  createdBy?: ActorRecord | null;
  createdAt?: string | null;
  updatedBy?: ActorRecord | null;
  updatedAt?: string | null;
}

/**
 * A Document plus the moment the gateway received it: content URLs expire
 * `expiresIn` seconds after issue, and only the receiver knows when that was.
 */
export interface DocumentModel {
  record: DocumentRecord;
  receivedAt: number;
}

/** A content URL ready for the `ContentUrl` type. */
export interface ContentUrlModel {
  value: string;
  allowed: 'GET' | 'PUT';
  expiresIn: number | null;
  receivedAt: number;
}

/** The body `PUT /v1/documents/{id}` accepts: the contract's fields only. */
export interface UpdateDocumentBody {
  documentType: string;
  name: string;
  description?: string;
  number?: string;
  issuingDate?: string;
  issuingCountryCode?: string;
  issuingStateCode?: string;
  expiryDate?: string;
  metadata?: Record<string, unknown>;
}

export interface UserErrorModel {
  field: string[] | null;
  message: string;
  code: string;
}

export interface UpdateDocumentPayloadModel {
  document: DocumentModel | null;
  uploadUrl: ContentUrlModel | null;
  userErrors: UserErrorModel[];
}
