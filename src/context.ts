import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type DataLoader from 'dataloader';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { PagingOptions } from './connections/index.ts';
import { createDocumentLoader } from './documents/loader.ts';
import type { DocumentModel } from './documents/records.ts';
import { requestSignal } from './platform/cancellation.ts';
import { PlatformClient, queryString, type Query } from './platform/client.ts';
import type { PlatformHttp } from './platform/http.ts';

/** Everything one GraphQL request may use. Built fresh per request; nothing in it outlives the request. */
export interface GatewayContext {
  requestId: string;
  config: Config;
  logger: Logger;
  platform: PlatformClient;
  loaders: {
    document: DataLoader<string, DocumentModel>;
  };
}

export interface ContextDependencies {
  config: Config;
  http: PlatformHttp;
  logger: Logger;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The caller's x-request-id when it is a sane token, else a fresh one: it is echoed into logs and errors. */
export function requestIdFrom(headers: IncomingHttpHeaders): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * The per-request client and its loaders, created together so they share the caller's token and lifetime.
 * With the HTTP `response`, a caller that closes the connection early stops the request's platform calls;
 * the request deadline (REQUEST_DEADLINE_MS) stops them in any case.
 */
export function createContext(
  deps: ContextDependencies,
  headers: IncomingHttpHeaders,
  requestId = requestIdFrom(headers),
  response?: ServerResponse,
): GatewayContext {
  const signal = requestSignal(deps.config.requestDeadlineMs, response);
  const platform = new PlatformClient(deps.http, headers.authorization, requestId, signal);
  return {
    requestId,
    config: deps.config,
    logger: deps.logger,
    platform,
    loaders: { document: createDocumentLoader(platform, deps.config.documentLoaderConcurrency) },
  };
}

/**
 * Paging options of one connection from the gateway's configuration. Cursors are
 * bound to the list and its canonical filter + order query, so one made for
 * another filter or order is refused.
 */
export function pagingOptions(ctx: GatewayContext, list: string, query: Query, pageBase: 0 | 1, totals: PagingOptions['totals']): PagingOptions {
  return {
    pageBase,
    binding: `${list}${queryString(query)}`,
    totals,
    defaultSize: ctx.config.paging.defaultSize,
    maxSize: ctx.config.paging.maxSize,
    upstreamMaxPageSize: ctx.config.upstream.maxPageSize,
  };
}
