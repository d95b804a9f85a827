import { ANCHORED_VERSION, EARLIER_ANCHORED_VERSIONS, packAnchoredPage, unpackAnchored } from './anchored-cursor.ts';
import { BINDING_DIGEST_BYTES, hashesOf, previousHashesOf } from './binding-hash.ts';
import { NO_OWNER, type CursorOwner } from './owner-tag.ts';
import { cursorRefusal } from './cursor-refusal.ts';
import { POSITION_VERSION, packPosition, unpackPosition } from './position-cursor.ts';
import type { Anchor } from './types.ts';

export type { Anchor } from './types.ts';

/**
 * Cursors as the connections hand them out and read them back: opaque base64url text of one of
 * two formats (position-cursor.ts, anchored-cursor.ts), bound to the connection's binding. The
 * anchored cursors of a page share one seal, of the anchors of its first and last records and the
 * Business Account its rows belong to; the rows a later request reads tell whether a cursor is the
 * reader's (cursor-owner.ts). A cursor that cannot be used is refused with its reason
 * (cursor-refusal.ts).
 */

/**
 * Upper bound for a position inside a cursor. Anyone can forge a position (it travels in clear and
 * position cursors are not signed), and the platform's `page` and `size` are int32: this bound keeps every page
 * index derived from a position, plus a window and the one-based shift, inside that range.
 */
export const MAX_CURSOR_POSITION = 2 ** 30;

/** Longest record id (UTF-8 bytes) an anchor carries; a longer one leaves the cursor a plain position. */
const MAX_ANCHOR_ID_LENGTH = 128;

/**
 * Refuse to decode anything larger than the largest cursor this gateway makes: two records of up
 * to 532 bytes (id 128, keys 400) with the page's head (up to 154: an account of 128 bytes, the
 * caller tag, start, count and indexes), its seal (48) and the cursor's own 11 bytes, 1277 bytes
 * as base64url.
 */
export const MAX_CURSOR_LENGTH = 1703;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Whose a sealed cursor is, as far as its seal tells (cursor-owner.ts decides with the rows read); the seal's view of a CursorOwner. */
export interface SealedOwner {
  /** The Business Account of the rows of the page it was issued with; null when they named none. */
  account: string | null;
  /** Whether it was issued to the token reading it. */
  sameCaller: boolean;
}

export interface DecodedCursor {
  /** Where the cursor's record was when it was issued. */
  position: number;
  /** The record the cursor is placed by: its own, or its page's nearest anchored one; null for position-only cursors. */
  anchor: Anchor | null;
  /** Where the anchor's record was, when it is not the cursor's own (a middle edge's cursor). */
  anchorPosition?: number;
  /** Null for position-only cursors: anyone can write one, and it places nothing but an offset. */
  owner: SealedOwner | null;
}

function isPosition(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_CURSOR_POSITION;
}

function checkPosition(position: number): void {
  if (!isPosition(position)) {
    throw new RangeError(`cursor position must be an integer between 0 and ${MAX_CURSOR_POSITION}, got ${position}`);
  }
}

/** Encodes position-only cursors for one binding, hashing it once rather than once per edge. */
export function cursorEncoder(binding: string): (position: number) => string {
  const { hash } = hashesOf(binding);
  return (position) => {
    checkPosition(position);
    return packPosition(position, hash);
  };
}

/**
 * Encodes anchored cursors one at a time for one binding, each sealed as a page of one; an id too
 * long to carry gives a position-only cursor. For scripts and tests: a connection seals its pages
 * whole (anchoredPageEncoder).
 */
export function anchoredCursorEncoder(binding: string): (position: number, anchor: Anchor) => string {
  const encode = anchoredPageEncoder(binding);
  return (position, anchor) => encode([position], [anchor])[0] as string;
}

/** Who a page's anchored cursors are issued to: the caller, and the account its rows belong to (null when they name none). */
export interface PageIssue {
  caller: CursorOwner;
  account: string | null;
}

/** Seals the anchored cursors of `count` records from `start`, `anchorAt` giving a record's anchor by its index in the page. */
export type PageSealer = (start: number, count: number, anchorAt: (index: number) => Anchor) => string[];

/**
 * Seals the anchored cursors of pages for one binding, each page's together (anchored-cursor.ts):
 * only the anchors of a page's ends are read. A page whose records' ids are all too long to carry
 * gets position-only cursors.
 */
export function anchoredPageSealer(binding: string, issue: PageIssue = { caller: NO_OWNER, account: null }): PageSealer {
  const { hash, digest } = hashesOf(binding);
  return (start, count, anchorAt) => {
    if (count === 0) return [];
    // The positions follow one another: the first and the last bound them all.
    checkPosition(start);
    checkPosition(start + count - 1);
    const sealed = packAnchoredPage(start, count, digest, (index) => {
      const anchor = anchorAt(index);
      return anchorable(anchor) ? anchor : null;
    }, { account: issue.account, callerTag: issue.caller.tag() });
    if (sealed.length === count) return sealed;
    const cursors = new Array<string>(count);
    for (let index = 0; index < count; index++) cursors[index] = sealed[index] ?? packPosition(start + index, hash);
    return cursors;
  };
}

