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
