export type {
  Anchor,
  AnchorOutcome,
  Connection,
  ConnectionArgs,
  Edge,
  FetchPage,
  ListDescriptor,
  PageInfo,
  PageRequest,
  PageResult,
  PagingOptions,
  SortKey,
} from './types.ts';
export { ANCHOR_OUTCOMES } from './types.ts';
export { encodeCursor, decodeCursor, encodeAnchoredCursor, readCursor, MAX_CURSOR_POSITION } from './cursor.ts';
export { planPages } from './plan-pages.ts';
export { paginate } from './paginate.ts';
export { listConnection, pagingOptions, type ConnectionContext } from './list-connection.ts';
export { orderOf } from './order.ts';
export { pagingFactsFor, PagingFacts, type AnchorEvent } from './paging-facts.ts';
export { PAGE_CAP_FLOOR, PAGE_CAP_TTL_MS, capShownBy, PageCaps } from './page-cap.ts';
