import { writeValue, readValue, isKeyValue } from './anchor-values.ts';
import { BINDING_DIGEST_BYTES } from './binding-hash.ts';
import { CursorReader, CursorWriter } from './cursor-bytes.ts';
import { KEY_ID_BYTES, SEAL_TAG_BYTES, seal, unseal, type CursorSpan, type Unreadable } from './cursor-seal.ts';
import type { Anchor, KeyValue } from './types.ts';

/**
 * Anchored cursors: a position and its anchor (the record's id and its sort-key values), packed
 * binary rather than JSON so that a cursor stays short (clients show and send them back on every
 * page).
 *
 * Layout: version byte, position (unsigned LEB128), the first bytes of the binding's SHA-256, then
 * (versions 3 and 4) the seal's tag and key id (cursor-seal.ts), then the record part: the id (a
 * kind byte, then 16 bytes of a UUID or the text), a count byte (255: no keys carried) and one
 * tagged value per key (anchor-values.ts). Version 4 seals the record part for its caller (the seal
 * covers a hash of the caller's token, which the cursor does not carry) with an AES-CMAC tag;
 * version 3, made by earlier gateways, is the same with an HMAC-SHA256 tag, and version 2 carried the
 * record part in clear: both are still read.
 */
export const ANCHORED_VERSION = 4;
/** Made by earlier gateways: sealed as version 4, its tag an HMAC-SHA256. */
export const HMAC_SEALED_VERSION = 3;
/** Made by earlier gateways: the record part in clear. */
export const CLEAR_ANCHORED_VERSION = 2;

/** Most bytes an anchor's sort-key values take; longer values are left out (no sort-key fallback). */
const MAX_ANCHOR_KEYS_LENGTH = 400;
/** Most sort keys an anchor carries values of. */
const MAX_ANCHOR_KEYS = 16;

const ID_UUID = 0;
const ID_TEXT = 1;
const NO_KEYS = 255;

const SEAL_BYTES = SEAL_TAG_BYTES + KEY_ID_BYTES;
/** The caller of the tests and of gateways before cursors had one: no token. */
const NO_CALLER: Buffer = Buffer.alloc(0);
/** Larger than any cursor this format makes (an id of 128 bytes, keys of 400, the seal). */
const SCRATCH_BYTES = 1024;
/** Shared by every encoding: each cursor is written here, then copied out. */
const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
const writer = new CursorWriter(scratch);

/** The record part: id, then keys, left out when they would make the cursor too long. */
function writeRecord(anchor: Anchor): void {
  const idAt = writer.length;
  writer.byte(ID_UUID);
  if (!writer.uuid(anchor.id)) {
    writer.truncate(idAt);
    writer.byte(ID_TEXT);
    writer.text(anchor.id);
  }
  const keys = anchor.keys;
  const keysAt = writer.length;
  if (keys !== null && keys.length <= MAX_ANCHOR_KEYS && keys.every(isKeyValue)) {
    writer.byte(keys.length);
    for (const value of keys) writeValue(writer, value, anchor.id);
    if (writer.length - keysAt - 1 <= MAX_ANCHOR_KEYS_LENGTH && !writer.full) return;
    writer.truncate(keysAt);
  }
  writer.byte(NO_KEYS);
}

/**
 * The cursor's text, sealed (version 4) for `caller` (a callerHash) unless `clear` asks for the
 * version 2 spelling.
 */
export function packAnchored(position: number, digest: Buffer, anchor: Anchor, clear = false, caller = NO_CALLER): string {
  if (!clear) return packAnchoredPage([position], digest, [anchor], caller)[0] as string;
  writer.reset();
  writer.byte(CLEAR_ANCHORED_VERSION);
  writer.varint(position);
  writer.bytes(digest.subarray(0, BINDING_DIGEST_BYTES));
  writeRecord(anchor);
  return writer.base64url();
}

/** A page's cursors, packed one after another to be sealed together; grown for a page that needs more. */
let pageBytes = Buffer.allocUnsafe(8 * 1024);

/**
 * The sealed cursors of `anchors`, each at its position, for `caller`: packed one after another into
 * one buffer, then sealed together (a few cipher calls for the page).
 */
