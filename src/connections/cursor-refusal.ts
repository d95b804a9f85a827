import type { GraphQLError } from 'graphql';
import { badUserInput } from '../errors.ts';

/**
 * Why a cursor is refused, in `extensions.reason` of its BAD_USER_INPUT error (docs/errors.md), so
 * that a client can tell a cursor it should drop and restart paging without (every reason) from a
 * fault of its own making (a malformed or changed one):
 * - CURSOR_MALFORMED: not the text of any cursor;
 * - CURSOR_TAMPERED: a cursor of this gateway's keys whose bytes changed since it was issued;
 * - CURSOR_OTHER_KEYS: sealed under keys this gateway does not hold: another CURSOR_SECRET (a
 *   rotation, another deployment), another instance without one, or an earlier cursor format;
 * - CURSOR_OTHER_CONNECTION: issued for another list, filter or order;
 * - CURSOR_OTHER_CALLER: the rows it belongs to are another Business Account's.
 */
export type CursorRefusalReason = 'CURSOR_MALFORMED' | 'CURSOR_TAMPERED' | 'CURSOR_OTHER_KEYS' | 'CURSOR_OTHER_CONNECTION' | 'CURSOR_OTHER_CALLER';

const MESSAGES: Readonly<Record<CursorRefusalReason, string>> = {
  CURSOR_MALFORMED: 'is not a cursor of this connection; pass a startCursor, endCursor or edge cursor from a previous page, or restart paging without it',
  CURSOR_TAMPERED: 'cursor was changed after the gateway issued it; pass cursors back exactly as received, or restart paging without it',
  CURSOR_OTHER_KEYS: 'cursor was sealed under keys this gateway does not hold (a rotated CURSOR_SECRET, another gateway instance, or an earlier cursor format); restart paging without it',
  CURSOR_OTHER_CONNECTION: 'cursor does not belong to this filter/order; restart paging without it',
  CURSOR_OTHER_CALLER: "cursor belongs to another account's list; restart paging without it",
};

/** The BAD_USER_INPUT error refusing the cursor passed as `argumentName` for `reason`. */
export function cursorRefusal(reason: CursorRefusalReason, argumentName: string): GraphQLError {
  return badUserInput(`${argumentName} ${MESSAGES[reason]}`, { argumentName, reason });
}
