import { mostPages, planPages } from './plan-pages.ts';
import type { ParsedArgs, Settings } from './paging-arguments.ts';

/** Window arithmetic: which positions of the full ordered list a request selects, and which rows around them it needs. */

/** Positions [start, end) of the full ordered list that the arguments select. */
export interface Window {
  start: number;
  end: number;
}

/** A request's arguments with its cursors resolved to positions. */
export interface WindowArgs {
  start: number;
  before: number | null;
  first: number | null;
  last: number | null;
}

export function windowArgs(args: ParsedArgs, after: number | null, before: number | null): WindowArgs {
  return { start: after === null ? 0 : after + 1, before, first: args.first, last: args.last };
}

/** The window of a request whose end does not depend on the list's length. */
export function boundedWindow({ start, before, first, last }: WindowArgs, settings: Settings): Window {
  // A before at or ahead of after leaves nothing between them: an empty window at start.
  const limit = before === null ? Infinity : Math.max(start, before);
  if (last !== null) return { start: Math.max(start, limit - last), end: limit };
  return { start, end: Math.min(limit, start + (first ?? settings.defaultSize)) };
}

/**
 * Rows a window needs around it: when no total may come, the row after the window answers
 * hasNextPage in the same call, and for an empty window the row before it answers hasPreviousPage.
 * With totals, an empty window still needs one row to learn the total.
 */
export function neededRange(window: Window, settings: Settings): { from: number; to: number } {
  const count = window.end - window.start;
  return { from: window.start - lookBehind(count, window.start, settings.totals), to: window.end + lookAhead(count, settings.totals) };
}

function lookBehind(count: number, start: number, totals: Settings['totals']): number {
  return totals === 'sometimes' && count === 0 && start > 0 ? 1 : 0;
}

function lookAhead(count: number, totals: Settings['totals']): number {
  return totals === 'sometimes' || count === 0 ? 1 : 0;
}

/**
 * The calls the first plan of a window of `count` rows makes (paginate.ts: the window and the rows
 * it needs around it, in the fewest pages up to `pageSize`): from the list's start, or at most, at an
 * offset not known in advance. What the calls budget prices a connection with (src/budgets/estimate.ts).
 */
export function plannedCalls(count: number, totals: Settings['totals'], pageSize: number, fromStart: boolean): number {
  if (fromStart) return planPages(0, count + lookAhead(count, totals), pageSize).length;
  return mostPages(count + lookAhead(count, totals) + lookBehind(count, 1, totals), pageSize);
}
