import { describe, expect, it } from '@jest/globals';
import { isKeyValue, readValue, writeValue } from '../../src/connections/anchor-values.ts';
import { CursorReader, CursorWriter } from '../../src/connections/cursor-bytes.ts';
import type { KeyValue } from '../../src/connections/types.ts';

// Sort-key values as an anchored cursor packs them: a tag byte (0 null, 1 true, 2 false, 3 number,
// 4 text, 5 platform timestamp, 6 the anchor's id), then the value in its shortest form.

const ID = '144dd391-6a98-4e9f-906f-34d220a04a6b';
const STAMP = '2026-08-01T12:34:56.789+0000';
const STAMP_MS = Date.UTC(2026, 7, 1, 12, 34, 56, 789);

/** The 8 bytes of a big-endian double. */
function double(value: number): number[] {
  const buffer = Buffer.alloc(8);
  buffer.writeDoubleBE(value);
  return [...buffer];
}

/** The bytes `writeValue` packs for `values`, in order, with `id` the anchor's id. */
function packed(values: readonly KeyValue[], id = ID): number[] {
  const writer = new CursorWriter(Buffer.alloc(1024));
  for (const value of values) writeValue(writer, value, id);
  return [...Buffer.from(writer.base64url(), 'base64url')];
}

/** Reads `count` values back from `bytes` with `id` the anchor's id; the reader must end exactly at the last byte. */
function unpacked(bytes: readonly number[], count: number, id = ID): KeyValue[] {
  const reader = new CursorReader(Buffer.from(bytes));
  const values = Array.from({ length: count }, () => readValue(reader, id));
  expect(reader.done).toBe(true);
  return values;
}

describe('isKeyValue', () => {
  it('takes null, any string, either boolean and every finite number', () => {
    for (const value of [null, '', 'a', ID, STAMP, true, false, 0, -0, 1, -2.5, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, 2 ** 53 + 2]) {
      expect([value, isKeyValue(value)]).toEqual([value, true]);
    }
  });

  it('refuses undefined, non-finite numbers, objects, arrays, dates, big integers, symbols and functions', () => {
    for (const value of [undefined, Number.NaN, Infinity, -Infinity, {}, { id: ID }, [], ['a'], new Date(STAMP_MS), 1n, Symbol('a'), () => 'a', new String('a'), new Number(1)]) {
      expect([value, isKeyValue(value)]).toEqual([value, false]);
    }
  });
});

