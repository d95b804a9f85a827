import { writeValue, readValue, isKeyValue } from './anchor-values.ts';
import { BINDING_DIGEST_BYTES } from './binding-hash.ts';
import { CursorReader, CursorWriter } from './cursor-bytes.ts';
import { currentSealingKey, open, SEAL_OVERHEAD_BYTES, sealInto, type SealRefusal } from './cursor-seal.ts';
import { SealedPages } from './sealed-pages.ts';
import type { Anchor, KeyValue } from './types.ts';

/**
 * Anchored cursors (version 6): the cursors of one page share one seal, whose size does not grow
 * with the page. The page's part holds, sealed (cursor-seal.ts): the Business Account its rows
 * belong to, the tag of the caller it was issued to, the position of its first record, the number
 * of its records, and the anchors (id and sort-key values, packed binary: a UUID as 16 bytes, a
 * platform timestamp as its instant) of two records only, its first and last that can be anchored,
 * each with its index in the page. Each cursor is that part behind its own index in the page:
 *
 *   version (1) · index (2) · binding digest (8) · secret id, salt, nonce (32) · sealed page · tag (16)
 *
 * The first three bytes are the cursor's own, a multiple of three bytes: its base64url text is the
 * four characters of them followed by the page's text, encoded once. The index is not covered by
 * the seal (the page is sealed once for all its cursors): changed, it names another cursor of the
 * same page, which its holder already has, or none, and the cursor is then refused.
 *
 * A cursor is placed by the anchored record of its page nearest to it (the first on a tie), at its
 * distance from that record: the first and last edges, and so startCursor and endCursor, which
 * Relay clients page with, are anchored exactly; a middle edge's cursor follows its page's nearer
 * end where the list moved it.
 *
 * Earlier versions (2: anchor in clear, 3 and 4: each cursor sealed on its own, by code of this
 * gateway rather than a vetted construction, 5: every record of the page sealed, so that each
 * cursor carried them all) are refused as sealed under other keys.
 */
export const ANCHORED_VERSION = 6;
/** The first byte of the cursors earlier gateways made with an anchor. */
export const EARLIER_ANCHORED_VERSIONS: readonly number[] = [2, 3, 4, 5];

/** The cursor's own bytes before the page's: version and index. */
const OWN_BYTES = 3;
/** What the seal authenticates in clear besides its header: the version and the binding digest. */
const CLEAR_BYTES = 1 + BINDING_DIGEST_BYTES;
/** Most records of a page that get a cursor of it: their index is two bytes. */
const MAX_PAGE_RECORDS = 0x10000;

/** Most bytes an anchor's sort-key values take; longer values are left out (no sort-key fallback). */
const MAX_ANCHOR_KEYS_LENGTH = 400;
/** Most sort keys an anchor carries values of. */
const MAX_ANCHOR_KEYS = 16;

const ID_UUID = 0;
const ID_TEXT = 1;
/** A page of no known account. */
const NONE = 2;
const NO_KEYS = 255;

/** Larger than any page part this format makes (an account and two ids of 128 bytes, two sets of keys of 400). */
const SCRATCH_BYTES = 2048;
const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
const writer = new CursorWriter(scratch);
const clear = Buffer.allocUnsafe(CLEAR_BYTES);
/** Pages sealed before: the same page asked again is not sealed again (sealed-pages.ts). */
const sealedPages = new SealedPages();

function writeId(id: string): void {
  const at = writer.length;
  writer.byte(ID_UUID);
  if (writer.uuid(id)) return;
  writer.truncate(at);
  writer.byte(ID_TEXT);
  writer.text(id);
}

/** The record part of an anchor: id, then keys, left out when they would make it too long. */
function writeRecord(anchor: Anchor): void {
  writeId(anchor.id);
  const keys = anchor.keys;
  const keysAt = writer.length;
  if (keys !== null && keys.length <= MAX_ANCHOR_KEYS && keys.every(isKeyValue)) {
    writer.byte(keys.length);
    for (const value of keys) writeValue(writer, value, anchor.id);
    if (writer.length - keysAt - 1 > MAX_ANCHOR_KEYS_LENGTH) writer.truncate(keysAt);
  }
  if (writer.length === keysAt) writer.byte(NO_KEYS);
}

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

/**
 * The cursors of a page of `count` records, the first at `start`: `anchorAt` gives a record's
 * anchor, null for one that cannot be anchored. Only the page's first and last anchored records
 * are asked for and sealed; every record of the page (up to MAX_PAGE_RECORDS) gets a cursor
 * placed by the nearer of them. None when no record can be anchored. `digest` is the binding's SHA-256.
 */
