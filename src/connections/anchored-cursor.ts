import { writeValue, readValue, isKeyValue } from './anchor-values.ts';
import { BINDING_DIGEST_BYTES } from './binding-hash.ts';
import { CursorReader, CursorWriter } from './cursor-bytes.ts';
import { open, seal, type SealRefusal } from './cursor-seal.ts';
import type { Anchor, KeyValue } from './types.ts';

/**
 * Anchored cursors (version 5): the cursors of one page share one seal. The page's part holds, sealed
 * (cursor-seal.ts): the Business Account its rows belong to, the tag of the caller it was issued
 * to, the position of its first record, and each record's anchor (its id and sort-key values,
 * packed binary: a UUID as 16 bytes, a platform timestamp as its instant). Each cursor is that
 * part behind its own index in the page:
 *
 *   version (1) · index (2) · binding digest (8) · secret id, salt, nonce (32) · sealed records · tag (16)
 *
 * The first three bytes are the cursor's own, a multiple of three bytes: its base64url text is the
 * four characters of them followed by the page's text, encoded once. The index is not covered by
 * the seal (the page is sealed once for all its cursors): changed, it names another cursor of the
 * same page, which its holder already has, or none, and the cursor is then refused.
 *
 * Earlier versions (2: anchor in clear, 3 and 4: each cursor sealed on its own, by code of this
 * gateway rather than a vetted construction) are refused as sealed under other keys.
 */
export const ANCHORED_VERSION = 5;
/** The first byte of the cursors earlier gateways made with an anchor. */
export const EARLIER_ANCHORED_VERSIONS: readonly number[] = [2, 3, 4];

/** The cursor's own bytes before the page's: version and index. */
const OWN_BYTES = 3;
/** What the seal authenticates in clear besides its header: the version and the binding digest. */
const CLEAR_BYTES = 1 + BINDING_DIGEST_BYTES;

/** Most bytes an anchor's sort-key values take; longer values are left out (no sort-key fallback). */
const MAX_ANCHOR_KEYS_LENGTH = 400;
/** Most sort keys an anchor carries values of. */
const MAX_ANCHOR_KEYS = 16;
/**
 * Record bytes one seal holds: a page's records are sealed in as few groups as keep each under
 * this (a page of 20 in the default order, about 540 bytes, is one), so that a cursor, which
 * carries its group, stays short.
 */
const GROUP_RECORD_BYTES = 640;
/** Most records of one group: its cursors' index is two bytes. */
const MAX_GROUP_RECORDS = 0xffff;

const ID_UUID = 0;
const ID_TEXT = 1;
/** A record of the page whose cursor is a position-only one (its id too long to anchor), or a page of no known account. */
const NONE = 2;
const NO_KEYS = 255;

/** Larger than any record part this format makes (an id of 128 bytes, keys of 400). */
const SCRATCH_BYTES = 1024;
const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
const writer = new CursorWriter(scratch);

function writeId(id: string): void {
  const at = writer.length;
  writer.byte(ID_UUID);
  if (writer.uuid(id)) return;
  writer.truncate(at);
  writer.byte(ID_TEXT);
  writer.text(id);
}

/** The record part of an anchor, written from the writer's start: id, then keys, left out when they would make it too long. */
function writeRecord(anchor: Anchor | null): void {
  writer.reset();
  if (anchor === null) return writer.byte(NONE);
  writeId(anchor.id);
  const keys = anchor.keys;
  const keysAt = writer.length;
  if (keys !== null && keys.length <= MAX_ANCHOR_KEYS && keys.every(isKeyValue)) {
    writer.byte(keys.length);
    for (const value of keys) writeValue(writer, value, anchor.id);
    if (writer.length - keysAt - 1 > MAX_ANCHOR_KEYS_LENGTH || writer.full) writer.truncate(keysAt);
  }
  if (writer.length === keysAt) writer.byte(NO_KEYS);
}

/** A page's record parts, one after another; grown for a page that needs more. */
let pageRecords = Buffer.allocUnsafe(8 * 1024);

/** The first four characters of a cursor: its version and its index in its page, as base64url (made once per index). */
const ownTexts: string[] = [];
function ownText(index: number): string {
  if (ownTexts[index] === undefined) {
    const own = Buffer.alloc(OWN_BYTES);
    own[0] = ANCHORED_VERSION;
    own.writeUInt16BE(index, 1);
    ownTexts[index] = own.toString('base64url');
  }
  return ownTexts[index];
}

/** Who a page was issued to: the account its rows belong to (null when they name none) and the tag of the caller's token. */
export interface PageOwner {
  account: string | null;
  callerTag: Buffer;
}

