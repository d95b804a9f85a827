export type {
  Connection,
  ConnectionArgs,
  Edge,
  FetchPage,
  ListDescriptor,
  PageInfo,
  PageRequest,
  PageResult,
  PagingOptions,
} from './types.ts';
export { encodeCursor, decodeCursor, MAX_CURSOR_POSITION } from './cursor.ts';
export { planPages } from './plan-pages.ts';
export { paginate } from './paginate.ts';
export { listConnection, pagingOptions } from './list-connection.ts';
export { orderOf, type SortKey } from './order.ts';
export { ANCHOR_OUTCOMES, type AnchorOutcome } from './types.ts';
export { encodeAnchoredCursor, readCursor, type Anchor } from './cursor.ts';
export { pagingFactsFor, PagingFacts, type AnchorEvent } from './paging-facts.ts';
export { PAGE_CAP_FLOOR, PAGE_CAP_TTL_MS, capShownBy, PageCaps } from './page-cap.ts';
