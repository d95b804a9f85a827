import { locateJoin } from './anchors.ts';
import { ListKnowledge } from './list-knowledge.ts';
import { planPages } from './plan-pages.ts';
import type { Settings } from './paging-arguments.ts';
import type { FetchPage } from './types.ts';
import type { Window } from './window.ts';

/** Calls that complete a window after the first fetch (a re-plan under a newly learned page cap, rows a moved anchor needs). */
const MAX_FILL_ROUNDS = 3;

/** The first position in [from, to) holding a record already read; null when none does. */
function nextSeen<T>(list: ListKnowledge<T>, from: number, to: number): number | null {
  for (let position = from; position < to; position++) if (list.at(position) !== undefined) return position;
  return null;
}

/**
 * Fetches what the window still lacks, planned with the page size the request now knows the
 * platform takes. Needed after the platform revealed a page-size cap, or a moved anchor shifted
 * the window past the rows already read.
 */
export async function fillWindow<T>(list: ListKnowledge<T>, window: Window, settings: Settings, fetchPage: FetchPage<T>): Promise<void> {
  // Where the platform's list has the rows of `list` now, as the latest join showed: platform
  // position = position + shift. A later round asks for the gap where it is now.
  let shift = 0;
  for (let round = 0; round < MAX_FILL_ROUNDS; round++) {
    const end = list.clampToEnd(window.end);
    const missing = list.run(window.start, end).length + window.start;
    if (missing >= end) return;
    const before = list.at(missing - 1);
    const after = nextSeen(list, missing, end);
    if (settings.order === null || (before === undefined && after === null)) {
      await list.fetch(planPages(missing, end - missing, settings.pageSize.planned));
      continue;
    }
    // The list may change between two calls of one request too: the new rows are read together with
    // a row already held next to the gap, and joined where that row is in them now.
    const fresh = new ListKnowledge(fetchPage, settings.pageBase, settings.pageSize);
    if (before !== undefined) {
      await fresh.fetch(planPages(Math.max(0, missing - 1 + shift), end - missing + 1, settings.pageSize.planned));
      const joined = locateJoin(fresh, before, missing - 1 + shift, 'after', settings.order);
      // Rows that cannot be joined for certain are not served: the page ends before them, with
      // hasNextPage telling the client to go on from there.
      if (joined === null) return;
      list.adopt(fresh, { from: joined + 1, shift: missing - 1 - joined });
      shift = joined - (missing - 1);
    } else if (after !== null) {
      await fresh.fetch(planPages(Math.max(0, missing + shift), after + 1 - missing, settings.pageSize.planned));
      const joined = locateJoin(fresh, list.at(after) as T, after + shift, 'before', settings.order);
      if (joined === null) return;
      list.adopt(fresh, { from: 0, to: joined, shift: after - joined });
      shift = joined - after;
    }
  }
}
