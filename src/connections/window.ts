import type { ParsedArgs, Settings } from './settings.ts';

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
  const lookBehind = settings.totals === 'sometimes' && count === 0 && window.start > 0 ? 1 : 0;
  const lookAhead = settings.totals === 'sometimes' || count === 0 ? 1 : 0;
  return { from: window.start - lookBehind, to: window.end + lookAhead };
}
