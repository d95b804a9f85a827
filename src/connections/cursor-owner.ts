import type { SealedOwner, DecodedCursor } from './cursor.ts';
import { cursorRefusal } from './cursor-refusal.ts';
import type { ListKnowledge } from './list-knowledge.ts';
import { idOf } from './order.ts';

/**
 * Whose a sealed cursor is, told by the rows a request reads with the reader's own token. A cursor
 * is bound to what stays the same when a token is renewed: the Business Account its rows belong to
 * (docs/security.md, "Cursors"). The platform answers a token with its own account's rows only, so
 * the rows read name the reader's account: a cursor of another account is refused before its
 * anchor or position places anything, and one of the same account pages on, whatever token issued
 * it. Lists whose rows name no account (LinX batch search) show the reader's by the cursor's record
 * itself among the rows read.
 */

/** The field of a platform record that names its Business Account (platform-api.md: exceptions, acceptances, documents). */
const ACCOUNT_FIELD = 'businessAccountId';

/** The Business Account a record names; null when it names none. */
function accountOf(record: unknown): string | null {
  const account = (record as Record<string, unknown> | null)?.[ACCOUNT_FIELD];
  return typeof account === 'string' && account !== '' ? account : null;
}

/** Longest account id (UTF-8 bytes) a page's seal carries, as for a record id: a longer one keeps the cursor short and the page unbound to an account. */
const MAX_ACCOUNT_LENGTH = 128;

/** The account every record of a page names; null when one names none, they differ, or it is too long to carry. */
export function accountOfPage(records: readonly unknown[]): string | null {
  const first = records.length > 0 ? accountOf(records[0]) : null;
  if (first === null || Buffer.byteLength(first, 'utf8') > MAX_ACCOUNT_LENGTH) return null;
  return records.every((record) => accountOf(record) === first) ? first : null;
}

/**
 * Whether the rows of `lists` show that `owner`'s cursor, whose record has `id`, is the reader's:
 * true when it was issued to this very token, when a row names the cursor's account, or when its
 * record is among them; false when a row names another account; null when nothing read tells.
 */
export function ownedByReader<T>(lists: readonly ListKnowledge<T>[], owner: SealedOwner, id: string): boolean | null {
  if (owner.sameCaller) return true;
  let shown = false;
  for (const list of lists) {
    for (const record of list.records()) {
      const account = accountOf(record);
      if (owner.account !== null && account !== null) {
        if (account !== owner.account) return false;
        shown = true;
      }
      if (idOf(record) === id) shown = true;
    }
  }
  return shown ? true : null;
}

/**
 * Refuses the sealed cursor `cursor` (the `side` argument) unless the rows read show it is the
 * reader's: neither another account's cursor nor one nothing vouches for may place a page.
 */
export function requireOwnedByReader<T>(lists: readonly ListKnowledge<T>[], cursor: DecodedCursor, side: 'after' | 'before'): void {
  if (cursor.owner === null || cursor.anchor === null) return;
  if (ownedByReader(lists, cursor.owner, cursor.anchor.id) !== true) throw cursorRefusal('CURSOR_OTHER_CALLER', side);
}
