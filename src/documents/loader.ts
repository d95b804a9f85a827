import DataLoader from 'dataloader';
import { Bulkhead } from '../platform/bulkhead.ts';
import type { PlatformClient } from '../platform/client.ts';
import { fetchDocument } from './api.ts';
import type { DocumentModel } from './records.ts';

/**
 * Documents by id for one request: `document(id)`, its aliases and federation
 * entity lookups all go through here, so each distinct id is fetched once, with
 * at most `concurrency` fetches in flight (the platform has no batch endpoint).
 * This loader is the request's only cache of documents (fetchDocument bypasses the
 * client's GET cache): one record, one `receivedAt`, and an update's prime() is
 * the copy every later lookup sees. Identical fetches of concurrent requests are
 * joined further down, by the platform seam's shared reads (docs/platform.md).
 */
export function createDocumentLoader(client: PlatformClient, concurrency: number): DataLoader<string, DocumentModel> {
  // The platform routes' bulkhead, with an unbounded queue: a request waits for its own slots,
  // never refused; its deadline stops a queued fetch when the fetch starts (PolicyChain.send).
  const slots = new Bulkhead(concurrency, Number.POSITIVE_INFINITY);
  const fetchWithin = async (id: string): Promise<DocumentModel> => {
    const queued = slots.acquire();
    if (queued !== undefined) await queued;
    try {
      return { ...(await fetchDocument(client, id)), receivedAt: Date.now() };
    } finally {
      slots.release();
    }
  };
  return new DataLoader<string, DocumentModel>((ids) => Promise.all(ids.map((id) => fetchWithin(id).catch((error: Error) => error))));
}
