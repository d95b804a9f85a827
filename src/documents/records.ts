import type { PlatformSchema, Received, ReceivedRecord } from '../platform/records.ts';

/** A content URL as the platform sends it; the thumbnail spells its method `allow`. */
export type ContentUrlRecord = Received<PlatformSchema['ContentUrl']>;

/** A Document as `GET`/`PUT /v1/documents/{id}` return it. */
export type DocumentRecord = ReceivedRecord<PlatformSchema['Document']>;

/**
 * The `Document` type's parent: the record as received, plus the moment the
 * gateway received it. Content URLs expire `expiresIn` seconds after issue, and
 * only the receiver knows when that was. Fields the schema names like the
 * record's resolve by default; `receivedAt` is not in the schema.
 */
export type DocumentModel = DocumentRecord & { readonly receivedAt: number };

/** A content URL ready for the `ContentUrl` type. */
export interface ContentUrlModel {
  value: string;
  allowed: 'GET' | 'PUT';
  expiresIn: number | null;
  receivedAt: number;
}

/** The body `PUT /v1/documents/{id}` accepts: the contract's fields only. */
export type UpdateDocumentBody = PlatformSchema['DocumentUpdate'];

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
