import { createDecipheriv } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { packAnchored, unpackAnchored } from '../../src/connections/anchored-cursor.ts';
import { hashesOf } from '../../src/connections/binding-hash.ts';
import { useCursorSecret } from '../../src/connections/cursor-seal.ts';
import { decodeCursor, encodeAnchoredCursor, encodeCursor, readCursor } from '../../src/connections/index.ts';
import type { Anchor } from '../../src/connections/index.ts';
import { rejection } from '../support/rejection.ts';
import { aesCmac, hmacSealedCursor, sealKeys } from './seal-reference.ts';

const BINDING = 'exceptions?sort=createdAt%2CDESC';
const UUID = '144dd391-6a98-4e9f-906f-34d220a04a6b';

const MALFORMED = 'after is not a cursor of this connection; pass a startCursor, endCursor or edge cursor from a previous page, or restart paging without it';

describe('anchored cursors', () => {
  it.each<[string, Anchor]>([
    ['a UUID id and a platform timestamp', { id: UUID, keys: ['2026-08-23T23:52:26.888+0000', UUID] }],
    ['a text id', { id: 'batch/42', keys: ['2026-08-23T23:52:26.888+0000', 'batch/42'] }],
    ['an upper-case UUID, kept as written', { id: UUID.toUpperCase(), keys: [UUID.toUpperCase()] }],
    ['numbers, booleans and nulls', { id: UUID, keys: [3, -0.5, true, false, null, UUID] }],
    ['timestamps in other forms, kept as text', { id: UUID, keys: ['2026-08-23T23:52:26.888Z', '2026-08-23T23:52:26+02:00', UUID] }],
    ['text with any characters', { id: UUID, keys: ['Müller, Zoë 🚀', '', UUID] }],
    ['no keys carried', { id: UUID, keys: null }],
  ])('round-trips %s', (_, anchor) => {
    for (const position of [0, 1, 127, 128, 300, 2 ** 30]) {
      const cursor = encodeAnchoredCursor(position, anchor, BINDING);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(readCursor(cursor, BINDING, 'after')).toEqual({ position, anchor });
      expect(decodeCursor(cursor, BINDING)).toBe(position);
    }
  });

  it('takes 78 characters for the default order, a position cursor 44', () => {
    const cursor = encodeAnchoredCursor(123, { id: UUID, keys: ['2026-08-23T23:52:26.888+0000', UUID] }, BINDING);
    expect(cursor).toHaveLength(78);
    expect(encodeCursor(123, BINDING)).toHaveLength(44);
  });

  it('falls back to a position cursor for an id too long to carry, and drops keys too long to carry', () => {
    const longId = 'x'.repeat(129);
    expect(readCursor(encodeAnchoredCursor(5, { id: longId, keys: [longId] }, BINDING), BINDING)).toEqual({ position: 5, anchor: null });
    const longKey = 'y'.repeat(401);
    expect(readCursor(encodeAnchoredCursor(5, { id: UUID, keys: [longKey, UUID] }, BINDING), BINDING)).toEqual({ position: 5, anchor: { id: UUID, keys: null } });
  });

  it('reads position cursors of earlier gateways as plain offsets', () => {
    expect(readCursor(encodeCursor(9, BINDING), BINDING)).toEqual({ position: 9, anchor: null });
  });

  it('refuses an anchored cursor of another filter or order', () => {
    const cursor = encodeAnchoredCursor(3, { id: UUID, keys: [UUID] }, 'exceptions?sort=status%2CASC');
    expect(rejection(() => readCursor(cursor, BINDING, 'before')).message).toBe('before cursor does not belong to this filter/order; restart paging without it');
  });

  it('refuses forged and damaged anchored cursors as BAD_USER_INPUT', () => {
    const real = Buffer.from(encodeAnchoredCursor(3, { id: UUID, keys: ['2026-08-23T23:52:26.888+0000', UUID] }, BINDING), 'base64url');
    const variants: Buffer[] = [
      real.subarray(0, real.length - 1),
      Buffer.concat([real, Buffer.from([0])]),
      Buffer.from([...real.subarray(0, 10), 9, ...real.subarray(11)]),
      Buffer.from([2, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
      Buffer.from([2]),
    ];
    // A value written as text that the gateway would have packed is not its spelling either.
    const asText = Buffer.from(encodeAnchoredCursor(3, { id: 'a', keys: ['b'] }, BINDING), 'base64url');
    variants.push(Buffer.from([...asText.subarray(0, asText.length - 3), 4, 1, 'a'.charCodeAt(0)]));
    for (const bytes of variants) {
      const error = rejection(() => readCursor(bytes.toString('base64url'), BINDING, 'after'));
      expect([error.message, error.extensions]).toEqual([MALFORMED, { code: 'BAD_USER_INPUT', argumentName: 'after' }]);
    }
  });
});

describe('what an anchored cursor packs', () => {
  /** The cursor's length for these key values of a UUID record: what tells a packed value from one carried as text. */
  const lengthOf = (keys: Anchor['keys']) => encodeAnchoredCursor(7, { id: UUID, keys }, BINDING).length;
  const packed = lengthOf(['2026-08-23T23:52:26.888+0000', UUID]);

  it.each([
    '2026-12-31T23:59:59.999+0000',
    '2026-01-01T00:00:00.000+0000',
    '2024-02-29T12:00:00.000+0000',
    '2000-02-29T12:00:00.000+0000',
    '1000-01-01T00:00:00.000+0000',
    '2026-04-30T10:00:00.000+0000',
  ])('packs the platform timestamp %s as its instant', (time) => {
    expect(lengthOf([time, UUID])).toBe(packed);
    expect(readCursor(encodeAnchoredCursor(7, { id: UUID, keys: [time, UUID] }, BINDING), BINDING)).toEqual({ position: 7, anchor: { id: UUID, keys: [time, UUID] } });
  });

  it.each([
    ['a day February has not', '2100-02-29T12:00:00.000+0000'],
    ['the 31st of a 30-day month', '2026-04-31T10:00:00.000+0000'],
    ['day 32', '2026-01-32T10:00:00.000+0000'],
    ['day 0', '2026-01-00T10:00:00.000+0000'],
    ['month 13', '2026-13-01T10:00:00.000+0000'],
    ['month 0', '2026-00-10T10:00:00.000+0000'],
    ['hour 24', '2026-01-10T24:00:00.000+0000'],
    ['minute 60', '2026-01-10T10:60:00.000+0000'],
    ['second 60', '2026-01-10T10:00:60.000+0000'],
    ['a year before 1000', '0999-01-10T10:00:00.000+0000'],
    ['a letter among the digits', '2026-01-1xT10:00:00.000+0000'],
    ['an offset other than +0000', '2026-01-10T10:00:00.000+0100'],
    ['a Z offset', '2026-01-10T10:00:00.000Z'],
    ['no milliseconds', '2026-01-10T10:00:00+0000'],
    ['a space for the T', '2026-01-10 10:00:00.000+0000'],
    ['a slash for a dash', '2026/01-10T10:00:00.000+0000'],
    ['a slash for the second dash', '2026-01/10T10:00:00.000+0000'],
    ['a dot for a colon', '2026-01-10T10.00:00.000+0000'],
    ['a dot for the second colon', '2026-01-10T10:00.00.000+0000'],
    ['a colon for the dot', '2026-01-10T10:00:00:000+0000'],
    ['a letter in the milliseconds', '2026-01-10T10:00:00.00x+0000'],
  ])('carries %s as text, and reads it back as written', (_, text) => {
    expect(lengthOf([text, UUID])).toBeGreaterThan(packed);
    expect(readCursor(encodeAnchoredCursor(7, { id: UUID, keys: [text, UUID] }, BINDING), BINDING)).toEqual({ position: 7, anchor: { id: UUID, keys: [text, UUID] } });
  });

  it.each([
    ['a UUID with a letter past f', '144dd391-6a98-4e9f-906f-34d220a04a6g'],
    ['a UUID with a dash moved', '144dd3916-a98-4e9f-906f-34d220a04a6b'],
    ['a UUID without its last dash', '144dd391-6a98-4e9f-906f034d220a04a6b'],
    ['36 characters of text', 'x'.repeat(36)],
    ['a UUID with a character after it', `${UUID}0`],
  ])('carries %s as text', (_, id) => {
    const cursor = encodeAnchoredCursor(7, { id, keys: [id] }, BINDING);
    expect(cursor.length).toBeGreaterThan(encodeAnchoredCursor(7, { id: UUID, keys: [UUID] }, BINDING).length);
    expect(readCursor(cursor, BINDING)).toEqual({ position: 7, anchor: { id, keys: [id] } });
  });

  it('carries ids of up to 128 bytes, counted in UTF-8, and no empty id', () => {
    for (const id of ['i'.repeat(128), 'é'.repeat(64)]) {
      expect(readCursor(encodeAnchoredCursor(1, { id, keys: [id] }, BINDING), BINDING)).toEqual({ position: 1, anchor: { id, keys: [id] } });
    }
    for (const id of ['é'.repeat(65), '']) {
      expect(readCursor(encodeAnchoredCursor(1, { id, keys: [id] }, BINDING), BINDING)).toEqual({ position: 1, anchor: null });
    }
  });

  it('carries sort values of up to 400 bytes and up to 16 keys', () => {
    // A text value of n bytes takes n + 3 bytes (tag, two length bytes), the id key one more.
    const fits = 'y'.repeat(396);
    expect(readCursor(encodeAnchoredCursor(1, { id: UUID, keys: [fits, UUID] }, BINDING), BINDING).anchor).toEqual({ id: UUID, keys: [fits, UUID] });
    expect(readCursor(encodeAnchoredCursor(1, { id: UUID, keys: [`${fits}y`, UUID] }, BINDING), BINDING).anchor).toEqual({ id: UUID, keys: null });
    const sixteen = Array.from({ length: 16 }, (_, index) => index);
    expect(readCursor(encodeAnchoredCursor(1, { id: UUID, keys: sixteen }, BINDING), BINDING).anchor).toEqual({ id: UUID, keys: sixteen });
    expect(readCursor(encodeAnchoredCursor(1, { id: UUID, keys: [...sixteen, 16] }, BINDING), BINDING).anchor).toEqual({ id: UUID, keys: null });
  });

  it('leaves out values that are not JSON scalars', () => {
    for (const value of [Number.NaN, Infinity, {} as never, undefined as never]) {
      expect(readCursor(encodeAnchoredCursor(1, { id: UUID, keys: [value, UUID] }, BINDING), BINDING).anchor).toEqual({ id: UUID, keys: null });
    }
  });

  it('refuses an unknown value tag and a key count past 16', () => {
    const real = Buffer.from(encodeAnchoredCursor(3, { id: UUID, keys: [true] }, BINDING), 'base64url');
    // ... kind byte, 16 id bytes, count 1, tag 1 (true): the tag is the last byte, the count the one before.
    for (const bytes of [Buffer.from([...real.subarray(0, -1), 7]), Buffer.from([...real.subarray(0, -2), 17, 1])]) {
      expect(rejection(() => readCursor(bytes.toString('base64url'), BINDING, 'after')).message).toBe(MALFORMED);
    }
  });

  it('reads each value tag back', () => {
    const keys = [null, true, false, 0, 2 ** 40 + 0.5, -1e-9, 'text', '2026-08-23T23:52:26.888+0000', UUID];
    for (const position of [0, 2 ** 7 - 1, 2 ** 14, 2 ** 21 - 1, 2 ** 28]) {
      expect(readCursor(encodeAnchoredCursor(position, { id: UUID, keys }, BINDING), BINDING)).toEqual({ position, anchor: { id: UUID, keys } });
    }
  });
});

describe('sealed anchored cursors', () => {
  const DESCRIPTION = 'Wire transfer to Müller GmbH held for review';
  const CREATED = '2026-08-23T23:52:26.888+0000';
  const ANCHOR: Anchor = { id: UUID, keys: [DESCRIPTION, CREATED, UUID] };
  const FOREIGN = 'after cursor does not belong to this filter/order; restart paging without it';
  /** Version, position 42 (one byte), 8 bytes of the binding's hash: the clear part. */
  const SEAL_AT = 10;
  /** After the 16-byte tag: the key id. */
  const KEY_ID_AT = SEAL_AT + 16;
  const RECORD_AT = KEY_ID_AT + 4;

  afterEach(() => useCursorSecret(undefined));

  /** The record's bytes as a clear cursor packs them: the text, the UUID's 16 bytes, the instant's 8. */
  function packedRecord(): Buffer[] {
    const instant = Buffer.alloc(8);
    instant.writeDoubleBE(Date.parse('2026-08-23T23:52:26.888Z'));
    const uuid = Buffer.from(UUID.replaceAll('-', ''), 'hex');
    return [...[DESCRIPTION, 'Müller', 'review'].map((text) => Buffer.from(text, 'utf8')), uuid, uuid.subarray(0, 8), uuid.subarray(8), instant];
  }

  it('carry neither the sort values nor the id of their record, as text or packed', () => {
    const bytes = Buffer.from(encodeAnchoredCursor(42, ANCHOR, BINDING), 'base64url');
    const clear = Buffer.from(packAnchored(42, hashesOf(BINDING).digest, ANCHOR, true), 'base64url');
    for (const needle of packedRecord()) {
      // The clear spelling of earlier gateways held each of them.
      expect([needle.toString('hex'), clear.includes(needle)]).toEqual([needle.toString('hex'), true]);
      expect([needle.toString('hex'), bytes.includes(needle)]).toEqual([needle.toString('hex'), false]);
    }
    for (const text of [UUID, CREATED, '2026-08-23']) expect([text, bytes.includes(Buffer.from(text, 'utf8'))]).toEqual([text, false]);
    expect(readCursor(encodeAnchoredCursor(42, ANCHOR, BINDING), BINDING)).toEqual({ position: 42, anchor: ANCHOR });
  });

  it('are the same text for the same record at the same place of the same list', () => {
    const cursor = encodeAnchoredCursor(42, ANCHOR, BINDING);
    expect(encodeAnchoredCursor(42, ANCHOR, BINDING)).toBe(cursor);
    expect(encodeAnchoredCursor(43, ANCHOR, BINDING)).not.toBe(cursor);
    expect(encodeAnchoredCursor(42, { id: UUID, keys: [`${DESCRIPTION}.`, CREATED, UUID] }, BINDING)).not.toBe(cursor);
  });

  it('refuse any changed byte of the position, the seal or the record like a forged cursor', () => {
    const real = Buffer.from(encodeAnchoredCursor(42, ANCHOR, BINDING), 'base64url');
    const changed = [1, ...Array.from({ length: real.length - SEAL_AT }, (_, index) => SEAL_AT + index)].filter((index) => index < KEY_ID_AT || index >= RECORD_AT);
    for (const index of changed) {
      const bytes = Buffer.from(real);
      bytes[index] = (bytes[index] as number) ^ 0x01;
      const error = rejection(() => readCursor(bytes.toString('base64url'), BINDING, 'after'));
      expect([index, error.message, error.extensions]).toEqual([index, MALFORMED, { code: 'BAD_USER_INPUT', argumentName: 'after' }]);
    }
    // Sealed bytes spelled as a clear cursor of earlier gateways are no cursor either.
    const asClear = Buffer.from([2, ...real.subarray(1)]);
    expect(rejection(() => readCursor(asClear.toString('base64url'), BINDING, 'after')).message).toBe(MALFORMED);
  });

  it('are sealed as docs/security.md says: keys by HKDF-SHA256 of CURSOR_SECRET, an AES-256-CMAC tag, AES-256-CTR under it', () => {
    const secret = 'replicas share this secret, 32+ chars';
    useCursorSecret(secret);
    const bytes = Buffer.from(encodeAnchoredCursor(42, ANCHOR, BINDING), 'base64url');
    const keys = sealKeys(secret);
    expect(bytes[0]).toBe(4);
    const [tag, keyId, sealed] = [bytes.subarray(SEAL_AT, KEY_ID_AT), bytes.subarray(KEY_ID_AT, RECORD_AT), bytes.subarray(RECORD_AT)];
    expect(keyId).toEqual(keys.keyId);
    const record = createDecipheriv('aes-256-ctr', keys.cipher, tag).update(sealed);
    const clear = Buffer.from(packAnchored(42, hashesOf(BINDING).digest, ANCHOR, true), 'base64url');
    expect(record).toEqual(clear.subarray(SEAL_AT));
    expect(tag).toEqual(aesCmac(keys.cmac, Buffer.concat([bytes.subarray(0, SEAL_AT), keyId, record])));
  });

  it('sealed by earlier gateways with an HMAC-SHA256 tag (version 3) are read, and refused when any byte changed', () => {
    const secret = 'replicas share this secret, 32+ chars';
    useCursorSecret(secret);
    const cursor = hmacSealedCursor(secret, packAnchored(42, hashesOf(BINDING).digest, ANCHOR, true), SEAL_AT);
    expect(readCursor(cursor, BINDING, 'after')).toEqual({ position: 42, anchor: ANCHOR });
    const real = Buffer.from(cursor, 'base64url');
    for (let index = 1; index < real.length; index++) {
      if (index >= KEY_ID_AT && index < RECORD_AT) continue;
      const bytes = Buffer.from(real);
      bytes[index] = (bytes[index] as number) ^ 0x01;
      expect([index, rejection(() => readCursor(bytes.toString('base64url'), BINDING, 'after')).message]).toEqual([index, MALFORMED]);
    }
  });

  it('read back under the same CURSOR_SECRET in another process (a restart, another replica)', () => {
    useCursorSecret('replicas share this secret, 32+ chars');
    const cursor = encodeAnchoredCursor(42, ANCHOR, BINDING);
    useCursorSecret(undefined);
    useCursorSecret('replicas share this secret, 32+ chars');
    expect(readCursor(cursor, BINDING, 'after')).toEqual({ position: 42, anchor: ANCHOR });
    expect(encodeAnchoredCursor(42, ANCHOR, BINDING)).toBe(cursor);
  });

  it('read as their position alone without CURSOR_SECRET when another key sealed them, still bound to their list', () => {
    // Keys drawn at start-up, as without CURSOR_SECRET.
    useCursorSecret(undefined);
    const cursor = encodeAnchoredCursor(42, ANCHOR, BINDING);
    const other = encodeAnchoredCursor(42, ANCHOR, 'exceptions?sort=description');
    useCursorSecret(undefined);
    expect(readCursor(cursor, BINDING, 'after')).toEqual({ position: 42, anchor: null });
    expect(rejection(() => readCursor(other, BINDING, 'after')).message).toBe(FOREIGN);
    expect(readCursor(cursor, BINDING, 'after')).toEqual({ position: 42, anchor: null });
    const bytes = Buffer.from(cursor, 'base64url');
    const damaged = [
      // The seal without a record part.
      bytes.subarray(0, RECORD_AT),
      // Position 42 spelled in two bytes.
      Buffer.from([3, 42 | 0x80, 0, ...bytes.subarray(2)]),
    ];
    for (const variant of damaged) expect(rejection(() => readCursor(variant.toString('base64url'), BINDING, 'after')).message).toBe(MALFORMED);
  });

  it('leave clear anchored cursors of earlier gateways readable, in their exact bytes only', () => {
    const clear = packAnchored(42, hashesOf(BINDING).digest, ANCHOR, true);
    expect(readCursor(clear, BINDING, 'after')).toEqual({ position: 42, anchor: ANCHOR });
    const bytes = Buffer.from(clear, 'base64url');
    for (const variant of [bytes.subarray(0, -1), Buffer.concat([bytes, Buffer.from([0])])]) {
      expect(rejection(() => readCursor(variant.toString('base64url'), BINDING, 'after')).message).toBe(MALFORMED);
    }
  });
});

describe('anchored cursors at the edges of their format', () => {
  const ANCHOR: Anchor = { id: UUID, keys: ['2026-08-23T23:52:26.888+0000', UUID] };
  const digest = () => hashesOf(BINDING).digest;
  /** Version, position 42 (one byte), 8 bytes of the binding's hash, 16 of the tag, 4 of the key id. */
  const RECORD_AT = 30;
  const KEY_ID_AT = 26;
  const malformed = (bytes: Buffer | string) => rejection(() => readCursor(typeof bytes === 'string' ? bytes : bytes.toString('base64url'), BINDING, 'after')).message;

  it('refuses to encode a position no list can have', () => {
    for (const position of [-1, 1.5, 2 ** 30 + 1]) {
      expect(() => encodeAnchoredCursor(position, ANCHOR, BINDING)).toThrow(new RangeError(`cursor position must be an integer between 0 and 1073741824, got ${position}`));
    }
  });

  it('refuses a cursor spelled with the base64 characters + and / or with a character base64 skips', () => {
    const cursor = Array.from({ length: 64 }, (_, position) => encodeAnchoredCursor(position, ANCHOR, BINDING)).find((text) => /[-_]/.test(text)) as string;
    expect(readCursor(cursor, BINDING)).toEqual({ position: expect.any(Number), anchor: ANCHOR });
    expect(malformed(cursor.replaceAll('-', '+').replaceAll('_', '/'))).toBe(MALFORMED);
    expect(malformed(`${cursor.slice(0, 20)}.${cursor.slice(20)}`)).toBe(MALFORMED);
  });

  it('reads a cursor of another key up to 1024 characters as its position, and refuses a longer one', () => {
    const bytes = Buffer.from(encodeAnchoredCursor(42, ANCHOR, BINDING), 'base64url');
    bytes[KEY_ID_AT] = (bytes[KEY_ID_AT] as number) ^ 0x01;
    const longest = Buffer.concat([bytes, Buffer.alloc(768 - bytes.length, 7)]).toString('base64url');
    expect(longest).toHaveLength(1024);
    expect(readCursor(longest, BINDING, 'after')).toEqual({ position: 42, anchor: null });
    expect(malformed(`${longest}A`)).toBe(MALFORMED);
    // The shortest record part: a kind byte, an id byte, a count byte.
    expect(readCursor(bytes.subarray(0, RECORD_AT + 3).toString('base64url'), BINDING, 'after')).toEqual({ position: 42, anchor: null });
    expect(malformed(bytes.subarray(0, RECORD_AT + 2))).toBe(MALFORMED);
  });

  it('refuses a position past 2^30 in a sealed or a clear cursor', () => {
    for (const clear of [false, true]) {
      expect(readCursor(packAnchored(2 ** 30, digest(), ANCHOR, clear), BINDING)).toEqual({ position: 2 ** 30, anchor: ANCHOR });
      expect(malformed(packAnchored(2 ** 30 + 1, digest(), ANCHOR, clear))).toBe(MALFORMED);
    }
  });

  it('refuses a clear cursor in any spelling but the one a gateway made, and with an id a gateway would not carry', () => {
    const bytes = Buffer.from(packAnchored(42, digest(), ANCHOR, true), 'base64url');
    // Position 42 in two bytes.
    expect(unpackAnchored(Buffer.from([2, 42 | 0x80, 0, ...bytes.subarray(2)]))).toEqual({ version: 2, position: 42, digest: bytes.subarray(2, 10), anchor: ANCHOR });
    expect(malformed(Buffer.from([2, 42 | 0x80, 0, ...bytes.subarray(2)]))).toBe(MALFORMED);
    for (const id of ['', 'i'.repeat(129)]) expect(malformed(packAnchored(42, digest(), { id, keys: null }, true))).toBe(MALFORMED);
  });

  describe('unpacking', () => {
    /** A clear cursor's bytes: version 2, position 42, the binding's hash, then `record`. */
    const clear = (...record: number[]) => Buffer.from([2, 42, ...digest().subarray(0, 8), ...record]);

    it('reads the record part of a clear cursor', () => {
      expect(unpackAnchored(clear(1, 1, 97, 2, 0, 6))).toEqual({ version: 2, position: 42, digest: digest().subarray(0, 8), anchor: { id: 'a', keys: [null, 'a'] } });
    });

    it.each<[string, Buffer, string]>([
      ['another version', Buffer.from([1, 42, ...digest().subarray(0, 8), 1, 1, 97, 255]), 'not an anchored cursor'],
      ['an unknown id kind', clear(2, 1, 97, 255), 'unknown id kind 2'],
      ['an unknown value tag', clear(1, 1, 97, 1, 7), 'unknown value tag 7'],
      ['more than 16 keys', clear(1, 1, 97, 17, ...Array.from({ length: 17 }, () => 0)), 'too many keys'],
      ['a byte after the record', clear(1, 1, 97, 255, 0), 'trailing bytes'],
    ])('refuses %s', (_, bytes, message) => {
      expect(() => unpackAnchored(bytes)).toThrow(new RangeError(message));
    });

    it('refuses a sealed cursor with a long position, a short record or a changed byte', () => {
      const bytes = Buffer.from(encodeAnchoredCursor(42, ANCHOR, BINDING), 'base64url');
      expect(() => unpackAnchored(Buffer.from([3, 42 | 0x80, 0, ...bytes.subarray(2)]))).toThrow(new RangeError('position not in its shortest form'));
      expect(() => unpackAnchored(bytes.subarray(0, RECORD_AT + 2))).toThrow(new RangeError('cursor ends early'));
      const changed = Buffer.from(bytes);
      changed[RECORD_AT] = (changed[RECORD_AT] as number) ^ 0x01;
      expect(() => unpackAnchored(changed)).toThrow(new RangeError('cursor seal does not verify'));
    });
  });
});
