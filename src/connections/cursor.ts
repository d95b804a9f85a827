import { createHash } from 'node:crypto';
import { badUserInput } from '../errors.ts';

/** Bumped whenever the payload changes shape, so cursors from an older gateway fail loudly. */
const CURSOR_VERSION = 1;

/**
 * Upper bound for a position inside a cursor. Anyone can forge a cursor (its content is only
 * encoded, not signed), and the platform's `page` and `size` are int32: this bound keeps every page
 * index derived from a position, plus a window and the one-based shift, inside that range.
 */
export const MAX_CURSOR_POSITION = 2 ** 30;

/** Real cursors are about 40 characters; refuse to decode anything far larger. */
const MAX_CURSOR_LENGTH = 200;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

interface CursorPayload {
  v: number;
  p: number;
  b: string;
}

function bindingHash(binding: string): string {
  // 66 bits: collisions between two filter/order texts of one connection are out of reach in practice.
  return createHash('sha256').update(binding, 'utf8').digest('base64url').slice(0, 11);
}

function isPosition(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_CURSOR_POSITION;
}

function serialise(position: number, hash: string): string {
  const payload: CursorPayload = { v: CURSOR_VERSION, p: position, b: hash };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** Encodes cursors for one binding, hashing it once rather than once per edge. */
export function cursorEncoder(binding: string): (position: number) => string {
  const hash = bindingHash(binding);
  return (position) => {
    if (!isPosition(position)) {
      throw new RangeError(`cursor position must be an integer between 0 and ${MAX_CURSOR_POSITION}, got ${position}`);
    }
    return serialise(position, hash);
  };
}

/** Opaque cursor for the record at `position` (0-based, in the full ordered list) under `binding`. */
export function encodeCursor(position: number, binding: string): string {
  return cursorEncoder(binding)(position);
}

/**
 * The position a cursor points at. Anything that is not exactly a cursor this gateway made for
 * `binding` is BAD_USER_INPUT: a cursor from another filter or order would silently page through
 * a different list.
 */
export function decodeCursor(cursor: string, binding: string, argumentName = 'cursor'): number {
  const malformed = () =>
    badUserInput(
      `${argumentName} is not a cursor of this connection; pass a startCursor, endCursor or edge cursor from a previous page, or restart paging without it`,
      { argumentName },
    );
  if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw malformed();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw malformed();
  const { v, p, b } = payload as Partial<Record<keyof CursorPayload, unknown>>;
  if (typeof v === 'number' && v !== CURSOR_VERSION) {
    throw badUserInput(`${argumentName} cursor comes from another version of this API; restart paging without it`, {
      argumentName,
    });
  }
  if (v !== CURSOR_VERSION || !isPosition(p) || typeof b !== 'string') throw malformed();
  const hash = bindingHash(binding);
  if (b !== hash) {
    throw badUserInput(`${argumentName} cursor does not belong to this filter/order; restart paging without it`, {
      argumentName,
    });
  }
  // Only the exact bytes this gateway produces are accepted: no extra fields, padding or alternative spellings.
  if (serialise(p, hash) !== cursor) throw malformed();
  return p;
}
