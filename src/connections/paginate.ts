import { badUserInput } from '../errors.ts';
import { anchoredCursorEncoder, cursorEncoder, readCursor, type DecodedCursor } from './cursor.ts';
import { ListKnowledge } from './list-knowledge.ts';
import { anchorOf, anchorReader, compareToAnchor, idOf, type SortKey } from './order.ts';
import { plannedPageSize } from './page-cap.ts';
import { planPages } from './plan-pages.ts';
import type { AnchorOutcome, Connection, ConnectionArgs, Edge, FetchPage, PageInfo, PageRequest, PagingOptions } from './types.ts';

const DEFAULT_MAX_WALK_RECORDS = 10_000;

/** Calls that complete a window after the first fetch (a re-plan under a newly learned page cap, rows a moved anchor needs). */
const MAX_FILL_ROUNDS = 3;

interface Settings {
  pageBase: 0 | 1;
  defaultSize: number;
  maxSize: number;
  upstreamMaxPageSize: number;
  binding: string;
  totals: 'always' | 'sometimes';
  maxWalkRecords: number;
  order: readonly SortKey[] | null;
  onAnchor: (outcome: AnchorOutcome) => void;
  onPageCap: ((size: number) => void) | undefined;
}

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

interface Request {
  after: DecodedCursor | null;
  before: DecodedCursor | null;
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
  const order = options.order && options.order.length > 0 ? options.order : null;
  const onAnchor = options.onAnchor ?? (() => undefined);
  return { pageBase, defaultSize, maxSize, upstreamMaxPageSize, binding, totals, maxWalkRecords, order, onAnchor, onPageCap: options.onPageCap };
}

function readSize(name: 'first' | 'last', value: number | null | undefined, maxSize: number): number | null {
  if (value === null || value === undefined) return null;
  if (!isCount(value, 0) || value > maxSize) throw badUserInput(`${name} must be between 0 and ${maxSize}, got ${value}`, { argumentName: name });
  return value;
}

function readArgs(args: ConnectionArgs, settings: Settings): Request {
  if (args.first != null && args.last != null) {
    throw badUserInput('first and last cannot be used together; pass first to page forwards or last to page backwards');
  }
  const first = readSize('first', args.first, settings.maxSize);
  const last = readSize('last', args.last, settings.maxSize);
  const after = args.after == null ? null : readCursor(args.after, settings.binding, 'after');
  const before = args.before == null ? null : readCursor(args.before, settings.binding, 'before');
  return { after, before, first, last };
}

function windowArgs(request: Request, after: number | null, before: number | null): WindowArgs {
  return { start: after === null ? 0 : after + 1, before, first: request.first, last: request.last };
}

/** The window of a request whose end does not depend on the list's length. */
function boundedWindow({ start, before, first, last }: WindowArgs, settings: Settings): Window {
  // A before at or ahead of after leaves nothing between them: an empty window at start.
  const limit = before === null ? Infinity : Math.max(start, before);
  if (last !== null) return { start: Math.max(start, limit - last), end: limit };
  return { start, end: Math.min(limit, start + (first ?? settings.defaultSize)) };
}

/** The largest page size this request may ask for: the configured one, or less once the platform showed a cap. */
function pageSizeLimit<T>(list: ListKnowledge<T>, settings: Settings): number {
  return plannedPageSize(settings.upstreamMaxPageSize, list.pageCap);
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
  let end = Math.max(start, list.total ?? list.firstAbsent);
  let window = { start: Math.max(start, end - count), end };
  if (!list.covers(window.start, window.end)) {
    await list.fetch(planPages(window.start, window.end - window.start, pageSizeLimit(list, settings)));
    // The list's length changed between the call that told it and this one: the window ends where
    // the list ends now (what it lacks is fetched with the rest of the page).
    if (settings.order !== null && list.total !== null && list.total !== end) {
      end = Math.max(start, list.total);
      window = { start: Math.max(start, end - count), end };
    }
  }
  return window;
}

/**
 * Rows a window needs around it: when no total may come, the row after the window answers
 * hasNextPage in the same call, and for an empty window the row before it answers hasPreviousPage.
 * With totals, an empty window still needs one row to learn the total.
 */
function neededRange(window: Window, settings: Settings): { from: number; to: number } {
  const count = window.end - window.start;
  const lookBehind = settings.totals === 'sometimes' && count === 0 && window.start > 0 ? 1 : 0;
  const lookAhead = settings.totals === 'sometimes' || count === 0 ? 1 : 0;
  return { from: window.start - lookBehind, to: window.end + lookAhead };
}

