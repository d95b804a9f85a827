import type { GatewayContext } from '../context.ts';
import { queryString, type Query } from '../platform/client.ts';
import { paginate } from './paginate.ts';
import type { Connection, ConnectionArgs, ListDescriptor, PagingOptions } from './types.ts';

/**
 * Paging options of one connection from the gateway's configuration. Cursors are bound to the
 * list and its canonical filter + order query, so one made for another filter or order is refused.
 */
export function pagingOptions(ctx: GatewayContext, descriptor: ListDescriptor<unknown>, query: Query): PagingOptions {
  return {
    pageBase: descriptor.pageBase,
    binding: `${descriptor.list}${queryString(query)}`,
    totals: descriptor.totals,
    defaultSize: ctx.config.paging.defaultSize,
    maxSize: ctx.config.paging.maxSize,
    upstreamMaxPageSize: ctx.config.upstream.maxPageSize,
  };
}

/** One page of the Relay connection over `descriptor`'s list, filtered and ordered by `query`. */
export function listConnection<T>(ctx: GatewayContext, descriptor: ListDescriptor<T>, query: Query, window: ConnectionArgs): Promise<Connection<T>> {
  return paginate(window, pagingOptions(ctx, descriptor, query), (page) => descriptor.fetch(ctx.platform, query, page));
}
