import { describe, expect, it } from '@jest/globals';
import { GraphQLError } from 'graphql';
import { cursorRefusal, type CursorRefusalReason } from '../../src/connections/cursor-refusal.ts';

// What a client reads of a refused cursor: BAD_USER_INPUT, the argument it passed the cursor as, and
// the reason, with a message that starts with that argument's name (docs/errors.md).

const MESSAGES: Record<CursorRefusalReason, string> = {
  CURSOR_MALFORMED: 'is not a cursor of this connection; pass a startCursor, endCursor or edge cursor from a previous page, or restart paging without it',
  CURSOR_TAMPERED: 'cursor was changed after the gateway issued it; pass cursors back exactly as received, or restart paging without it',
  CURSOR_OTHER_KEYS:
    'cursor was sealed under keys this gateway does not hold (a rotated CURSOR_SECRET, another gateway instance, or an earlier cursor format); restart paging without it',
  CURSOR_OTHER_CONNECTION: 'cursor does not belong to this filter/order; restart paging without it',
  CURSOR_OTHER_CALLER: "cursor belongs to another account's list; restart paging without it",
};

const REASONS = Object.keys(MESSAGES) as CursorRefusalReason[];

describe('cursorRefusal', () => {
  it('is a GraphQLError of BAD_USER_INPUT naming the argument and the reason, for every reason and argument', () => {
    for (const reason of REASONS) {
      for (const argumentName of ['after', 'before', 'cursor']) {
        const error = cursorRefusal(reason, argumentName);
        expect(error).toBeInstanceOf(GraphQLError);
        expect([reason, argumentName, error.toJSON()]).toEqual([
          reason,
          argumentName,
          { message: `${argumentName} ${MESSAGES[reason]}`, extensions: { code: 'BAD_USER_INPUT', argumentName, reason } },
        ]);
      }
    }
  });

  it('carries no location, path or original error: it refuses an argument, not a place in the operation', () => {
    const error = cursorRefusal('CURSOR_TAMPERED', 'before');
    expect([error.locations, error.path, error.nodes, error.originalError]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('is a new error every time, so that one request changing its own cannot change another', () => {
    const first = cursorRefusal('CURSOR_OTHER_CALLER', 'after');
    const second = cursorRefusal('CURSOR_OTHER_CALLER', 'after');
    expect(second).not.toBe(first);
    expect(second.extensions).not.toBe(first.extensions);
    (first.extensions as Record<string, unknown>).requestId = 'req-1';
    expect(second.extensions).toEqual({ code: 'BAD_USER_INPUT', argumentName: 'after', reason: 'CURSOR_OTHER_CALLER' });
  });
});
