import type { PlatformClient, Query } from '../platform/client.ts';
import type { CursorOwner } from './owner-tag.ts';

/** One sort key of a connection, named by the record field the platform sorts on. */
export interface SortKey {
  /** A field of the record, dotted for nested fields (`assignedTo.lastName`). */
  field: string;
  descending: boolean;
}

/** A sort-key value as it travels in a cursor: the JSON scalars a platform record holds. */
export type KeyValue = string | number | boolean | null;

/** The record a cursor points at, to find it again when the list has changed since. */
export interface Anchor {
  id: string;
  /** The record's values of the connection's sort keys, in key order; null when too long to carry. */
  keys: KeyValue[] | null;
}

/** Relay connection arguments as a client sends them. */
export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export interface PagingOptions {
  /** The endpoint's index of its first page: 0 for most lists, 1 for LinX batch search. */
  pageBase: 0 | 1;
  /** Page size when the client gives neither first nor last. */
  defaultSize: number;
  /** Largest first/last a client may ask for. */
  maxSize: number;
  /** Largest `size` the gateway sends upstream. */
  upstreamMaxPageSize: number;
  /** Canonical text of the connection's filter and order; cursors only work with the binding they were made for. */
  binding: string;
  /**
   * Whether every response of the endpoint carries totalElements. 'always' (page envelope endpoints)
   * lets windows be fetched without look-ahead. 'sometimes' (the default, safe for endpoints that may
   * answer a bare array) fetches one row past each window so hasNextPage is exact in the same call.
   * pageInfo is exact either way; this only decides how many rows and calls that takes.
   */
  totals?: 'always' | 'sometimes';
  /**
   * How far `last` without `before` may walk a list that reports no total before giving up with
   * BAD_USER_INPUT (default 10000 records).
   */
  maxWalkRecords?: number;
  /**
   * The connection's order, tiebreak included. Given, cursors are anchored: they also carry the id
   * and sort-key values of their record, and a later page finds that record again where the list
   * has moved it (docs/paging.md). Without it, cursors are plain positions.
   */
  order?: readonly SortKey[];
  /**
   * Who the request's anchored cursors are sealed for and read by (the request's token); no caller
   * without it. Another caller's anchored cursor is refused.
   */
  caller?: CursorOwner;
  /** Told, for each anchored cursor of a request, how it was found again. */
  onAnchor?: (outcome: AnchorOutcome) => void;
  /** Told when a response shows the platform serving fewer rows per page than asked, with the size it served. */
  onPageCap?: (size: number) => void;
  /**
   * Told, before they are sent, of the calls a request plans once one of its answers showed a cap:
   * the estimate made before it ran could not count them (src/budgets/estimate.ts).
   */
  onReplan?: (calls: number) => void;
}

/**
 * How an anchored cursor was found again: `exact` where it was; `moved` elsewhere in the first
 * call's rows; `widened` by the one wider call; `sort-keys` by the first row after its sort-key
 * values; `offset` at its old position, nothing better being known; `unverified` at its old
 * position because its row could not share the window's one call and nothing in the window
 * contradicted it.
 */
export type AnchorOutcome = 'exact' | 'moved' | 'widened' | 'sort-keys' | 'offset' | 'unverified';

/** One upstream page request; `page` is in the endpoint's own base. */
export interface PageRequest {
  page: number;
  size: number;
}

/** What the platform answered: total is totalElements, null when it gave a bare array. */
export interface PageResult<T> {
  items: T[];
  total: number | null;
  /** The envelope's hasNext, when it had one: with fewer rows than asked, it reveals a page-size cap. */
  hasNext?: boolean | null;
  /** The envelope's totalPages, when it had one: computed from the size the platform really served. */
  totalPages?: number | null;
}

export type FetchPage<T> = (request: PageRequest) => Promise<PageResult<T>>;

export interface Edge<T> {
  cursor: string;
  node: T;
}

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export interface Connection<T> {
  edges: Edge<T>[];
  nodes: T[];
  pageInfo: PageInfo;
  /** totalElements as the platform reported it; null when the endpoint answered without totals. */
  totalCount: number | null;
}

/**
 * What the connections code needs to know about one platform list, declared once in its area's
 * `api.ts`: its name, how its pages are numbered, whether its answers carry totals, and how to
 * fetch one page of it.
 */
export interface ListDescriptor<T> {
  /** Begins every cursor binding of the list, so a cursor of one list is refused by another. */
  readonly list: string;
  /** The endpoint's index of its first page. */
  readonly pageBase: 0 | 1;
  /** See PagingOptions.totals. */
  readonly totals: 'always' | 'sometimes';
  /** The platform's order when the query has no `sort`, as `sort` parameters. */
  readonly defaultSort: readonly string[];
  /** One page of the list, for the filter and order in `query` (the platform query without page and size). */
  fetch(client: PlatformClient, query: Query, page: PageRequest): Promise<PageResult<T>>;
}
