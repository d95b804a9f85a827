import { badUserInput } from '../errors.ts';
import { cursorEncoder, decodeCursor } from './cursor.ts';
import { ListKnowledge } from './list-knowledge.ts';
import { planPages } from './plan-pages.ts';
import type { Connection, ConnectionArgs, FetchPage, PagingOptions } from './types.ts';

const DEFAULT_MAX_WALK_RECORDS = 10_000;

type Settings = Required<PagingOptions>;

/** Positions [start, end) of the full ordered list that the arguments select. */
interface Window {
  start: number;
  end: number;
}

interface WindowArgs {
  start: number;
  before: number | null;
  first: number | null;
  last: number | null;
}

function isCount(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min;
}

function readOptions(options: PagingOptions): Settings {
  const { pageBase, defaultSize, maxSize, upstreamMaxPageSize, binding } = options;
  const totals = options.totals ?? 'sometimes';
  const maxWalkRecords = options.maxWalkRecords ?? DEFAULT_MAX_WALK_RECORDS;
  if (pageBase !== 0 && pageBase !== 1) throw new TypeError(`pageBase must be 0 or 1, got ${String(pageBase)}`);
  if (!isCount(maxSize, 1)) throw new TypeError(`maxSize must be a positive integer, got ${maxSize}`);
  if (!isCount(defaultSize, 1) || defaultSize > maxSize) {
    throw new TypeError(`defaultSize must be between 1 and maxSize (${maxSize}), got ${defaultSize}`);
  }
  if (!isCount(upstreamMaxPageSize, 1)) {
    throw new TypeError(`upstreamMaxPageSize must be a positive integer, got ${upstreamMaxPageSize}`);
  }
  if (typeof binding !== 'string') throw new TypeError('binding must be a string');
  if (totals !== 'always' && totals !== 'sometimes') throw new TypeError(`totals must be 'always' or 'sometimes'`);
  if (!isCount(maxWalkRecords, 0)) throw new TypeError(`maxWalkRecords must be a non-negative integer`);
  return { pageBase, defaultSize, maxSize, upstreamMaxPageSize, binding, totals, maxWalkRecords };
}

function readSize(name: 'first' | 'last', value: number | null | undefined, maxSize: number): number | null {
  if (value === null || value === undefined) return null;
  if (!isCount(value, 0) || value > maxSize) throw badUserInput(`${name} must be between 0 and ${maxSize}, got ${value}`, { argumentName: name });
  return value;
}

function readArgs(args: ConnectionArgs, settings: Settings): WindowArgs {
  if (args.first != null && args.last != null) {
    throw badUserInput('first and last cannot be used together; pass first to page forwards or last to page backwards');
  }
  const first = readSize('first', args.first, settings.maxSize);
  const last = readSize('last', args.last, settings.maxSize);
  const after = args.after == null ? null : decodeCursor(args.after, settings.binding, 'after');
  const before = args.before == null ? null : decodeCursor(args.before, settings.binding, 'before');
  return { start: after === null ? 0 : after + 1, before, first, last };
}

/** The window of a request whose end does not depend on the list's length. */
function boundedWindow({ start, before, first, last }: WindowArgs, settings: Settings): Window {
  // A before at or ahead of after leaves nothing between them: an empty window at start.
  const limit = before === null ? Infinity : Math.max(start, before);
  if (last !== null) return { start: Math.max(start, limit - last), end: limit };
  return { start, end: Math.min(limit, start + (first ?? settings.defaultSize)) };
}

/**
 * Reads a list that reports no total up to its end, in pages of the largest size the platform takes,
 * from the page holding `start`: nothing before the window can matter to it. Stops early when a
 * response does report a total.
 */
async function walkToEnd<T>(list: ListKnowledge<T>, start: number, keep: number, settings: Settings): Promise<void> {
  const size = settings.upstreamMaxPageSize;
  const firstPage = Math.floor(start / size);
  for (let page = firstPage; list.total === null && list.firstAbsent > page * size; page++) {
    if ((page - firstPage) * size > settings.maxWalkRecords) {
      throw badUserInput(
        `last without before has to read this list to its end, and it is longer than ${settings.maxWalkRecords} records; pass before, or page forwards with first and after`,
      );
    }
    await list.fetch([{ page, size }]);
    // The window ends where the list does, which is not before the end of a full page.
    list.forgetBefore(Math.min((page + 1) * size, list.firstAbsent, list.total ?? Infinity) - keep);
  }
}

/** The window of `last` without `before`, which ends where the list ends: learns that end first. */
async function tailWindow<T>(list: ListKnowledge<T>, { start, last }: WindowArgs, settings: Settings): Promise<Window> {
  const count = last ?? 0;
  // The cheapest way to learn totalElements: a one-row page.
  if (settings.totals === 'always') await list.fetch([{ page: 0, size: 1 }]);
  if (list.total === null) await walkToEnd(list, start, count, settings);
  const end = Math.max(start, list.total ?? list.firstAbsent);
  const window = { start: Math.max(start, end - count), end };
  if (!list.covers(window.start, window.end)) {
    await list.fetch(planPages(window.start, window.end - window.start, settings.upstreamMaxPageSize));
  }
  return window;
}

/**
 * One page of a Relay connection over a page-numbered platform list.
 *
 * Cursors carry absolute positions, so any window the client asks for is served from the pages
 * that cover it (one call whenever a single page size allows), and pageInfo is exact in both
 * directions: hasPreviousPage tells whether a record exists before the first edge, hasNextPage
 * whether one exists after the last, whichever direction the client pages in.
 */
export async function paginate<T>(
  args: ConnectionArgs,
  options: PagingOptions,
  fetchPage: FetchPage<T>,
): Promise<Connection<T>> {
  const settings = readOptions(options);
  const request = readArgs(args, settings);
  const list = new ListKnowledge(fetchPage, settings.pageBase);
  let window: Window;
  if (request.last !== null && request.before === null) {
    window = await tailWindow(list, request, settings);
  } else {
    window = boundedWindow(request, settings);
    const count = window.end - window.start;
    // When no total may come, the row after the window answers hasNextPage in the same call, and for
    // an empty window the row before it answers hasPreviousPage. With totals, an empty window still
    // needs one row to learn the total.
    const lookBehind = settings.totals === 'sometimes' && count === 0 && window.start > 0 ? 1 : 0;
    const lookAhead = settings.totals === 'sometimes' || count === 0 ? 1 : 0;
    await list.fetch(
      planPages(window.start - lookBehind, lookBehind + count + lookAhead, settings.upstreamMaxPageSize),
    );
  }

  const nodes = list.run(window.start, window.end);
  const hasNextPage = await list.settleExistsFrom(window.start + nodes.length);
  const hasPreviousPage = window.start > 0 && (await list.settleExistsFrom(0));
  const encode = cursorEncoder(settings.binding);
  const edges = nodes.map((node, index) => ({ cursor: encode(window.start + index), node }));
  return {
    edges,
    nodes,
    pageInfo: {
      hasNextPage,
      hasPreviousPage,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount: list.total,
  };
}
