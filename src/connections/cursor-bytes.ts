/**
 * The bytes of a packed cursor: a writer and a reader of the few primitives its layout uses
 * (bytes, unsigned LEB128 integers, UUIDs, UTF-8 text, doubles).
 */

/** The value of a lower-case hex digit, or -1. */
function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

/**
 * Writes into one buffer reused for every cursor: encoding allocates nothing but the text it
 * returns. A write past the buffer's end is dropped and only counted, so the caller can tell a
 * cursor that would be too long (`full`) and undo the part that made it so (`truncate`).
 */
export class CursorWriter {
  readonly #buffer: Buffer;
  #offset = 0;

  constructor(buffer: Buffer) {
    this.#buffer = buffer;
  }

  /** Starts a new cursor. */
  reset(): void {
    this.#offset = 0;
  }

  /** Bytes written, counting the ones dropped past the end. */
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

  /** Drops what was written from `to` on: a part that turned out too long. */
  truncate(to: number): void {
    this.#offset = to;
  }

  base64url(): string {
    return this.#buffer.toString('base64url', 0, this.#offset);
  }
}

/** Reads a packed cursor; any read past its end throws a RangeError. */
export class CursorReader {
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

  /** An unsigned LEB128 integer of at most five bytes (what a cursor position takes). */
  varint(): number {
    let value = 0;
    for (let shift = 1; ; shift *= 0x80) {
      const byte = this.byte();
      value += (byte & 0x7f) * shift;
      if (byte < 0x80) return value;
      if (shift >= 2 ** 28) throw new RangeError('number too long');
    }
  }

  bytes(count: number): Buffer {
    this.#need(count);
    const slice = this.#buffer.subarray(this.#offset, this.#offset + count);
    this.#offset += count;
    return slice;
  }

  /** The UUID of 16 bytes, in canonical lower-case text. */
  uuid(): string {
    const hex = this.bytes(16).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
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
