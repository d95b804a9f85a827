import { badUserInput } from '../errors.ts';
import { ANCHORED_VERSION, CLEAR_ANCHORED_VERSION, HMAC_SEALED_VERSION, packAnchored, packAnchoredPage, unpackAnchored } from './anchored-cursor.ts';
import { BINDING_DIGEST_BYTES, hashesOf } from './binding-hash.ts';
import { NO_CALLER, type CursorCaller } from './caller.ts';
import { otherKeysRefused } from './cursor-seal.ts';
import { POSITION_VERSION, packPosition, unpackPosition } from './position-cursor.ts';
import type { Anchor } from './types.ts';

export type { Anchor } from './types.ts';

/**
 * Cursors as the connections hand them out and read them back: opaque base64url text of one of
 * two formats (position-cursor.ts, anchored-cursor.ts), bound to the connection's binding. An
 * anchored cursor is sealed for its caller: another caller's is refused, and only the caller it was
 * issued to may have a page placed by its anchor. Every format gateways made is read, so cursors
 * handed out before anchors existed keep working (as plain offsets); clear anchored ones, and sealed
 * ones made before cursors had a caller, read as their position alone for a caller. An anchored
 * cursor sealed with another key reads as its position alone without CURSOR_SECRET (another
 * replica, a run before a restart), and is refused with it.
 */

/**
 * Upper bound for a position inside a cursor. Anyone can forge a position (it travels in clear and
 * position cursors are not signed), and the platform's `page` and `size` are int32: this bound keeps every page
 * index derived from a position, plus a window and the one-based shift, inside that range.
 */
export const MAX_CURSOR_POSITION = 2 ** 30;

/** Longest record id (UTF-8 bytes) an anchor carries; a longer one leaves the cursor a plain position. */
const MAX_ANCHOR_ID_LENGTH = 128;

/** Refuse to decode anything far larger than the largest cursor this gateway makes. */
const MAX_CURSOR_LENGTH = 1024;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

export interface DecodedCursor {
  position: number;
  /** Absent for version 1 cursors. */
  anchor: Anchor | null;
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
 * Encodes anchored cursors for one binding, sealed for `caller`; an id too long to carry gives a
 * position-only cursor.
 */
export function anchoredCursorEncoder(binding: string, caller: CursorCaller = NO_CALLER): (position: number, anchor: Anchor) => string {
  const { hash, digest } = hashesOf(binding);
  const callerHash = caller.hash();
  return (position, anchor) => {
    checkPosition(position);
    if (!anchorable(anchor)) return packPosition(position, hash);
    return packAnchored(position, digest, anchor, false, callerHash);
  };
}

/**
 * Encodes the anchored cursors of a page for one binding, sealed for `caller` together (see
 * anchoredCursorEncoder): the same texts, for one cipher call rather than one per cursor.
 */
export function anchoredPageEncoder(binding: string, caller: CursorCaller = NO_CALLER): (positions: readonly number[], anchors: readonly Anchor[]) => string[] {
  const { hash, digest } = hashesOf(binding);
  const callerHash = caller.hash();
  return (positions, anchors) => {
    positions.forEach(checkPosition);
    const sealed: number[] = [];
    const cursors = anchors.map((anchor, index) => {
      if (!anchorable(anchor)) return packPosition(positions[index] as number, hash);
      sealed.push(index);
      return '';
    });
    const texts = packAnchoredPage(
      sealed.map((index) => positions[index] as number),
      digest,
      sealed.map((index) => anchors[index] as Anchor),
      callerHash,
    );
    sealed.forEach((index, at) => (cursors[index] = texts[at] as string));
    return cursors;
  };
}

function anchorable(anchor: Anchor): boolean {
  return anchor.id !== '' && anchor.id.length <= MAX_ANCHOR_ID_LENGTH && Buffer.byteLength(anchor.id, 'utf8') <= MAX_ANCHOR_ID_LENGTH;
}

/** Opaque position-only cursor for the record at `position` (0-based, in the full ordered list) under `binding`. */
export function encodeCursor(position: number, binding: string): string {
  return cursorEncoder(binding)(position);
}

/** Opaque anchored cursor for `anchor`, the record at `position` under `binding`, sealed for `caller`. */
export function encodeAnchoredCursor(position: number, anchor: Anchor, binding: string, caller: CursorCaller = NO_CALLER): string {
  return anchoredCursorEncoder(binding, caller)(position, anchor);
}

/**
 * The position and anchor a cursor carries, read by `caller`. Anything that is not exactly a cursor
 * this gateway made for `binding` is BAD_USER_INPUT: a cursor from another filter or order would
 * silently page through a different list. So is a sealed cursor of another caller, whose anchor
 * would place this caller's page by another tenant's sort values.
 */
export function readCursor(cursor: string, binding: string, argumentName = 'cursor', caller: CursorCaller = NO_CALLER): DecodedCursor {
  const malformed = () =>
    badUserInput(
      `${argumentName} is not a cursor of this connection; pass a startCursor, endCursor or edge cursor from a previous page, or restart paging without it`,
      { argumentName },
    );
  const foreign = () =>
    badUserInput(`${argumentName} cursor does not belong to this filter/order; restart paging without it`, {
      argumentName,
    });
  if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw malformed();
  const bytes = Buffer.from(cursor, 'base64url');
  const { hash, digest } = hashesOf(binding);
  if (bytes[0] === ANCHORED_VERSION || bytes[0] === HMAC_SEALED_VERSION || bytes[0] === CLEAR_ANCHORED_VERSION) {
    const callerHash = caller.hash();
    let unpacked: ReturnType<typeof unpackAnchored>;
    try {
      unpacked = unpackAnchored(bytes, callerHash);
    } catch {
      throw malformed();
    }
    const { position, anchor } = unpacked;
    if (!isPosition(position)) throw malformed();
    if (!unpacked.digest.equals(digest.subarray(0, BINDING_DIGEST_BYTES))) throw foreign();
    // With CURSOR_SECRET every replica shares the key: another key id was changed, or the secret rotated.
    if (unpacked.unreadable === 'other key' && otherKeysRefused()) throw malformed();
    if (unpacked.version === CLEAR_ANCHORED_VERSION) {
      // A sealed cursor verified its bytes; a clear one is accepted only in the exact bytes a gateway
      // produced: no alternative spellings or padding.
      if (anchor === null || !anchorable(anchor) || packAnchored(position, digest, anchor, true) !== cursor) throw malformed();
      // Anyone can write a clear anchor: it places no caller's page.
      if (callerHash.length > 0) return { position, anchor: null };
    }
    return { position, anchor };
  }
  const payload = unpackPosition(bytes);
  if (payload === null) throw malformed();
  const { v, p, b } = payload;
  if (typeof v === 'number' && v !== POSITION_VERSION) {
    throw badUserInput(`${argumentName} cursor comes from another version of this API; restart paging without it`, {
      argumentName,
    });
  }
  if (v !== POSITION_VERSION || !isPosition(p) || typeof b !== 'string') throw malformed();
  if (b !== hash) throw foreign();
  if (packPosition(p, hash) !== cursor) throw malformed();
  return { position: p, anchor: null };
}

/** The position a cursor points at (see readCursor). */
export function decodeCursor(cursor: string, binding: string, argumentName = 'cursor'): number {
  return readCursor(cursor, binding, argumentName).position;
}
