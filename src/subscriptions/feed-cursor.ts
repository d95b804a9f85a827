import { createHash } from 'node:crypto';
import type { CursorOwner } from '../connections/owner-tag.ts';
import { open, seal } from '../connections/cursor-seal.ts';
import { cursorRefusal } from '../connections/cursor-refusal.ts';

/**
 * An edge cursor of a feed: where the feed stands after that edge's record, sealed like the
 * connections' pages (cursor-seal.ts, AES-256-GCM under CURSOR_SECRET, so every replica sharing the
 * secret resumes it) and bound to its feed (field and normalised arguments) and to its caller (the
 * token's tag), so another feed's or another caller's cursor is refused with its reason.
 *
 * A feed's position is a record's (time, id): the feed sends records in (time, id) order, so every
 * record after the position is one the client has not seen, and none before it is sent again.
 */
export interface FeedPosition {
  /** The record's updatedAt (createdAt for a feed of creations), in ms. */
  readonly ms: number;
  readonly id: string;
}

/** What a feed cursor carries in clear before its seal: `LF` and a format version. */
const CLEAR = Buffer.from([0x4c, 0x46, 0x01]);
const BINDING_BYTES = 8;
/** Longest id a position holds: the platform's ids are UUIDs. */
const MAX_ID_BYTES = 200;

/** The feed a cursor belongs to: 64 bits of SHA-256 of its field and normalised platform query. */
export function feedBinding(field: string, normalisedQuery: string): Buffer {
  return createHash('sha256').update(`${field}\0${normalisedQuery}`).digest().subarray(0, BINDING_BYTES);
}

/** `a` after `b` in the feed's order. */
export function isAfter(a: FeedPosition, b: FeedPosition): boolean {
  return a.ms > b.ms || (a.ms === b.ms && a.id > b.id);
}

export function sealFeedCursor(binding: Buffer, caller: CursorOwner, position: FeedPosition): string {
  const tag = caller.tag();
  const id = Buffer.from(position.id, 'utf8');
  const plain = Buffer.allocUnsafe(BINDING_BYTES + 1 + tag.length + 8 + id.length);
  let at = binding.copy(plain, 0);
  at = plain.writeUInt8(tag.length, at);
  at += tag.copy(plain, at);
  at = plain.writeDoubleBE(position.ms, at);
  id.copy(plain, at);
  return Buffer.concat([CLEAR, seal(CLEAR, plain)]).toString('base64url');
}

/** The position `text` names, or the BAD_USER_INPUT refusal of `after` with its reason. */
export function openFeedCursor(text: string, binding: Buffer, caller: CursorOwner): FeedPosition {
  const bytes = /^[A-Za-z0-9_-]+$/.test(text) ? Buffer.from(text, 'base64url') : Buffer.alloc(0);
  if (bytes.length <= CLEAR.length || !bytes.subarray(0, CLEAR.length).equals(CLEAR)) throw cursorRefusal('CURSOR_MALFORMED', 'after');
  const opened = open(CLEAR, bytes.subarray(CLEAR.length));
  if (opened === 'other keys') throw cursorRefusal('CURSOR_OTHER_KEYS', 'after');
  if (opened === 'tampered') throw cursorRefusal('CURSOR_TAMPERED', 'after');
  const plain = opened.plain;
  if (!plain.subarray(0, BINDING_BYTES).equals(binding)) throw cursorRefusal('CURSOR_OTHER_CONNECTION', 'after');
  const tagLength = plain.readUInt8(BINDING_BYTES);
  const tagEnd = BINDING_BYTES + 1 + tagLength;
  if (!caller.isNamedBy(plain.subarray(BINDING_BYTES + 1, tagEnd))) throw cursorRefusal('CURSOR_OTHER_CALLER', 'after');
  const ms = plain.readDoubleBE(tagEnd);
  const id = plain.subarray(tagEnd + 8);
  if (id.length > MAX_ID_BYTES) throw cursorRefusal('CURSOR_MALFORMED', 'after');
  return { ms, id: id.toString('utf8') };
}
