import { createHash } from 'node:crypto';
import { badUserInput } from '../errors.ts';

/**
 * Cursor formats. Version 1 carries a position only; version 2 also carries the anchor: the id of
 * the record the cursor points at and the values of the connection's sort keys on it. Both are
 * read, so cursors handed out before anchors existed keep working (as plain offsets).
 */
const POSITION_VERSION = 1;
const ANCHORED_VERSION = 2;

/**
 * Upper bound for a position inside a cursor. Anyone can forge a cursor (its content is only
 * encoded, not signed), and the platform's `page` and `size` are int32: this bound keeps every page
 * index derived from a position, plus a window and the one-based shift, inside that range.
 */
export const MAX_CURSOR_POSITION = 2 ** 30;

/** Longest record id an anchor carries; a longer one leaves the cursor a plain position. */
export const MAX_ANCHOR_ID_LENGTH = 128;
/** Longest JSON text of an anchor's sort-key values; longer values are left out (no sort-key fallback). */
export const MAX_ANCHOR_KEYS_LENGTH = 400;

/** Refuse to decode anything far larger than the largest cursor this gateway makes. */
const MAX_CURSOR_LENGTH = 1024;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A sort-key value as it travels in a cursor: the JSON scalars a platform record holds. */
export type KeyValue = string | number | boolean | null;

/** The record a cursor points at, to find it again when the list has changed since. */
export interface Anchor {
  id: string;
  /** The record's values of the connection's sort keys, in key order; null when too long to carry. */
  keys: KeyValue[] | null;
}

export interface DecodedCursor {
  position: number;
  /** Absent for version 1 cursors. */
  anchor: Anchor | null;
}

function bindingHash(binding: string): string {
  // 66 bits: collisions between two filter/order texts of one connection are out of reach in practice.
  return createHash('sha256').update(binding, 'utf8').digest('base64url').slice(0, 11);
}

function isPosition(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_CURSOR_POSITION;
}

function isKeyValue(value: unknown): value is KeyValue {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

function checkPosition(position: number): void {
  if (!isPosition(position)) {
    throw new RangeError(`cursor position must be an integer between 0 and ${MAX_CURSOR_POSITION}, got ${position}`);
  }
}

function serialise(position: number, hash: string, anchor: Anchor | null): string {
  // Key order is fixed here; decoding re-serialises and compares, so no other spelling is accepted.
  const payload = anchor === null ? { v: POSITION_VERSION, p: position, b: hash } : { v: ANCHORED_VERSION, p: position, b: hash, i: anchor.id, k: anchor.keys };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/** The anchor as a cursor can carry it: keys dropped when too long, no anchor when the id is. */
function carriedAnchor(anchor: Anchor): Anchor | null {
  if (anchor.id.length === 0 || anchor.id.length > MAX_ANCHOR_ID_LENGTH) return null;
  if (anchor.keys === null || !anchor.keys.every(isKeyValue) || JSON.stringify(anchor.keys).length > MAX_ANCHOR_KEYS_LENGTH) {
    return { id: anchor.id, keys: null };
  }
  return anchor;
}

/** Encodes position-only cursors for one binding, hashing it once rather than once per edge. */
export function cursorEncoder(binding: string): (position: number) => string {
  const hash = bindingHash(binding);
  return (position) => {
    checkPosition(position);
    return serialise(position, hash, null);
  };
}

/** Encodes anchored cursors for one binding. */
export function anchoredCursorEncoder(binding: string): (position: number, anchor: Anchor) => string {
  const hash = bindingHash(binding);
  return (position, anchor) => {
    checkPosition(position);
    return serialise(position, hash, carriedAnchor(anchor));
  };
}

/** Opaque position-only cursor for the record at `position` (0-based, in the full ordered list) under `binding`. */
export function encodeCursor(position: number, binding: string): string {
  return cursorEncoder(binding)(position);
}

/** Opaque anchored cursor for `anchor`, the record at `position` under `binding`. */
export function encodeAnchoredCursor(position: number, anchor: Anchor, binding: string): string {
  return anchoredCursorEncoder(binding)(position, anchor);
}

/**
 * The position and anchor a cursor carries. Anything that is not exactly a cursor this gateway
 * made for `binding` is BAD_USER_INPUT: a cursor from another filter or order would silently page
 * through a different list.
 */
export function readCursor(cursor: string, binding: string, argumentName = 'cursor'): DecodedCursor {
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
  const { v, p, b, i, k } = payload as Partial<Record<'v' | 'p' | 'b' | 'i' | 'k', unknown>>;
  const anchored = v === ANCHORED_VERSION && typeof i === 'string' && (k === null || (Array.isArray(k) && k.every(isKeyValue)));
  if (typeof v === 'number' && v !== POSITION_VERSION && !anchored) {
    throw badUserInput(`${argumentName} cursor comes from another version of this API; restart paging without it`, {
      argumentName,
    });
  }
  if ((v !== POSITION_VERSION && !anchored) || !isPosition(p) || typeof b !== 'string') throw malformed();
  const hash = bindingHash(binding);
  if (b !== hash) {
    throw badUserInput(`${argumentName} cursor does not belong to this filter/order; restart paging without it`, {
      argumentName,
    });
  }
  const anchor = anchored ? { id: i, keys: k as KeyValue[] | null } : null;
  // Only the exact bytes this gateway produces are accepted: no extra fields, padding or alternative spellings.
  if (anchor !== null && carriedAnchor(anchor) !== anchor) throw malformed();
  if (serialise(p, hash, anchor) !== cursor) throw malformed();
  return { position: p, anchor };
}

/** The position a cursor points at (see readCursor). */
export function decodeCursor(cursor: string, binding: string, argumentName = 'cursor'): number {
  return readCursor(cursor, binding, argumentName).position;
}
