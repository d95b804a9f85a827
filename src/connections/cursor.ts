import { createHash } from 'node:crypto';
import { badUserInput } from '../errors.ts';

/**
 * Cursor formats. Version 1 is JSON carrying a position only; version 2 also carries the anchor:
 * the id of the record the cursor points at and the values of the connection's sort keys on it.
 * Both are read, so cursors handed out before anchors existed keep working (as plain offsets).
 * Version 2 is packed binary, not JSON, so that a cursor carrying a UUID and a timestamp stays
 * about as short as a version 1 cursor (clients show and send them back on every page).
 */
const POSITION_VERSION = 1;
const ANCHORED_VERSION = 2;

/**
 * Upper bound for a position inside a cursor. Anyone can forge a cursor (its content is only
 * encoded, not signed), and the platform's `page` and `size` are int32: this bound keeps every page
 * index derived from a position, plus a window and the one-based shift, inside that range.
 */
export const MAX_CURSOR_POSITION = 2 ** 30;

/** Longest record id (UTF-8 bytes) an anchor carries; a longer one leaves the cursor a plain position. */
export const MAX_ANCHOR_ID_LENGTH = 128;
/** Most bytes an anchor's sort-key values take; longer values are left out (no sort-key fallback). */
export const MAX_ANCHOR_KEYS_LENGTH = 400;
/** Most sort keys an anchor carries values of. */
const MAX_ANCHOR_KEYS = 16;

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

const HASH_BYTES = 8;

interface BindingHashes {
  digest: Buffer;
  /** 66 bits of the digest, as position-only cursors carry it. */
  hash: string;
}

/**
 * Hashes of recent bindings: most requests page the same few lists with the same filters, and two
 * SHA-256 per connection were a visible share of a page's CPU. Bounded in entries and in the
 * length of what it keeps (a binding holds client filter values); longer bindings are hashed each time.
 */
const BINDING_CACHE_ENTRIES = 256;
const BINDING_CACHE_MAX_CHARS = 512;
const bindingCache = new Map<string, BindingHashes>();

function hashesOf(binding: string): BindingHashes {
  const cached = bindingCache.get(binding);
  if (cached) return cached;
  const digest = createHash('sha256').update(binding, 'utf8').digest();
  // 66 bits: collisions between two filter/order texts of one connection are out of reach in practice.
  const hashes = { digest, hash: digest.toString('base64url').slice(0, 11) };
  if (binding.length <= BINDING_CACHE_MAX_CHARS) {
    if (bindingCache.size >= BINDING_CACHE_ENTRIES) bindingCache.delete(bindingCache.keys().next().value as string);
    bindingCache.set(binding, hashes);
  }
  return hashes;
}

function bindingDigest(binding: string): Buffer {
  return hashesOf(binding).digest;
}

function bindingHash(binding: string): string {
  return hashesOf(binding).hash;
}