describe('writeValue', () => {
  it('packs null, true and false as their tag alone', () => {
    expect(packed([null])).toEqual([0]);
    expect(packed([true])).toEqual([1]);
    expect(packed([false])).toEqual([2]);
  });

  it('packs a number as tag 3 and its double, whatever its size or sign', () => {
    for (const value of [0, -0, 1, -2.5, 0.1, 2 ** 53 + 2, Number.MAX_VALUE, -Number.MIN_VALUE]) {
      expect([value, packed([value])]).toEqual([value, [3, ...double(value)]]);
    }
  });

  it('packs text as tag 4, its UTF-8 byte length as a varint and its bytes', () => {
    expect(packed(['abc'])).toEqual([4, 3, 0x61, 0x62, 0x63]);
    expect(packed([''])).toEqual([4, 0]);
    // Two bytes for é, three for €, four for the emoji: the length counts bytes, not characters.
    expect(packed(['é€😀'])).toEqual([4, 9, ...Buffer.from('é€😀', 'utf8')]);
    // 200 bytes: the length takes two varint bytes (200 = 0x48 + 1 × 128).
    expect(packed(['x'.repeat(200)])).toEqual([4, 0xc8, 0x01, ...Buffer.from('x'.repeat(200))]);
  });

  it("packs a value equal to the anchor's id as tag 6 alone, even one that reads as a timestamp, and another id's as text", () => {
    expect(packed([ID])).toEqual([6]);
    expect(packed([ID], 'another-id')).toEqual([4, 36, ...Buffer.from(ID)]);
    expect(packed([STAMP], STAMP)).toEqual([6]);
    expect(packed(['r1'], 'r1')).toEqual([6]);
    // An empty id is still the anchor's id: an empty value equal to it packs as the tag alone.
    expect(packed([''], '')).toEqual([6]);
  });

  it("packs a timestamp in the platform's form as tag 5 and its epoch milliseconds as a double", () => {
    expect(packed([STAMP])).toEqual([5, ...double(STAMP_MS)]);
    expect(packed(['1970-01-01T00:00:00.000+0000'])).toEqual([5, ...double(0)]);
    expect(packed(['1000-01-01T00:00:00.000+0000'])).toEqual([5, ...double(Date.UTC(1000, 0, 1))]);
    expect(packed(['9999-12-31T23:59:59.999+0000'])).toEqual([5, ...double(Date.UTC(9999, 11, 31, 23, 59, 59, 999))]);
    expect(packed(['2024-02-29T00:00:00.000+0000'])).toEqual([5, ...double(Date.UTC(2024, 1, 29))]);
  });

  it('packs every other date-time spelling as text, so it reads back as it was written', () => {
    for (const text of [
      '2026-08-01T12:34:56.789Z',
      '2026-08-01T12:34:56.789+00:00',
      '2026-08-01T12:34:56.789+0100',
      '2026-08-01T12:34:56+0000',
      '2026-08-01 12:34:56.789+0000',
      '2026-02-30T00:00:00.000+0000',
      '2025-02-29T00:00:00.000+0000',
      '2026-08-01T24:00:00.000+0000',
      '0999-12-31T23:59:59.999+0000',
      '2026-08-01',
    ]) {
      expect([text, packed([text])]).toEqual([text, [4, text.length, ...Buffer.from(text)]]);
    }
  });

  it('writes one value after another with nothing between them', () => {
    expect(packed([null, true, 'a', ID, 7, false, STAMP])).toEqual([0, 1, 4, 1, 0x61, 6, 3, ...double(7), 2, 5, ...double(STAMP_MS)]);
  });
});

describe('readValue', () => {
  it('reads back every kind of value exactly as it was written, one after another', () => {
    const values: KeyValue[] = [null, true, false, 0, -2.5, Number.MAX_VALUE, '', 'abc', 'é€😀', 'x'.repeat(200), ID, STAMP, '1970-01-01T00:00:00.000+0000', '2026-08-01T12:34:56.789Z', '2026-02-30T00:00:00.000+0000'];
    expect(unpacked(packed(values), values.length)).toEqual(values);
  });

  it('reads back negative zero as negative zero', () => {
    expect(Object.is(unpacked(packed([-0]), 1)[0], -0)).toBe(true);
    expect(Object.is(unpacked(packed([0]), 1)[0], 0)).toBe(true);
  });

  it("reads tag 6 as the id of the anchor it is read for: the value is the anchor's own id", () => {
    expect(unpacked([6], 1, 'r42')).toEqual(['r42']);
    expect(unpacked(packed([ID, 'r1', ID]), 3, 'another')).toEqual(['another', 'r1', 'another']);
  });

  it('reads tag 5 as a timestamp in the platform form, with its milliseconds', () => {
    expect(unpacked([5, ...double(STAMP_MS)], 1)).toEqual([STAMP]);
    expect(unpacked([5, ...double(0)], 1)).toEqual(['1970-01-01T00:00:00.000+0000']);
    expect(unpacked([5, ...double(Date.UTC(2026, 0, 2, 3, 4, 5))], 1)).toEqual(['2026-01-02T03:04:05.000+0000']);
  });

  it('refuses a tag it does not know with a RangeError naming the tag', () => {
    for (const tag of [7, 8, 0x80, 0xff]) {
      const reader = new CursorReader(Buffer.from([tag, 0, 0, 0, 0, 0, 0, 0, 0]));
      expect(() => readValue(reader, ID)).toThrow(new RangeError(`unknown value tag ${tag}`));
    }
  });

  it('refuses bytes that end before the value does', () => {
    for (const bytes of [[], [3], [3, ...double(1).slice(0, 7)], [5, ...double(STAMP_MS).slice(0, 4)], [4, 3, 0x61, 0x62], [4], [4, 0x80]]) {
      expect(() => readValue(new CursorReader(Buffer.from(bytes)), ID)).toThrow(new RangeError('cursor ends early'));
    }
  });
});
