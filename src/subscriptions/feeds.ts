import type { PlatformClient, Query } from '../platform/client.ts';

/**
 * A feed over one platform list: what the area knows of its list (src/<area>/feeds.ts), the rest
 * is the pollers'. The list is read newest first by the feed's time, with the subscription's filter.
 */
export interface ListFeed<R extends { readonly id: string }> {
  readonly kind: 'list';
  /** The Subscription field. */
  readonly field: string;
  /** The record's time in the feed's order: updatedAt, or createdAt for a feed of creations. */
  time(record: R): string | null | undefined;
  /** Page `index` (0 first) of `size` records of the list newest first by `time`, with `query`'s filter. */
  page(platform: PlatformClient, query: Query, index: number, size: number): Promise<readonly R[]>;
}

/** A feed over one platform record, sent whole when it changes. */
export interface RecordFeed<R, V = unknown> {
  readonly kind: 'record';
  readonly field: string;
  read(platform: PlatformClient, id: string): Promise<R>;
  /** The record without what changes on every read (signed URLs and their expiries): equal texts, no change. */
  fingerprint(record: R): string;
  /** What the field resolves to: the record as received at `receivedAt`. */
  value(record: R, receivedAt: number): V;
}