/**
 * Encodes the anchored cursors of a page for one binding, sealed together (anchoredPageSealer).
 * `positions` follow one another; `anchors` are the records' anchors, as a list or read one by one
 * (only those of the page's ends are read).
 */
export function anchoredPageEncoder(binding: string, issue?: PageIssue): (positions: readonly number[], anchors: readonly Anchor[] | ((index: number) => Anchor)) => string[] {
  const sealPage = anchoredPageSealer(binding, issue);
  return (positions, anchors) => {
    positions.forEach(checkPosition);
    if (positions.some((position, index) => position !== (positions[0] as number) + index)) throw new RangeError('the positions of a page follow one another');
    return sealPage(positions[0] as number, positions.length, typeof anchors === 'function' ? anchors : (index) => anchors[index] as Anchor);
  };
}

function anchorable(anchor: Anchor): boolean {
  return anchor.id !== '' && anchor.id.length <= MAX_ANCHOR_ID_LENGTH && Buffer.byteLength(anchor.id, 'utf8') <= MAX_ANCHOR_ID_LENGTH;
}

/** Opaque position-only cursor for the record at `position` (0-based, in the full ordered list) under `binding`. */
export function encodeCursor(position: number, binding: string): string {
  return cursorEncoder(binding)(position);
}

/** Opaque anchored cursor for `anchor`, the record at `position` under `binding`, sealed as a page of one. */
export function encodeAnchoredCursor(position: number, anchor: Anchor, binding: string, issue?: PageIssue): string {
  return anchoredPageEncoder(binding, issue)([position], [anchor])[0] as string;
}

/**
 * The position and anchor a cursor carries, read by `caller`. Anything that is not exactly a cursor
 * this gateway made for `binding` is BAD_USER_INPUT with its reason: a cursor from another filter or
 * order would silently page through a different list.
 */
export function readCursor(cursor: string, binding: string, argumentName = 'cursor', caller: CursorOwner = NO_OWNER): DecodedCursor {
  const refuse = (reason: Parameters<typeof cursorRefusal>[0]) => cursorRefusal(reason, argumentName);
  if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw refuse('CURSOR_MALFORMED');
  const bytes = Buffer.from(cursor, 'base64url');
  const { hash, digest } = hashesOf(binding);
  if (EARLIER_ANCHORED_VERSIONS.includes(bytes[0] as number)) throw refuse('CURSOR_OTHER_KEYS');
  if (bytes[0] === ANCHORED_VERSION) {
    // Only the exact bytes the gateway produced: no alternative spellings of the same bytes.
    if (bytes.toString('base64url') !== cursor) throw refuse('CURSOR_MALFORMED');
    const unpacked = unpackAnchored(bytes, (tag) => caller.isNamedBy(tag));
    if (unpacked === 'malformed') throw refuse('CURSOR_MALFORMED');
    if (unpacked === 'other keys') throw refuse('CURSOR_OTHER_KEYS');
    if (unpacked === 'tampered') throw refuse('CURSOR_TAMPERED');
    if (!unpacked.digest.equals(digest.subarray(0, BINDING_DIGEST_BYTES)) && previousHashesOf(binding)?.digest.subarray(0, BINDING_DIGEST_BYTES).equals(unpacked.digest) !== true) {
      throw refuse('CURSOR_OTHER_CONNECTION');
    }
    if (!isPosition(unpacked.position) || !isPosition(unpacked.anchorPosition)) throw refuse('CURSOR_TAMPERED');
    const { position, anchor, anchorPosition, account, sameCaller } = unpacked;
    const owner = { account, sameCaller };
    return anchorPosition === position ? { position, anchor, owner } : { position, anchor, anchorPosition, owner };
  }
  const payload = unpackPosition(bytes);
  if (payload === null) throw refuse('CURSOR_MALFORMED');
  const { v, p, b } = payload;
  if (v !== POSITION_VERSION || !isPosition(p) || typeof b !== 'string') throw refuse('CURSOR_MALFORMED');
  if (b !== hash && b !== previousHashesOf(binding)?.hash) throw refuse('CURSOR_OTHER_CONNECTION');
  if (packPosition(p, b) !== cursor) throw refuse('CURSOR_MALFORMED');
  return { position: p, anchor: null, owner: null };
}

/** The position a cursor points at (see readCursor). */
export function decodeCursor(cursor: string, binding: string, argumentName = 'cursor'): number {
  return readCursor(cursor, binding, argumentName).position;
}
