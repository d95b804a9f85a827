import type { DecodedCursor } from './cursor.ts';
import { ownedByReader, requireOwnedByReader } from './cursor-owner.ts';
import { cursorRefusal } from './cursor-refusal.ts';
import { ListKnowledge } from './list-knowledge.ts';
import { anchorOf, compareToAnchor, idOf, type SortKey } from './order.ts';
import type { ParsedArgs, Settings } from './paging-arguments.ts';
import type { AnchorOutcome, FetchPage, PageRequest } from './types.ts';
import { boundedWindow, windowArgs, type Window } from './window.ts';

/**
 * Finding an anchored cursor's record again in the list as it is now: by id where it was or
 * moved to, by its sort-key values when it is gone, with one wider call when the rows read do
 * not tell (docs/paging.md, "Serving a page after a cursor").
 */

/**
 * An anchored cursor of the request: which side of the window it bounds, its anchor and where the
 * anchor's record was (`cursor.position`), and how many records after that record the cursor's own
 * was (`offset`: 0 for a page's first and last edges, negative for a record before its anchor).
 */
export interface AnchoredCursor {
  side: 'after' | 'before';
  cursor: DecodedCursor & { anchor: NonNullable<DecodedCursor['anchor']> };
  offset: number;
}

/** Where an anchored cursor was found in the rows read, and how. */
interface Located {
  position: number;
  outcome: AnchorOutcome;
}

/** The request's cursors that carry an anchor worth finding: none without an order. */
export function anchoredCursors(args: ParsedArgs, settings: Settings): AnchoredCursor[] {
  if (settings.order === null) return [];
  const found: AnchoredCursor[] = [];
  for (const side of ['after', 'before'] as const) {
    const cursor = args[side];
    if (!cursor?.anchor) continue;
    const { position, anchor, anchorPosition = position, owner } = cursor;
    found.push({ side, cursor: { position: anchorPosition, anchor, owner }, offset: position - anchorPosition });
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
 * Where `record`, last seen at `position`, is in `fresh`: by id, else by its sort values when the
 * rows of `fresh` bracket them; null when neither tells for certain. `side` says which side of the
 * gap the record bounds, as for cursors.
 */
export function locateJoin<T>(fresh: ListKnowledge<T>, record: T, position: number, side: 'after' | 'before', order: readonly SortKey[]): number | null {
  const anchor = anchorOf(record, order);
  const byId = fresh.positionOf(anchor.id, idOf);
  if (byId !== null) return byId;
  return locateByKeys(fresh, { side, cursor: { position, anchor, owner: null }, offset: 0 }, order)?.position ?? null;
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
 * Where the cursor's own record is, its anchor's being at `position`: at its distance from it, but
 * no further before the list's start than just before its first row (after it, a window starts at
 * that row; before it, a window is empty).
 */
function placed({ offset }: AnchoredCursor, position: number): number {
  return Math.max(-1, position + offset);
}

/**
 * The window of a request bounded by cursors, found again in the list as it is now. Returns the
 * knowledge the page is served from: the wider search's, when it had to search. A cursor the rows
 * read do not show to be the reader's is refused before it places anything (cursor-owner.ts).
 */
export async function anchoredWindow<T>(
  first: ListKnowledge<T>,
  args: ParsedArgs,
  anchors: AnchoredCursor[],
  settings: Settings,
  fetchPage: FetchPage<T>,
): Promise<{ list: ListKnowledge<T>; window: Window }> {
  const order = settings.order as readonly SortKey[];
  let list = first;
  const positions = { after: args.after?.position ?? null, before: args.before?.position ?? null };
  const read: ListKnowledge<T>[] = [first];
  for (const anchor of anchors) {
    const { owner } = anchor.cursor;
    // Rows of another account already: no wider search on its behalf.
    if (owner !== null && ownedByReader(read, owner, anchor.cursor.anchor.id) === false) throw cursorRefusal('CURSOR_OTHER_CALLER', anchor.side);
    let located = locateById(list, anchor, order);
    if (located === null && !readAt(list, anchor.cursor.position) && !contradicted(list, anchor, order)) {
      located = { position: anchor.cursor.position, outcome: 'unverified' };
    }
    // Rows read on both sides of the cursor's values, without its record between them: the record is
    // gone (or its values changed), and a wider search could not place the window better.
    if (located === null && readAt(list, anchor.cursor.position)) located = locateByKeys(list, anchor, order);
    if (located === null) {
      const wide = new ListKnowledge(fetchPage, settings.pageBase, settings.pageSize);
      await wide.fetch([widePage(anchor.cursor.position, settings.pageSize.planned)]);
      read.push(wide);
      const found = locateById(wide, anchor, order) ?? locateByKeys(wide, anchor, order);
      if (found !== null) {
        located = { position: found.position, outcome: found.outcome === 'sort-keys' ? 'sort-keys' : 'widened' };
        // Served from one snapshot: the other cursor is looked up again in it.
        list = wide;
      } else {
        located = locateByKeys(list, anchor, order) ?? { position: anchor.cursor.position, outcome: 'offset' };
      }
    }
    requireOwnedByReader(read, anchor.cursor, anchor.side);
    positions[anchor.side] = placed(anchor, located.position);
    settings.onAnchor(located.outcome);
  }
  if (list !== first && anchors.length === 2) {
    // By id where its record still is, else by its values: a record gone since the first call
    // has left every later row one place nearer the head in these rows.
    for (const anchor of anchors) {
      const again = locateById(list, anchor, order) ?? locateByKeys(list, anchor, order);
      if (again !== null) positions[anchor.side] = placed(anchor, again.position);
    }
  }
  return { list, window: boundedWindow(windowArgs(args, positions.after, positions.before), settings) };
}