function headBytes(owner: PageOwner, start: number, count: number): Buffer {
  writer.reset();
  if (owner.account === null) writer.byte(NONE);
  else writeId(owner.account);
  writer.byte(owner.callerTag.length);
  writer.bytes(owner.callerTag);
  writer.varint(start);
  writer.varint(count);
  return Buffer.from(scratch.subarray(0, writer.length));
}

/**
 * The cursors of a page's records, the first at `start`: the records of `anchors` that are null
 * get no anchored cursor (an empty string in their place). `digest` is the binding's SHA-256.
 */
export function packAnchoredPage(start: number, digest: Buffer, anchors: readonly (Anchor | null)[], owner: PageOwner): string[] {
  const clear = Buffer.alloc(CLEAR_BYTES);
  clear[0] = ANCHORED_VERSION;
  digest.copy(clear, 1, 0, BINDING_DIGEST_BYTES);
  // Where each record part ends in pageRecords.
  const ends = new Int32Array(anchors.length);
  let end = 0;
  anchors.forEach((anchor, index) => {
    writeRecord(anchor);
    if (end + writer.length > pageRecords.length) {
      const grown = Buffer.allocUnsafe(Math.max(2 * pageRecords.length, end + writer.length));
      pageRecords.copy(grown, 0, 0, end);
      pageRecords = grown;
    }
    end += scratch.copy(pageRecords, end, 0, writer.length);
    ends[index] = end;
  });
  const cursors: string[] = [];
  for (let from = 0; from < anchors.length; ) {
    const groupStart = from === 0 ? 0 : (ends[from - 1] as number);
    let to = from + 1;
    while (to < anchors.length && to - from < MAX_GROUP_RECORDS && (ends[to] as number) - groupStart <= GROUP_RECORD_BYTES) to++;
    const sealed = seal(clear, Buffer.concat([headBytes(owner, start + from, to - from), pageRecords.subarray(groupStart, ends[to - 1])]));
    const page = Buffer.concat([clear.subarray(1), sealed]).toString('base64url');
    for (let index = from; index < to; index++) cursors.push(anchors[index] === null ? '' : ownText(index - from) + page);
    from = to;
  }
  return cursors;
}

function readId(reader: CursorReader, kind: number): string {
  if (kind === ID_UUID) return reader.uuid();
  if (kind === ID_TEXT) return reader.text();
  throw new RangeError(`unknown id kind ${kind}`);
}

function readRecord(reader: CursorReader): Anchor | null {
  const kind = reader.byte();
  if (kind === NONE) return null;
  const id = readId(reader, kind);
  const count = reader.byte();
  let keys: KeyValue[] | null = null;
  if (count !== NO_KEYS) {
    if (count > MAX_ANCHOR_KEYS) throw new RangeError('too many keys');
    keys = [];
    for (let index = 0; index < count; index++) keys.push(readValue(reader, id));
  }
  return { id, keys };
}

export interface UnpackedAnchored {
  position: number;
  anchor: Anchor;
  digest: Buffer;
  account: string | null;
  /** Whether the page was issued to the caller `isCaller` recognises by its tag. */
  sameCaller: boolean;
}

/** Why a cursor of this version is refused: its seal's (SealRefusal), or bytes that are no cursor at all. */
export type AnchoredRefusal = SealRefusal | 'malformed';

/** What an anchored cursor's bytes hold, or why they are refused. `isCaller` tells whether a caller tag names the reader. */
export function unpackAnchored(bytes: Buffer, isCaller: (tag: Buffer) => boolean): UnpackedAnchored | AnchoredRefusal {
  if (bytes.length < OWN_BYTES + BINDING_DIGEST_BYTES || bytes[0] !== ANCHORED_VERSION) return 'malformed';
  const index = bytes.readUInt16BE(1);
  const clear = Buffer.concat([bytes.subarray(0, 1), bytes.subarray(OWN_BYTES, OWN_BYTES + BINDING_DIGEST_BYTES)]);
  const opened = open(clear, bytes.subarray(OWN_BYTES + BINDING_DIGEST_BYTES));
  if (typeof opened === 'string') return opened;
  try {
    const reader = new CursorReader(opened.plain);
    const accountKind = reader.byte();
    const account = accountKind === NONE ? null : readId(reader, accountKind);
    const tag = reader.bytes(reader.byte());
    const start = reader.varint();
    const count = reader.varint();
    // The index is the one byte pair the seal does not cover: out of the page, or naming a record
    // that was given a position-only cursor, it was changed.
    if (index >= count) return 'tampered';
    for (let skipped = 0; skipped < index; skipped++) readRecord(reader);
    const anchor = readRecord(reader);
    if (anchor === null) return 'tampered';
    return { position: start + index, anchor, digest: clear.subarray(1), account, sameCaller: isCaller(tag) };
  } catch {
    // Sealed by a holder of the keys, yet not this layout.
    return 'malformed';
  }
}
