import { badUserInput } from '../errors.ts';
import type { ListKnowledge } from './list-knowledge.ts';
import { planPages } from './plan-pages.ts';
import type { Settings } from './paging-arguments.ts';
import type { Window, WindowArgs } from './window.ts';

/** `last` without `before`: a window that ends where the list ends, which has to be learned first. */

/**
 * Reads a list that reports no total up to its end, in pages of the largest size the platform takes,
 * from the page holding `start`: nothing before the window can matter to it. Stops early when a
 * response does report a total.
 */
async function walkToEnd<T>(list: ListKnowledge<T>, start: number, keep: number, settings: Settings): Promise<void> {
  const size = settings.pageSize.configured;
  const firstPage = Math.floor(start / size);
  for (let page = firstPage; list.total === null && list.firstAbsent > page * size; page++) {
    if ((page - firstPage) * size > settings.maxWalkRecords) {
      throw badUserInput(
        `last without before has to read this list to its end, and it is longer than ${settings.maxWalkRecords} records; pass before, or page forwards with first and after`,
      );
    }
    await list.fetch([{ page, size }]);
    // The window ends where the list does, which is not before the end of a full page.
    list.forgetBefore(list.clampToEnd((page + 1) * size) - keep);
  }
}

/** The window of `last` without `before`: the list's end is learned first, then the window before it is fetched. */
export async function tailWindow<T>(list: ListKnowledge<T>, { start, last }: WindowArgs, settings: Settings): Promise<Window> {
  const count = last ?? 0;
  // The cheapest way to learn totalElements: a one-row page.
  if (settings.totals === 'always') await list.fetch([{ page: 0, size: 1 }]);
  if (list.total === null) await walkToEnd(list, start, count, settings);
  let end = Math.max(start, list.total ?? list.firstAbsent);
  let window = { start: Math.max(start, end - count), end };
  if (!list.covers(window.start, window.end)) {
    await list.fetch(planPages(window.start, window.end - window.start, settings.pageSize.planned));
    // The list's length changed between the call that told it and this one: the window ends where
    // the list ends now (what it lacks is fetched with the rest of the page).
    if (settings.order !== null && list.total !== null && list.total !== end) {
      end = Math.max(start, list.total);
      window = { start: Math.max(start, end - count), end };
    }
  }
  return window;
}
