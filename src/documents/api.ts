import type { PlatformClient } from '../platform/client.ts';
import { readRecord } from '../platform/pages.ts';
import type { DocumentRecord, UpdateDocumentBody } from './records.ts';

/** `GET /v1/documents/{id}`: the id always travels as one encoded path segment. The caller keeps the record (loader.ts). */
export async function fetchDocument(client: PlatformClient, id: string): Promise<DocumentRecord> {
  const body = await client.getUncached('documents.get', `/v1/documents/${client.segment(id)}`);
  return readRecord<DocumentRecord>(body);
}

/** `PUT /v1/documents/{id}`: sent exactly once, never retried. */
export async function updateDocument(client: PlatformClient, id: string, details: UpdateDocumentBody): Promise<DocumentRecord> {
  const body = await client.put('documents.update', `/v1/documents/${client.segment(id)}`, details);
  return readRecord<DocumentRecord>(body);
}
