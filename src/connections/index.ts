export type {
  Anchor,
  AnchorOutcome,
  Connection,
  ConnectionArgs,
  Edge,
  FetchPage,
  ListDescriptor,
  PageRequest,
  PageResult,
  PagingOptions,
  SortKey,
} from './types.ts';
export { encodeCursor, decodeCursor, encodeAnchoredCursor, readCursor, MAX_CURSOR_POSITION } from './cursor.ts';
export { CursorOwner } from './owner-tag.ts';
export { planPages } from './plan-pages.ts';
export { paginate } from './paginate.ts';
export { listConnection } from './list-connection.ts';
export { orderOf } from './order.ts';
export { PagingFacts } from './paging-facts.ts';
export { PAGE_CAP_FLOOR, PAGE_CAP_TTL_MS, capShownBy } from './page-cap.ts';
