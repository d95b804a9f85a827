import { writeValue, readValue, isKeyValue } from './anchor-values.ts';
import { BINDING_DIGEST_BYTES } from './binding-hash.ts';
import { CursorReader, CursorWriter } from './cursor-bytes.ts';
import type { Anchor, KeyValue } from './types.ts';

/**
 * Cursor format version 2: a position and its anchor (the record's id and its sort-key values),
 * packed binary rather than JSON so that a cursor carrying a UUID and a timestamp stays about as
 * short as a position cursor (clients show and send them back on every page).
 *
 * Layout: version byte, position (unsigned LEB128), the first bytes of the binding's SHA-256, the
 * id (a kind byte, then 16 bytes of a UUID or the text), then the keys: a count byte (255: none
 * carried) and one tagged value per key (anchor-values.ts).
 */
export const ANCHORED_VERSION = 2;

/** Most bytes an anchor's sort-key values take; longer values are left out (no sort-key fallback). */
const MAX_ANCHOR_KEYS_LENGTH = 400;
/** Most sort keys an anchor carries values of. */
const MAX_ANCHOR_KEYS = 16;

const ID_UUID = 0;
const ID_TEXT = 1;
const NO_KEYS = 255;

/** Larger than any cursor this format makes (an id of 128 bytes, keys of 400). */
const SCRATCH_BYTES = 1024;
/** Shared by every encoding: packAnchored() fills it and copies the cursor out before it returns. */
const writer = new CursorWriter(Buffer.allocUnsafe(SCRATCH_BYTES));

/** The version 2 cursor's text; keys are left out when they would make it too long. */
export function packAnchored(position: number, digest: Buffer, anchor: Anchor): string {
  writer.reset();
  writer.byte(ANCHORED_VERSION);
  writer.varint(position);
  writer.bytes(digest.subarray(0, BINDING_DIGEST_BYTES));
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
    if (writer.length - keysAt - 1 <= MAX_ANCHOR_KEYS_LENGTH && !writer.full) return writer.base64url();
    writer.truncate(keysAt);
  }
  writer.byte(NO_KEYS);
  return writer.base64url();
}

/** What a version 2 cursor's bytes hold; throws a RangeError for bytes that are not one. */
export function unpackAnchored(bytes: Buffer): { position: number; digest: Buffer; anchor: Anchor } {
  const reader = new CursorReader(bytes);
  if (reader.byte() !== ANCHORED_VERSION) throw new RangeError('not an anchored cursor');
  const position = reader.varint();
  const digest = reader.bytes(BINDING_DIGEST_BYTES);
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
  return { position, digest, anchor: { id, keys } };
}
