import { bulkhead } from 'cockatiel';
import DataLoader from 'dataloader';
import type { PlatformClient } from '../platform/client.ts';
import { fetchDocument } from './api.ts';
import type { DocumentModel } from './records.ts';

/**
 * Documents by id for one request: `document(id)`, its aliases and federation
 * entity lookups all go through here, so each distinct id is fetched once, with
 * at most `concurrency` fetches in flight (the platform has no batch endpoint).
 */
export function createDocumentLoader(client: PlatformClient, concurrency: number): DataLoader<string, DocumentModel> {
  const limiter = bulkhead(concurrency, Number.MAX_SAFE_INTEGER);
  return new DataLoader<string, DocumentModel>((ids) =>
    Promise.all(
      ids.map((id) =>
        limiter
          .execute(async (): Promise<DocumentModel> => ({ ...(await fetchDocument(client, id)), receivedAt: Date.now() }))
          .catch((error: Error) => error),
      ),
    ),
  );
}