export function packAnchoredPage(positions: readonly number[], digest: Buffer, anchors: readonly Anchor[], caller = NO_CALLER): string[] {
  const binding = digest.subarray(0, BINDING_DIGEST_BYTES);
  const cursors: CursorSpan[] = [];
  let end = 0;
  for (let index = 0; index < anchors.length; index++) {
    writer.reset();
    writer.byte(ANCHORED_VERSION);
    writer.varint(positions[index] as number);
    writer.bytes(binding);
    const sealAt = writer.length;
    writer.truncate(sealAt + SEAL_BYTES);
    writeRecord(anchors[index] as Anchor);
    const length = writer.length;
    if (end + length > pageBytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(2 * pageBytes.length, end + length));
      pageBytes.copy(grown, 0, 0, end);
      pageBytes = grown;
    }
    scratch.copy(pageBytes, end, 0, length);
    cursors.push({ start: end, sealAt: end + sealAt, end: end + length });
    end += length;
  }
  seal(pageBytes, cursors, caller);
  return cursors.map((cursor) => pageBytes.toString('base64url', cursor.start, cursor.end));
}

function readRecord(reader: CursorReader): Anchor {
  const idKind = reader.byte();
  let id: string;
  if (idKind === ID_UUID) id = reader.uuid();
  else if (idKind === ID_TEXT) id = reader.text();
  else throw new RangeError(`unknown id kind ${idKind}`);
  const count = reader.byte();
  let keys: KeyValue[] | null = null;
  if (count !== NO_KEYS) {
    if (count > MAX_ANCHOR_KEYS) throw new RangeError('too many keys');
    keys = [];
    for (let index = 0; index < count; index++) keys.push(readValue(reader, id));
  }
  if (!reader.done) throw new RangeError('trailing bytes');
  return { id, keys };
}

/** Bytes of `value` as an unsigned LEB128 integer. */
function varintLength(value: number): number {
  let length = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) length++;
  return length;
}

interface UnpackedAnchored {
  version: typeof ANCHORED_VERSION | typeof HMAC_SEALED_VERSION | typeof CLEAR_ANCHORED_VERSION;
  position: number;
  digest: Buffer;
  /** Null for a sealed cursor whose record part cannot be read (`unreadable` says why). */
  anchor: Anchor | null;
  unreadable?: Unreadable;
}

/**
 * What an anchored cursor's bytes hold, read by `caller` (a callerHash); throws a RangeError for
 * bytes that are not one, and for a sealed one this key sealed for another caller.
 */
export function unpackAnchored(bytes: Buffer, caller = NO_CALLER): UnpackedAnchored {
  const reader = new CursorReader(bytes);
  const version = reader.byte();
  if (version !== ANCHORED_VERSION && version !== HMAC_SEALED_VERSION && version !== CLEAR_ANCHORED_VERSION) throw new RangeError('not an anchored cursor');
  const position = reader.varint();
  const digest = reader.bytes(BINDING_DIGEST_BYTES);
  if (version === CLEAR_ANCHORED_VERSION) return { version, position, digest, anchor: readRecord(reader) };
  const sealAt = 1 + varintLength(position) + BINDING_DIGEST_BYTES;
  // Only the position's shortest spelling: its last byte is where the shortest one ends.
  if ((bytes[sealAt - BINDING_DIGEST_BYTES - 1] as number) >= 0x80) throw new RangeError('position not in its shortest form');
  const tag = reader.bytes(SEAL_TAG_BYTES);
  const keyId = reader.bytes(KEY_ID_BYTES);
  // The shortest record part: a kind byte, an id of one byte at least, a count byte.
  if (bytes.length - sealAt - SEAL_BYTES < 3) throw new RangeError('cursor ends early');
  const mac = version === ANCHORED_VERSION ? 'aes-cmac' : 'hmac-sha256';
  const record = unseal(bytes.subarray(0, sealAt), tag, keyId, bytes.subarray(sealAt + SEAL_BYTES), caller, mac);
  if (typeof record === 'string') return { version, position, digest, anchor: null, unreadable: record };
  return { version, position, digest, anchor: readRecord(new CursorReader(record)) };
}
