import { anchoredCursors, anchoredWindow } from './anchors.ts';
import { anchoredPageSealer, cursorEncoder } from './cursor.ts';
import { accountOfPage, requireOwnedByReader } from './cursor-owner.ts';
import { fillWindow } from './fill-window.ts';
import { ListKnowledge } from './list-knowledge.ts';
import { anchorReader } from './order.ts';
import { planPages } from './plan-pages.ts';
import { readArgs, readOptions, type Settings } from './paging-arguments.ts';
import { tailWindow } from './tail-window.ts';
import type { Connection, ConnectionArgs, Edge, FetchPage, PageInfo, PagingOptions } from './types.ts';
import { boundedWindow, neededRange, windowArgs, type Window } from './window.ts';

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
  const parsed = readArgs(args, settings);
  let list = new ListKnowledge(fetchPage, settings.pageBase, settings.pageSize);
  let window: Window;
  if (parsed.last !== null && parsed.before === null) {
    window = await tailWindow(list, windowArgs(parsed, parsed.after?.position ?? null, null), settings);
    // The window starts after the cursor's position: only the reader's own cursor may bound it.
    if (parsed.after !== null) requireOwnedByReader([list], parsed.after, 'after');
  } else {
    window = boundedWindow(windowArgs(parsed, parsed.after?.position ?? null, parsed.before?.position ?? null), settings);
    const needed = neededRange(window, settings);
    const anchors = anchoredCursors(parsed, settings);
    let plan = planPages(needed.from, needed.to - needed.from, settings.pageSize.planned);
    if (anchors.length > 0) {
      // The margin: the anchors' own rows, read in the same calls when that adds none.
      const from = Math.min(needed.from, ...anchors.map((anchor) => anchor.cursor.position));
      const to = Math.max(needed.to, ...anchors.map((anchor) => anchor.cursor.position + 1));
      const withAnchors = planPages(from, to - from, settings.pageSize.planned);
      if (withAnchors.length <= plan.length) plan = withAnchors;
    }
    await list.fetchUpToEnd(plan);
    if (anchors.length > 0) ({ list, window } = await anchoredWindow(list, parsed, anchors, settings, fetchPage));
  }
  await fillWindow(list, window, settings, fetchPage);

  const { start, nodes } = servedRows(list, window, parsed.last !== null && parsed.before !== null);
  const hasNextPage = await list.settleExistsFrom(start + nodes.length);
  const hasPreviousPage = start > 0 && (await list.settleExistsFrom(0));
  // Cursors are built when first read: a query that selects none (most list queries select nodes
  // only) pays for no encoding and no hashing of the binding. The first one read, an edge's or
  // startCursor or endCursor, builds every one of the page, sealed together: one seal per page,
  // whatever the selection, so an edge's cursor does not depend on which others were asked.
  let cursors: string[] | undefined;
  const cursorAt = (index: number): string => {
    cursors ??= encoderFor(settings, nodes)(start, nodes.length, (at) => nodes[at]);
    return cursors[index] as string;
  };
  const edges: Edge<T>[] = nodes.map((node, index) => new PageEdge(node, index, cursorAt));
  return { edges, nodes, pageInfo: new PageEnds(hasNextPage, hasPreviousPage, nodes.length, cursorAt), totalCount: list.total };
}

/** The cursor of the page's record at `index`; the first read builds the page's. */
type CursorAt = (index: number) => string;

/**
 * An edge whose `cursor` is built when first read: an own, enumerable accessor, so the edge reads,
 * compares and prints as `{ cursor, node }`. One accessor serves every edge: a getter written in
 * an object literal is a new function per edge and leaves each edge in V8's slow dictionary mode
 * (a page of 21 such edges cost 14–25 µs in a profile of workload (b), docs/benchmark.md).
 */
class PageEdge<T> implements Edge<T> {
  static readonly #cursor: PropertyDescriptor = {
    get(this: PageEdge<unknown>): string {
      return this.#cursorAt(this.#index);
    },
    enumerable: true,
    configurable: true,
  };

  declare readonly cursor: string;
  // Declared, not a field: a field is defined before the constructor runs, and would come before `cursor`.
  declare readonly node: T;
  readonly #index: number;
  readonly #cursorAt: CursorAt;

  constructor(node: T, index: number, cursorAt: CursorAt) {
    this.#index = index;
    this.#cursorAt = cursorAt;
    Object.defineProperty(this, 'cursor', PageEdge.#cursor);
    (this as { node: T }).node = node;
  }
}

/** pageInfo, whose startCursor and endCursor are built when first read; own accessors shared as PageEdge's is. */
class PageEnds implements PageInfo {
  static readonly #ends: PropertyDescriptorMap = {
    startCursor: {
      get(this: PageEnds): string | null {
        return this.#count === 0 ? null : this.#cursorAt(0);
      },
      enumerable: true,
      configurable: true,
    },
    endCursor: {
      get(this: PageEnds): string | null {
        return this.#count === 0 ? null : this.#cursorAt(this.#count - 1);
      },
      enumerable: true,
      configurable: true,
    },
  };

  declare readonly hasNextPage: boolean;
  declare readonly hasPreviousPage: boolean;
  declare readonly startCursor: string | null;
  declare readonly endCursor: string | null;
  readonly #count: number;
  readonly #cursorAt: CursorAt;

  constructor(hasNextPage: boolean, hasPreviousPage: boolean, count: number, cursorAt: CursorAt) {
    this.#count = count;
    this.#cursorAt = cursorAt;
    const fields = this as { hasNextPage: boolean; hasPreviousPage: boolean };
    fields.hasNextPage = hasNextPage;
    fields.hasPreviousPage = hasPreviousPage;
    Object.defineProperties(this, PageEnds.#ends);
  }
}

/**
 * The rows a page serves: the window's rows without a gap, from its start. A page that pages back
 * (last with before) is served from its end instead: when the rows at the window's start could not
 * be joined to the rest (the list changed between two calls of the request), it holds the rows next
 * to its cursor, fewer than asked, and hasPreviousPage with startCursor takes the client on back.
 */
function servedRows<T>(list: ListKnowledge<T>, window: Window, backward: boolean): { start: number; nodes: T[] } {
  const nodes = list.run(window.start, window.end);
  const end = list.clampToEnd(window.end);
  if (!backward || window.start + nodes.length >= end) return { start: window.start, nodes };
  let from = end;
  while (from > window.start && list.at(from - 1) !== undefined) from--;
  return { start: from, nodes: list.run(from, end) };
}

/** Encodes the cursors of `count` records of a page from `start`, `nodeAt` giving a record by its index among them. */
type PageEncoder = (start: number, count: number, nodeAt: (index: number) => unknown) => string[];

/**
 * The cursor encoder of one connection: anchored to each record when the connection has an order,
 * and issued with the account the page's rows belong to.
 */
function encoderFor(settings: Settings, nodes: readonly unknown[]): PageEncoder {
  const order = settings.order;
  if (order === null) {
    const encode = cursorEncoder(settings.binding);
    return (start, count) => Array.from({ length: count }, (_, index) => encode(start + index));
  }
  const sealPage = anchoredPageSealer(settings.binding, { caller: settings.caller, account: accountOfPage(nodes) });
  const anchorOfNode = anchorReader(order);
  // Only the page's ends are sealed: the other records' anchors are never read.
  return (start, count, nodeAt) => sealPage(start, count, (index) => anchorOfNode(nodeAt(index)));
}