export function packAnchoredPage(start: number, count: number, digest: Buffer, anchorAt: (index: number) => Anchor | null, owner: PageOwner): string[] {
  const records = Math.min(count, MAX_PAGE_RECORDS);
  let first = -1;
  let firstAnchor: Anchor | null = null;
  for (let index = 0; index < records && firstAnchor === null; index++) {
    firstAnchor = anchorAt(index);
    first = index;
  }
  if (firstAnchor === null) return [];
  let last = first;
  let lastAnchor: Anchor | null = null;
  for (let index = records - 1; index > first && lastAnchor === null; index--) {
    lastAnchor = anchorAt(index);
    last = index;
  }
  writer.reset();
  if (owner.account === null) writer.byte(NONE);
  else writeId(owner.account);
  writer.byte(owner.callerTag.length);
  writer.bytes(owner.callerTag);
  writer.varint(start);
  writer.varint(records);
  writer.varint(first);
  writeRecord(firstAnchor);
  // The distance to the last anchored record; 0 when the first is the only one.
  if (lastAnchor === null) writer.varint(0);
  else {
    writer.varint(last - first);
    writeRecord(lastAnchor);
  }
  const plain = scratch.subarray(0, writer.length);
  clear[0] = ANCHORED_VERSION;
  digest.copy(clear, 1, 0, BINDING_DIGEST_BYTES);
  const name = sealedPages.nameOf(clear, plain, currentSealingKey());
  let page = name === undefined ? undefined : sealedPages.get(name);
  if (page === undefined) {
    // The page's bytes in one buffer: the clear bytes (version, digest), then the seal. The version
    // is authenticated from here, while each cursor carries it in its own bytes (with its index).
    const bytes = Buffer.allocUnsafe(CLEAR_BYTES + SEAL_OVERHEAD_BYTES + plain.length);
    clear.copy(bytes);
    sealInto(bytes, CLEAR_BYTES, plain);
    page = bytes.toString('base64url', 1);
    if (name !== undefined) sealedPages.keep(name, page);
  }
  const cursors = new Array<string>(records);
  for (let index = 0; index < records; index++) cursors[index] = ownText(index) + page;
  return cursors;
}

function readId(reader: CursorReader, kind: number): string {
  if (kind === ID_UUID) return reader.uuid();
  if (kind === ID_TEXT) return reader.text();
  throw new RangeError(`unknown id kind ${kind}`);
}

function readRecord(reader: CursorReader): Anchor {
  const id = readId(reader, reader.byte());
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
  /** Where the cursor's own record was. */
  position: number;
  /** The anchored record of its page it is placed by, and where that record was. */
  anchor: Anchor;
  anchorPosition: number;
  digest: Buffer;
  account: string | null;
  /** Whether the page was issued to the caller `isCaller` recognises by its tag. */
  sameCaller: boolean;
}

/** Why a cursor of this version is refused: its seal's (SealRefusal), or bytes that are no cursor at all. */
export type AnchoredRefusal = SealRefusal | 'malformed';

/** A page's sealed part, read; a RangeError for bytes of another layout. */
function readPage(plain: Buffer) {
  const reader = new CursorReader(plain);
  const accountKind = reader.byte();
  const account = accountKind === NONE ? null : readId(reader, accountKind);
  const tag = reader.bytes(reader.byte());
  const start = reader.varint();
  const count = reader.varint();
  const first = reader.varint();
  const firstAnchor = readRecord(reader);
  const distance = reader.varint();
  const lastAnchor = distance === 0 ? firstAnchor : readRecord(reader);
  if (!reader.done || first + distance >= count) throw new RangeError('not a page');
  return { account, tag, start, count, first, firstAnchor, last: first + distance, lastAnchor };
}

/** What an anchored cursor's bytes hold, or why they are refused. `isCaller` tells whether a caller tag names the reader. */
export function unpackAnchored(bytes: Buffer, isCaller: (tag: Buffer) => boolean): UnpackedAnchored | AnchoredRefusal {
  if (bytes.length < OWN_BYTES + BINDING_DIGEST_BYTES || bytes[0] !== ANCHORED_VERSION) return 'malformed';
  const index = bytes.readUInt16BE(1);
  const clear = Buffer.concat([bytes.subarray(0, 1), bytes.subarray(OWN_BYTES, OWN_BYTES + BINDING_DIGEST_BYTES)]);
  const opened = open(clear, bytes.subarray(OWN_BYTES + BINDING_DIGEST_BYTES));
  if (typeof opened === 'string') return opened;
  let page: ReturnType<typeof readPage>;
  try {
    page = readPage(opened.plain);
  } catch {
    // Sealed by a holder of the keys, yet not this layout.
    return 'malformed';
  }
  // The index is the one byte pair the seal does not cover: out of the page, it was changed.
  if (index >= page.count) return 'tampered';
  const byFirst = index - page.first <= page.last - index;
  return {
    position: page.start + index,
    anchor: byFirst ? page.firstAnchor : page.lastAnchor,
    anchorPosition: page.start + (byFirst ? page.first : page.last),
    digest: clear.subarray(1),
    account: page.account,
    sameCaller: isCaller(page.tag),
  };
}