/**
 * Fetches what the window still lacks, planned with the page size the request now knows the
 * platform takes. Needed after the platform revealed a page-size cap, or a moved anchor shifted
 * the window past the rows already read.
 */
async function fill<T>(list: ListKnowledge<T>, window: Window, settings: Settings, fetchPage: FetchPage<T>): Promise<void> {
  // Where the platform's list has the rows of `list` now, as the latest join showed: platform
  // position = position + shift. A later round asks for the gap where it is now.
  let shift = 0;
  for (let round = 0; round < MAX_FILL_ROUNDS; round++) {
    const end = Math.min(window.end, list.firstAbsent, list.total ?? Infinity);
    const missing = list.run(window.start, end).length + window.start;
    if (missing >= end) return;
    const before = list.at(missing - 1);
    const after = nextSeen(list, missing, end);
    if (settings.order === null || (before === undefined && after === null)) {
      await list.fetch(planPages(missing, end - missing, pageSizeLimit(list, settings)));
      continue;
    }
    // The list may change between two calls of one request too: the new rows are read together with
    // a row already held next to the gap, and joined where that row is in them now.
    const fresh = new ListKnowledge(fetchPage, settings.pageBase, settings.onPageCap);
    if (before !== undefined) {
      await fresh.fetch(planPages(Math.max(0, missing - 1 + shift), end - missing + 1, pageSizeLimit(list, settings)));
      const joined = locateJoin(fresh, before, missing - 1 + shift, 'after', settings.order);
      // Rows that cannot be joined for certain are not served: the page ends before them, with
      // hasNextPage telling the client to go on from there.
      if (joined === null) return;
      list.adopt(fresh, joined + 1, missing - 1 - joined);
      shift = joined - (missing - 1);
    } else if (after !== null) {
      await fresh.fetch(planPages(Math.max(0, missing + shift), after + 1 - missing, pageSizeLimit(list, settings)));
      const joined = locateJoin(fresh, list.at(after) as T, after + shift, 'before', settings.order);
      if (joined === null) return;
      list.adopt(fresh, 0, after - joined, joined);
      shift = joined - after;
    }
  }
}

/** The first position in [from, to) holding a record already read; null when none does. */
function nextSeen<T>(list: ListKnowledge<T>, from: number, to: number): number | null {
  for (let position = from; position < to; position++) if (list.at(position) !== undefined) return position;
  return null;
}

/**
 * Where `record`, last seen at `position`, is in `fresh`: by id, else by its sort values when the
 * rows of `fresh` bracket them; null when neither tells for certain. `side` says which side of the
 * gap the record bounds, as for cursors.
 */
function locateJoin<T>(fresh: ListKnowledge<T>, record: T, position: number, side: 'after' | 'before', order: readonly SortKey[]): number | null {
  const anchor = anchorOf(record, order);
  const byId = fresh.positionOf(anchor.id, idOf);
  if (byId !== null) return byId;
  return locateByKeys(fresh, { side, cursor: { position, anchor } }, order)?.position ?? null;
}

/** An anchored cursor of the request: which side of the window it bounds, and what it carries. */
interface AnchoredCursor {
  side: 'after' | 'before';
  cursor: DecodedCursor & { anchor: NonNullable<DecodedCursor['anchor']> };
}

/** Where an anchored cursor was found in the rows read, and how. */
interface Located {
  position: number;
  outcome: AnchorOutcome;
}

function anchoredCursors(request: Request, settings: Settings): AnchoredCursor[] {
  if (settings.order === null) return [];
  const found: AnchoredCursor[] = [];
  for (const side of ['after', 'before'] as const) {
    const cursor = request[side];
    if (cursor?.anchor) found.push({ side, cursor: cursor as AnchoredCursor['cursor'] });
  }
  return found;
}

/**
 * The anchor by its id in the rows read: where it was, or where it moved to. A record whose sort
 * values changed is not where the cursor's place in the order is any more: it counts as not found,
 * and the cursor's values place the window instead.
 */
