import type { PlatformClient, Query } from './client.ts';
import { rethrowOnArguments, type ArgumentPaths } from './argument-errors.ts';
import { transportError } from './error-mapping.ts';

// The gateway checks what it relies on (a list of records with string ids and,
// for envelopes, a numeric total) and passes the rest through: a 200 that breaks
// this is an upstream fault, reported as UPSTREAM_ERROR instead of a crash later.
// Plain shape checks rather than a schema library: they run on every page of
// every request, and return the platform's own objects without copying them.

/** One page of a list endpoint, as the platform numbers its pages (the endpoint's own base). */
export interface PageParams {
  page: number;
  size: number;
}

/** A page as the platform answered it: `total` is totalElements, null when it gave a bare array. */
export interface ListPage<T> {
  items: T[];
  total: number | null;
  /** The envelope's hasNext, when it had one: with fewer rows than asked, it tells a page-size cap from the list's end. */
  hasNext?: boolean | null;
  /** The envelope's totalPages, when it had one: computed from the size the platform really served. */
  totalPages?: number | null;
}

interface PlatformRecord {
  id: string;
}

function isRecord(value: unknown): value is PlatformRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { id?: unknown }).id === 'string';
}

function areRecords(list: readonly unknown[]): boolean {
  for (const item of list) if (!isRecord(item)) return false;
  return true;
}

/** Whether an object (never an array: readPage takes those first) is a page envelope. */
function isEnvelope(value: unknown): value is { totalElements: number; content: unknown[] } {
  if (typeof value !== 'object' || value === null) return false;
  const { totalElements, content } = value as { totalElements?: unknown; content?: unknown };
  return Number.isSafeInteger(totalElements) && (totalElements as number) >= 0 && Array.isArray(content) && areRecords(content);
}

/** Reads a page envelope, or (where the endpoint may answer one) a bare array without totals. */
export function readPage<T>(body: unknown, options: { bareArrayAllowed: boolean }): ListPage<T> {
  if (Array.isArray(body)) {
    if (options.bareArrayAllowed && areRecords(body)) return { items: body as T[], total: null };
  } else if (isEnvelope(body)) {
    return { items: body.content as T[], total: body.totalElements };
  }
  throw transportError('body', 'not the page the contract describes');
}

/** A platform list endpoint: its route name (breaker, metrics), path, answer shapes and the argument behind each query parameter. */
export interface ListEndpoint {
  route: string;
  path: string;
  bareArrayAllowed: boolean;
  /** The GraphQL argument each query parameter comes from, so the platform's field errors name it. */
  argumentPaths: ArgumentPaths;
}

/**
 * The envelope fields that reveal a silent page-size cap (hasNext, totalPages), when `body` is an
 * envelope that has them: with fewer rows than asked they tell a cap from the list's end.
 */
function capEvidence(body: unknown): Pick<ListPage<unknown>, 'hasNext' | 'totalPages'> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return {};
  const { hasNext, totalPages } = body as { hasNext?: unknown; totalPages?: unknown };
  return {
    hasNext: typeof hasNext === 'boolean' ? hasNext : null,
    totalPages: typeof totalPages === 'number' && Number.isSafeInteger(totalPages) && totalPages >= 0 ? totalPages : null,
  };
}

/**
 * The fetch of one list endpoint: a page for the platform query `query` (without page and size),
 * with the envelope fields that reveal a page-size cap.
 */
export function pageFetcher<T>(endpoint: ListEndpoint): (client: PlatformClient, query: Query, page: PageParams) => Promise<ListPage<T>> {
  const argumentErrors = rethrowOnArguments(endpoint.argumentPaths);
  return async (client, query, page) => {
    const body = await client.get(endpoint.route, endpoint.path, { ...query, page: page.page, size: page.size }).catch(argumentErrors);
    return { ...readPage<T>(body, endpoint), ...capEvidence(body) };
  };
}

/** Reads a single record (e.g. a Document). */
export function readRecord<T>(body: unknown): T {
  if (!isRecord(body)) throw transportError('body', 'not the record the contract describes');
  return body as T;
}
