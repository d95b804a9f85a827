import type { RecordFeed } from '../subscriptions/index.ts';
import { fetchDocument } from './api.ts';
import type { DocumentModel, DocumentRecord } from './records.ts';

/**
 * `documentChanged`: the document, sent when any field but its content URLs changed. The URLs are
 * signed per answer with their own expiry, so they differ on every read; a new file shows in
 * `version`, `status` and the other fields.
 */
export const documentFeed: RecordFeed<DocumentRecord, DocumentModel> = {
  kind: 'record',
  field: 'documentChanged',
  read: (platform, id) => fetchDocument(platform, id),
  fingerprint: (record) => JSON.stringify({ ...record, url: undefined, thumbnailUrl: undefined }),
  value: (record, receivedAt): DocumentModel => ({ ...record, receivedAt }),
};