function locateById<T>(list: ListKnowledge<T>, { cursor }: AnchoredCursor, order: readonly SortKey[]): Located | null {
  const { position, anchor } = cursor;
  const unchanged = (record: unknown) => anchor.keys === null || compareToAnchor(record, anchor.keys, order) === 0;
  const there = list.at(position);
  if (there !== undefined && idOf(there) === anchor.id) return unchanged(there) ? { position, outcome: 'exact' } : null;
  const moved = list.positionOf(anchor.id, idOf);
  return moved === null || !unchanged(list.at(moved)) ? null : { position: moved, outcome: 'moved' };
}

/**
 * The anchor by its sort-key values, when its record is gone: the first row strictly after them
 * takes the place of the record after the anchor. Only answers when the rows read around the old
 * position bracket those values (a row before them, or the list's start; a row after them, or
 * the list's end), so the boundary is certain.
 */
function locateByKeys<T>(list: ListKnowledge<T>, { side, cursor }: AnchoredCursor, order: readonly SortKey[]): Located | null {
  const keys = cursor.anchor.keys;
  const seen = list.firstSeen();
  if (keys === null || seen === null) return null;
  const run = list.runAround(Math.max(seen, Math.min(cursor.position, list.lastSeen())));
  if (run.from === run.to) return null;
  let boundary: number | null = null;
  for (let position = run.from; position < run.to; position++) {
    if (compareToAnchor(list.at(position), keys, order) > 0) {
      boundary = position;
      break;
    }
  }
  if (boundary === null) {
    if (list.firstAbsent !== run.to) return null;
    boundary = run.to;
  } else if (boundary === run.from && run.from > 0) {
    return null;
  }
  // After: the window starts at the boundary. Before: it ends there.
  return { position: side === 'after' ? boundary - 1 : boundary, outcome: 'sort-keys' };
}

/**
 * One page of the platform list centred on `position` as well as one call allows: the bounded
 * wider search for an anchor that is not where it was.
 */
function widePage(position: number, sizeLimit: number): PageRequest {
  let best: PageRequest = { page: Math.floor(position / sizeLimit), size: sizeLimit };
  let bestReach = -1;
  for (let size = sizeLimit; size >= Math.ceil(sizeLimit / 2); size--) {
    const page = Math.floor(position / size);
    const behind = page === 0 ? Infinity : position - page * size;
    const reach = Math.min(behind, (page + 1) * size - 1 - position);
    if (reach > bestReach) {
      bestReach = reach;
      best = { page, size };
    }
  }
  return best;
}

/** Whether the rows read tell what is at `position`: a record, or the end of the list before it. */
function readAt<T>(list: ListKnowledge<T>, position: number): boolean {
  return list.at(position) !== undefined || list.firstAbsent <= position || (list.total !== null && list.total <= position);
}

/**
 * Whether the rows of the window contradict an anchor whose own row could not be read: after
 * `after`, every row must come later in the order; before `before`, earlier.
 */
function contradicted<T>(list: ListKnowledge<T>, { side, cursor }: AnchoredCursor, order: readonly SortKey[]): boolean {
  const keys = cursor.anchor.keys;
  const neighbour = list.at(side === 'after' ? cursor.position + 1 : cursor.position - 1);
  if (neighbour === undefined || keys === null) return false;
  const difference = compareToAnchor(neighbour, keys, order);
  return side === 'after' ? difference <= 0 : difference >= 0;
}

/**
 * The window of a request bounded by cursors, found again in the list as it is now. Returns the
 * knowledge the page is served from: the wider search's, when it had to search.
 */
async function anchoredWindow<T>(
  first: ListKnowledge<T>,
  request: Request,
  anchors: AnchoredCursor[],
  settings: Settings,
  fetchPage: FetchPage<T>,
): Promise<{ list: ListKnowledge<T>; window: Window }> {
  const order = settings.order as readonly SortKey[];
  let list = first;
  const positions = { after: request.after?.position ?? null, before: request.before?.position ?? null };
  for (const anchor of anchors) {
    let located = locateById(list, anchor, order);
    if (located === null && !readAt(list, anchor.cursor.position) && !contradicted(list, anchor, order)) {
      located = { position: anchor.cursor.position, outcome: 'unverified' };
    }
    // Rows read on both sides of the cursor's values, without its record between them: the record is
    // gone (or its values changed), and a wider search could not place the window better.
    if (located === null && readAt(list, anchor.cursor.position)) located = locateByKeys(list, anchor, order);
    if (located === null) {
      const wide = new ListKnowledge(fetchPage, settings.pageBase, settings.onPageCap);
      await wide.fetch([widePage(anchor.cursor.position, pageSizeLimit(list, settings))]);
      const found = locateById(wide, anchor, order) ?? locateByKeys(wide, anchor, order);
      if (found !== null) {
        located = { position: found.position, outcome: found.outcome === 'sort-keys' ? 'sort-keys' : 'widened' };
        // Served from one snapshot: the other cursor is looked up again in it.
        list = wide;
      } else {
        located = locateByKeys(list, anchor, order) ?? { position: anchor.cursor.position, outcome: 'offset' };
      }
    }
    positions[anchor.side] = located.position;
    settings.onAnchor(located.outcome);
  }
  if (list !== first && anchors.length === 2) {
    for (const anchor of anchors) {
      const again = locateById(list, anchor, order);
      if (again !== null) positions[anchor.side] = again.position;
    }
  }
  return { list, window: boundedWindow(windowArgs(request, positions.after, positions.before), settings) };
}

