import { describe, expect, it } from '@jest/globals';
import { CursorReader, CursorWriter } from '../../src/connections/cursor-bytes.ts';

const UUID = '144dd391-6a98-4e9f-906f-34d220a04a6b';

describe('cursor writer', () => {
  it('fills its buffer to the last byte, and drops and counts what goes past it', () => {
    const buffer = Buffer.alloc(8);
    const writer = new CursorWriter(buffer);
    writer.bytes(Buffer.from([1, 2, 3, 4, 5, 6]));
    writer.byte(7);
    writer.byte(8);
    expect([writer.length, writer.full, writer.base64url()]).toEqual([8, false, Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]).toString('base64url')]);
    writer.byte(9);
    writer.bytes(Buffer.from([10, 11]));
    writer.text('abc');
    writer.float(1);
    expect([writer.length, writer.full, [...buffer]]).toEqual([23, true, [1, 2, 3, 4, 5, 6, 7, 8]]);
  });

  it('writes bytes, text and a double that end exactly at the buffer end, and nothing of one that would pass it', () => {
    const buffer = Buffer.alloc(8);
    const writer = new CursorWriter(buffer);
    writer.bytes(Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]));
    expect([...buffer]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    writer.reset();
    writer.byte(0xee);
    writer.text('abcdef');
    expect([writer.full, buffer.toString('latin1')]).toEqual([false, '\xee\x06abcdef']);
    writer.reset();
    writer.float(-2.5);
    expect([writer.full, buffer.readDoubleBE(0)]).toEqual([false, -2.5]);

    buffer.fill(0);
    writer.reset();
    writer.byte(0xee);
    writer.bytes(Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]));
    writer.text('abcdefgh');
    writer.float(-2.5);
    expect([writer.length, writer.full, [...buffer]]).toEqual([26, true, [0xee, 0, 0, 0, 0, 0, 0, 0]]);
    writer.truncate(1);
    writer.text('abcdefg');
    expect([writer.length, writer.full, buffer.toString('latin1')]).toEqual([9, true, '\xee\x07\0\0\0\0\0\0']);
  });

  it('packs only a canonical lower-case UUID as 16 bytes', () => {
    const writer = new CursorWriter(Buffer.alloc(32));
    expect(writer.uuid(UUID)).toBe(true);
    expect(writer.base64url()).toBe(Buffer.from(UUID.replaceAll('-', ''), 'hex').toString('base64url'));
    for (const id of [`${UUID}0`, UUID.slice(0, 35), UUID.toUpperCase(), UUID.replace('b', 'g'), UUID.replace('4', ':'), UUID.replace('-', '0')]) {
      writer.reset();
      expect([id, writer.uuid(id), writer.length]).toEqual([id, false, 0]);
    }
  });
});

describe('cursor reader', () => {
  it('refuses to read past the end, and tells when it is done', () => {
    const reader = new CursorReader(Buffer.from([5, 1, 2]));
    expect([reader.byte(), reader.done]).toEqual([5, false]);
    expect(() => reader.bytes(3)).toThrow(new RangeError('cursor ends early'));
    expect([...reader.bytes(2)]).toEqual([1, 2]);
    expect(reader.done).toBe(true);
    expect(() => reader.byte()).toThrow(new RangeError('cursor ends early'));
  });

  it('reads a position of five bytes and refuses a number that does not end', () => {
    expect(new CursorReader(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x04])).varint()).toBe(2 ** 30);
    expect(() => new CursorReader(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01])).varint()).toThrow(new RangeError('number too long'));
  });

  it('refuses a sixth byte, even one that ends the number', () => {
    const reader = new CursorReader(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01]));
    expect(() => reader.varint()).toThrow(new RangeError('number too long'));
  });
});