/** Bindings whose hashes are held (for tests). */
export function cachedBindings(): number {
  return bindingCache.size;
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

function serialise(position: number, hash: string): string {
  return Buffer.from(JSON.stringify({ v: POSITION_VERSION, p: position, b: hash }), 'utf8').toString('base64url');
}

// Version 2 layout: version byte, position (unsigned LEB128), 8 bytes of the binding's SHA-256,
// the id, then the keys: a count byte (255: none carried) and one tagged value per key.
const ID_UUID = 0;
const ID_TEXT = 1;
const VALUE_NULL = 0;
const VALUE_TRUE = 1;
const VALUE_FALSE = 2;
const VALUE_NUMBER = 3;
const VALUE_TEXT = 4;
/** A timestamp in the platform's form, yyyy-MM-ddTHH:mm:ss.SSS+0000, packed as epoch milliseconds. */
const VALUE_PLATFORM_TIME = 5;
/** The same value as the anchor's id (the id tiebreak key), not repeated. */
const VALUE_ID = 6;
const NO_KEYS = 255;

function platformTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}+0000`;
}

/** The digit at `index` of `text`, or -1. */
function digit(text: string, index: number): number {
  const code = text.charCodeAt(index) - 48;
  return code >= 0 && code <= 9 ? code : -1;
}

/** The number written with the digits at [from, to) of `text`, or -1 when one is not a digit. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let index = from; index < to; index++) {
    const next = digit(text, index);
    if (next < 0) return -1;
    value = value * 10 + next;
  }
  return value;
}

/**
 * Epoch milliseconds of a platform timestamp (yyyy-MM-ddTHH:mm:ss.SSS+0000) whose text they
 * reproduce exactly; null otherwise (other forms, impossible dates, years before 1000 that
 * Date.UTC would move to the 1900s). Read by hand: this runs once per edge of every page.
 */
function packableTime(text: string): number | null {
  // yyyy-MM-ddTHH:mm:ss.SSS+0000: the separators at their places.
  if (text.length !== 28 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84) return null;
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58 || text.charCodeAt(19) !== 46 || !text.endsWith('+0000')) return null;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  const milli = digits(text, 20, 23);
  if (year < 1000 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || milli < 0) return null;
  if (day > daysIn(year, month)) return null;
  return Date.UTC(year, month - 1, day, hour, minute, second, milli);
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (MONTH_DAYS[month - 1] as number);
}

/** The value of a lower-case hex digit, or -1. */
function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

/** Writes into one buffer reused for every cursor of an encoder: encoding allocates nothing else. */
class Writer {
  readonly #buffer: Buffer;
  #offset = 0;

  constructor(buffer: Buffer) {
    this.#buffer = buffer;
  }

  /** Bytes written; a write past the end is dropped and makes this larger than the buffer. */
  get length(): number {
    return this.#offset;
  }

  get full(): boolean {
    return this.#offset > this.#buffer.length;
  }

  byte(value: number): void {
    if (this.#offset < this.#buffer.length) this.#buffer[this.#offset] = value;
    this.#offset++;
  }

  varint(value: number): void {
    let rest = value;
    while (rest >= 0x80) {
      this.byte((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    this.byte(rest);
  }

  bytes(source: Uint8Array): void {
    if (this.#offset + source.length <= this.#buffer.length) this.#buffer.set(source, this.#offset);
    this.#offset += source.length;
  }

  /**
   * A UUID's 16 bytes from its canonical lower-case text; false, with nothing written, when `id` is
   * not one (it then travels as text).
   */
  uuid(id: string): boolean {
    if (id.length !== 36) return false;
    const start = this.#offset;
    for (let index = 0; index < 36; index += 2) {
      if (index === 8 || index === 13 || index === 18 || index === 23) {
        if (id.charCodeAt(index) !== 45) break;
        index++;
      }
      const high = hexDigit(id.charCodeAt(index));
      const low = hexDigit(id.charCodeAt(index + 1));
      if (high < 0 || low < 0) break;
      this.byte(high * 16 + low);
    }
    if (this.#offset - start === 16) return true;
    this.#offset = start;
    return false;
  }

  text(value: string): void {
    const length = Buffer.byteLength(value, 'utf8');
    this.varint(length);
    if (this.#offset + length <= this.#buffer.length) this.#buffer.write(value, this.#offset, 'utf8');
    this.#offset += length;
  }

  float(value: number): void {
    if (this.#offset + 8 <= this.#buffer.length) this.#buffer.writeDoubleBE(value, this.#offset);
    this.#offset += 8;
  }

  /** From `from` on: where a part that turned out too long is undone. */
  truncate(to: number): void {
    this.#offset = to;
  }

  base64url(): string {
    return this.#buffer.toString('base64url', 0, this.#offset);
  }
}


class Reader {
  readonly #buffer: Buffer;
  #offset = 0;

  constructor(buffer: Buffer) {
    this.#buffer = buffer;
  }

  #need(count: number): void {
    if (this.#offset + count > this.#buffer.length) throw new RangeError('cursor ends early');
  }

  byte(): number {
    this.#need(1);
    return this.#buffer[this.#offset++] as number;
  }

  varint(): number {
    let value = 0;
    for (let shift = 1; ; shift *= 0x80) {
      const byte = this.byte();
      value += (byte & 0x7f) * shift;
      if (byte < 0x80) return value;
      if (shift > 2 ** 28) throw new RangeError('number too long');
    }
  }

  bytes(count: number): Buffer {
    this.#need(count);
    const slice = this.#buffer.subarray(this.#offset, this.#offset + count);
    this.#offset += count;
    return slice;
  }

  text(): string {
    return this.bytes(this.varint()).toString('utf8');
  }

  float(): number {
    return this.bytes(8).readDoubleBE(0);
  }

  get done(): boolean {
    return this.#offset === this.#buffer.length;
  }
}

function writeValue(writer: Writer, value: KeyValue, id: string): void {
  if (value === null) return writer.byte(VALUE_NULL);
  if (value === true) return writer.byte(VALUE_TRUE);
  if (value === false) return writer.byte(VALUE_FALSE);
  if (typeof value === 'number') {
    writer.byte(VALUE_NUMBER);
    return writer.float(value);
  }
  if (value === id) return writer.byte(VALUE_ID);
  const ms = packableTime(value);
  if (ms !== null) {
    writer.byte(VALUE_PLATFORM_TIME);
    return writer.float(ms);
  }
  writer.byte(VALUE_TEXT);
  writer.text(value);
}

function readValue(reader: Reader, id: string): KeyValue {
  const tag = reader.byte();
  switch (tag) {
    case VALUE_NULL:
      return null;
    case VALUE_TRUE:
      return true;
    case VALUE_FALSE:
      return false;
    case VALUE_NUMBER:
      return reader.float();
    case VALUE_ID:
      return id;
    case VALUE_PLATFORM_TIME:
      return platformTime(reader.float());
    case VALUE_TEXT:
      return reader.text();
    default:
      throw new RangeError(`unknown value tag ${tag}`);
  }
}

/** Larger than any cursor this gateway makes (an id of 128 bytes, keys of 400). */
const SCRATCH_BYTES = 1024;
/** Shared by every encoding: pack() fills it and copies the cursor out before it returns. */
const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);

/** The anchored cursor's text; keys are left out when they would make it too long. */
function pack(position: number, digest: Buffer, anchor: Anchor): string {
  const writer = new Writer(scratch);
  writer.byte(ANCHORED_VERSION);
  writer.varint(position);
  writer.bytes(digest.subarray(0, HASH_BYTES));
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

function unpack(bytes: Buffer): { position: number; digest: Buffer; anchor: Anchor } {
  const reader = new Reader(bytes);
  if (reader.byte() !== ANCHORED_VERSION) throw new RangeError('not an anchored cursor');
  const position = reader.varint();
  const digest = reader.bytes(HASH_BYTES);
  const idKind = reader.byte();
  let id: string;
  if (idKind === ID_UUID) {
    const hex = reader.bytes(16).toString('hex');
    id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  } else if (idKind === ID_TEXT) {
    id = reader.text();
  } else {
    throw new RangeError(`unknown id kind ${idKind}`);
  }
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

/** Encodes position-only cursors for one binding, hashing it once rather than once per edge. */
export function cursorEncoder(binding: string): (position: number) => string {
  const hash = bindingHash(binding);
  return (position) => {
    checkPosition(position);
    return serialise(position, hash);
  };
}

/** Encodes anchored cursors for one binding; an id too long to carry gives a position-only cursor. */
export function anchoredCursorEncoder(binding: string): (position: number, anchor: Anchor) => string {
  const { hash, digest } = hashesOf(binding);
  return (position, anchor) => {
    checkPosition(position);
    if (anchor.id === '' || anchor.id.length > MAX_ANCHOR_ID_LENGTH || Buffer.byteLength(anchor.id, 'utf8') > MAX_ANCHOR_ID_LENGTH) return serialise(position, hash);
    return pack(position, digest, anchor);
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
  const foreign = () =>
    badUserInput(`${argumentName} cursor does not belong to this filter/order; restart paging without it`, {
      argumentName,
    });
  if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw malformed();
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes[0] === ANCHORED_VERSION) {
    let unpacked: ReturnType<typeof unpack>;
    try {
      unpacked = unpack(bytes);
    } catch {
      throw malformed();
    }
    const { position, digest, anchor } = unpacked;
    if (!isPosition(position)) throw malformed();
    const expected = bindingDigest(binding);
    if (!digest.equals(expected.subarray(0, HASH_BYTES))) throw foreign();
    // Only the exact bytes this gateway produces are accepted: no alternative spellings or padding.
    if (anchoredCursorEncoder(binding)(position, anchor) !== cursor) throw malformed();
    return { position, anchor };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw malformed();
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw malformed();
  const { v, p, b } = payload as Partial<Record<'v' | 'p' | 'b', unknown>>;
  if (typeof v === 'number' && v !== POSITION_VERSION) {
    throw badUserInput(`${argumentName} cursor comes from another version of this API; restart paging without it`, {
      argumentName,
    });
  }
  if (v !== POSITION_VERSION || !isPosition(p) || typeof b !== 'string') throw malformed();
  const hash = bindingHash(binding);
  if (b !== hash) throw foreign();
  if (serialise(p, hash) !== cursor) throw malformed();
  return { position: p, anchor: null };
}

/** The position a cursor points at (see readCursor). */
export function decodeCursor(cursor: string, binding: string, argumentName = 'cursor'): number {
  return readCursor(cursor, binding, argumentName).position;
}