/**
 * One page of a Relay connection over a page-numbered platform list.
 *
 * Cursors carry absolute positions, so any window the client asks for is served from the pages
 * that cover it (one call whenever a single page size allows), and pageInfo is exact in both
 * directions: hasPreviousPage tells whether a record exists before the first edge, hasNextPage
 * whether one exists after the last, whichever direction the client pages in.
 *
 * With an order, cursors are also anchored to their record: when the list changed between two
 * requests, the window is re-sliced from where that record is now (docs/paging.md).
 */
export async function paginate<T>(
  args: ConnectionArgs,
  options: PagingOptions,
  fetchPage: FetchPage<T>,
): Promise<Connection<T>> {
  const settings = readOptions(options);
  const request = readArgs(args, settings);
  let list = new ListKnowledge(fetchPage, settings.pageBase, settings.onPageCap);
  let window: Window;
  if (request.last !== null && request.before === null) {
    window = await tailWindow(list, windowArgs(request, request.after?.position ?? null, null), settings);
  } else {
    window = boundedWindow(windowArgs(request, request.after?.position ?? null, request.before?.position ?? null), settings);
    const needed = neededRange(window, settings);
    const anchors = anchoredCursors(request, settings);
    let plan = planPages(needed.from, needed.to - needed.from, settings.upstreamMaxPageSize);
    if (anchors.length > 0) {
      // The margin: the anchors' own rows, read in the same calls when that adds none.
      const from = Math.min(needed.from, ...anchors.map((anchor) => anchor.cursor.position));
      const to = Math.max(needed.to, ...anchors.map((anchor) => anchor.cursor.position + 1));
      const withAnchors = planPages(from, to - from, settings.upstreamMaxPageSize);
      if (withAnchors.length <= plan.length) plan = withAnchors;
    }
    await list.fetch(plan);
    if (anchors.length > 0) ({ list, window } = await anchoredWindow(list, request, anchors, settings, fetchPage));
  }
  await fill(list, window, settings, fetchPage);

  const nodes = list.run(window.start, window.end);
  const hasNextPage = await list.settleExistsFrom(window.start + nodes.length);
  const hasPreviousPage = window.start > 0 && (await list.settleExistsFrom(0));
  const start = window.start;
  // Cursors are built when first read, with an encoder made for the first: a query that selects
  // none (most list queries select nodes only) pays for no encoding and no hashing of the binding.
  let encode: ((position: number, node: T) => string) | undefined;
  const edges: Edge<T>[] = nodes.map((node, index) => {
    let cursor: string | undefined;
    return {
      get cursor(): string {
        cursor ??= (encode ??= encoderFor(settings))(start + index, node);
        return cursor;
      },
      node,
    };
  });
  const pageInfo: PageInfo = {
    hasNextPage,
    hasPreviousPage,
    get startCursor() {
      return edges[0]?.cursor ?? null;
    },
    get endCursor() {
      return edges.at(-1)?.cursor ?? null;
    },
  };
  return { edges, nodes, pageInfo, totalCount: list.total };
}

/** The cursor encoder of one connection: anchored to each record when the connection has an order. */
function encoderFor(settings: Settings): (position: number, node: unknown) => string {
  const order = settings.order;
  if (order === null) {
    const encode = cursorEncoder(settings.binding);
    return (position) => encode(position);
  }
  const encode = anchoredCursorEncoder(settings.binding);
  const anchorOfNode = anchorReader(order);
  return (position, node) => encode(position, anchorOfNode(node));
}
