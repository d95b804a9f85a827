import type { Logger } from 'pino';
import { currentRequestId } from '../request/scope.ts';
import { queryString, type PlatformClient, type Query } from '../platform/client.ts';
import type { CursorOwner } from './owner-tag.ts';
import { orderOf } from './order.ts';
import { paginate } from './paginate.ts';
import type { PagingFacts } from './paging-facts.ts';
import type { Connection, ConnectionArgs, ListDescriptor, PagingOptions } from './types.ts';

/**
 * What a connection needs of the request it serves: the caller's platform client, the gateway's
 * paging settings and what it learned about the lists, and where to log. The request context
 * (src/context.ts) is one; the paging library does not depend on it.
 */
export interface ConnectionContext {
  logger: Pick<Logger, 'info' | 'warn'>;
  platform: PlatformClient;
  /** The caller the connection's anchored cursors are sealed for, and the only one who may use them. */
  caller: CursorOwner;
  paging: PagingFacts;
  config: {
    paging: { defaultSize: number; maxSize: number };
    upstream: { maxPageSize: number };
  };
}

function sortOf(query: Query): readonly string[] | undefined {
  const sort = query.sort;
  if (sort === undefined || sort === null) return undefined;
  return typeof sort === 'string' ? [sort] : Array.isArray(sort) ? (sort as readonly string[]) : undefined;
}

/**
 * Paging options of one connection from the gateway's configuration and what it learned about the
 * list. Cursors are bound to the list and its canonical filter + order query, so one made for
 * another filter or order is refused, and anchored to the query's order.
 */
function pagingOptions(ctx: ConnectionContext, descriptor: ListDescriptor<unknown>, query: Query): PagingOptions {
  const { list } = descriptor;
  const facts = ctx.paging;
  return {
    pageBase: descriptor.pageBase,
    binding: `${list}${queryString(query)}`,
    totals: descriptor.totals,
    defaultSize: ctx.config.paging.defaultSize,
    maxSize: ctx.config.paging.maxSize,
    upstreamMaxPageSize: facts.pageSizeFor(list, ctx.config.upstream.maxPageSize),
    order: orderOf(sortOf(query), descriptor.defaultSort),
    caller: ctx.caller,
    onAnchor: (outcome) => {
      facts.recordAnchor({ list, outcome });
      if (outcome !== 'exact') ctx.logger.info({ requestId: currentRequestId(), list, anchor: outcome }, 'cursor record was not where the cursor left it');
    },
    onPageCap: (size) => {
      if (facts.learnPageCap(list, size)) {
        ctx.logger.warn({ requestId: currentRequestId(), list, pageCap: size }, 'the platform serves fewer rows per page than asked; paging with the smaller size from now on');
      }
    },
    onReplan: (calls) => {
      // Reported with the request's calls: its requestedQueryCost adds them (src/budgets/plugin.ts).
      const requestCalls = (ctx.platform as PlatformClient | undefined)?.requestCalls;
      if (requestCalls !== undefined) requestCalls.replanned += calls;
    },
  };
}

/** One page of the Relay connection over `descriptor`'s list, filtered and ordered by `query`. */
export function listConnection<T>(ctx: ConnectionContext, descriptor: ListDescriptor<T>, query: Query, window: ConnectionArgs): Promise<Connection<T>> {
  return paginate(window, pagingOptions(ctx, descriptor, query), (page) => descriptor.fetch(ctx.platform, query, page));
}

