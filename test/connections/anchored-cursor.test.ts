import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { hashesOf } from '../../src/connections/binding-hash.ts';
import { useCursorSecret } from '../../src/connections/cursor-seal.ts';
import { CursorOwner } from '../../src/connections/owner-tag.ts';
import { anchoredPageEncoder, anchoredPageSealer, MAX_CURSOR_LENGTH } from '../../src/connections/cursor.ts';
import { decodeCursor, encodeAnchoredCursor, encodeCursor, readCursor } from '../../src/connections/index.ts';
import type { Anchor } from '../../src/connections/index.ts';
import { rejection } from '../support/rejection.ts';

const BINDING = 'exceptions?sort=createdAt%2CDESC';
const UUID = '144dd391-6a98-4e9f-906f-34d220a04a6b';
const ANCHOR: Anchor = { id: UUID, keys: ['2026-08-23T23:52:26.888+0000', UUID] };
const SECRET = 'replicas share this secret, 32+ chars';

/** Position and anchor of a cursor read back (who it belongs to is cursor-owner.test.ts's). */
function read(cursor: string, binding = BINDING, argumentName = 'after'): { position: number; anchor: Anchor | null } {
  const { position, anchor } = readCursor(cursor, binding, argumentName);
  return { position, anchor };
}

/** The refusal of `cursor`: its reason and message. */
function refusal(cursor: string, argumentName = 'after'): [unknown, string] {
  const error = rejection(() => readCursor(cursor, BINDING, argumentName));
  expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', argumentName, reason: error.extensions.reason });
  return [error.extensions.reason, error.message];
}

/** The cursor's bytes with `mask` XOR-ed in at `at`. */
function changed(cursor: string, at: number, mask = 0x01): string {
  const bytes = Buffer.from(cursor, 'base64url');
  bytes[at] = (bytes[at] as number) ^ mask;
  return bytes.toString('base64url');
}

/** Where a version 6 cursor's parts begin: its own bytes (version, index), binding digest, secret id, salt, nonce, sealed page. */
const AT = { index: 1, digest: 3, secretId: 11, salt: 15, nonce: 31, sealed: 43 } as const;

afterEach(() => useCursorSecret(undefined));

describe('anchored cursors', () => {
  it.each<[string, Anchor]>([
    ['a UUID id and a platform timestamp', ANCHOR],
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
      expect(read(cursor)).toEqual({ position, anchor });
      expect(decodeCursor(cursor, BINDING)).toBe(position);
    }
  });

  it('takes 124 characters alone for the default order, a position cursor 44', () => {
    expect(encodeAnchoredCursor(123, ANCHOR, BINDING)).toHaveLength(124);
    expect(encodeCursor(123, BINDING)).toHaveLength(44);
  });

  it('falls back to a position cursor for an id too long to carry, and drops keys too long to carry', () => {
    const longId = 'x'.repeat(129);
    expect(read(encodeAnchoredCursor(5, { id: longId, keys: [longId] }, BINDING))).toEqual({ position: 5, anchor: null });
    const longKey = 'y'.repeat(401);
    expect(read(encodeAnchoredCursor(5, { id: UUID, keys: [longKey, UUID] }, BINDING))).toEqual({ position: 5, anchor: { id: UUID, keys: null } });
  });

  it('reads position cursors as plain offsets', () => {
    expect(readCursor(encodeCursor(9, BINDING), BINDING)).toEqual({ position: 9, anchor: null, owner: null });
  });
});

describe('the cursors of a page', () => {
  const anchorOf = (index: number): Anchor => {
    const id = UUID.replace(/...$/, String(index).padStart(3, '0'));
    return { id, keys: [`2026-08-23T${String(23 - Math.floor(index / 60)).padStart(2, '0')}:52:${String(59 - (index % 60)).padStart(2, '0')}.888+0000`, id] };
  };
  const anchors: Anchor[] = Array.from({ length: 20 }, (_, index) => anchorOf(index));
  const positions = anchors.map((_, index) => 40 + index);

  it('share one seal: each is its own four characters (version, index) before the text of the page', () => {
    const cursors = anchoredPageEncoder(BINDING)(positions, anchors);
    const page = cursors[0]!.slice(4);
    expect(cursors.map((cursor) => cursor.slice(4))).toEqual(Array(20).fill(page));
    expect(cursors.map((cursor) => Buffer.from(cursor, 'base64url').subarray(0, 3))).toEqual(anchors.map((_, index) => Buffer.from([6, 0, index])));
    expect(cursors[0]).toHaveLength(162);
  });

  it("are placed by the page's first and last records, each by the nearer (the first on a tie)", () => {
    const cursors = anchoredPageEncoder(BINDING)(positions, anchors);
    expect(cursors.map((cursor) => readCursor(cursor, BINDING))).toEqual(
      positions.map((position, index) =>
        index === 0 ? { position, anchor: anchors[0], owner: { account: null, sameCaller: true } }
        : index === 19 ? { position, anchor: anchors[19], owner: { account: null, sameCaller: true } }
        : { position, anchor: index <= 9 ? anchors[0] : anchors[19], anchorPosition: index <= 9 ? 40 : 59, owner: { account: null, sameCaller: true } },
      ),
    );
  });

  it('are as long for a page of 100 as for a page of 2, whatever the records between its ends', () => {
    const lengths = [2, 3, 20, 100].map((count) => {
      const page = Array.from({ length: count }, (_, index) => anchorOf(index));
      // The records between the ends: longer ids and keys than the ends' change nothing.
      for (let index = 1; index < count - 1; index++) page[index] = { id: `middle-${'m'.repeat(100)}-${index}`, keys: ['x'.repeat(300), index] };
      const cursors = anchoredPageEncoder(BINDING)(page.map((_, index) => 7_000 + index), page);
      expect(new Set(cursors.map((cursor) => cursor.length)).size).toBe(1);
      return cursors[0]!.length;
    });
    expect(lengths).toEqual([163, 163, 163, 163]);
    // A page of one carries one record.
    expect(anchoredPageEncoder(BINDING)([7_000], [anchorOf(0)])[0]).toHaveLength(126);
  });

  it('take at most 200 characters for the default order with the account and caller of a request', () => {
    const issue = { caller: new CursorOwner('Bearer demo-token-acme'), account: '3f6c1e2a-8b4d-4c7e-9f10-2a5b6c7d8e01' };
    const page = Array.from({ length: 100 }, (_, index) => anchorOf(index));
    const cursors = anchoredPageEncoder(BINDING, issue)(page.map((_, index) => 1_000_000 + index), page);
    expect(Math.max(...cursors.map((cursor) => cursor.length))).toBe(196);
    expect(readCursor(cursors[60]!, BINDING, 'after', issue.caller)).toEqual({ position: 1_000_060, anchor: page[99], anchorPosition: 1_000_099, owner: { account: issue.account, sameCaller: true } });
  });

  it('read only the anchors of the ends', () => {
    const read: number[] = [];
    const cursors = anchoredPageEncoder(BINDING)(positions, (index) => {
      read.push(index);
      return anchors[index]!;
    });
    expect(read).toEqual([0, 19]);
    expect(cursors).toHaveLength(20);
  });

  it('are placed by the ends that can be anchored, a record whose id is too long to carry placed by them', () => {
    const long = { id: 'i'.repeat(129), keys: null };
    const mixed = [anchors[0]!, long, anchors[2]!];
    const cursors = anchoredPageEncoder(BINDING)([7, 8, 9], mixed);
    expect(new Set(cursors.map((cursor) => cursor.slice(4))).size).toBe(1);
    expect(cursors.map((cursor) => read(cursor))).toEqual([{ position: 7, anchor: mixed[0] }, { position: 8, anchor: mixed[0] }, { position: 9, anchor: mixed[2] }]);
    const ends = [long, anchors[1]!, long];
    const around = anchoredPageEncoder(BINDING)([7, 8, 9], ends);
    expect(around.map((cursor) => readCursor(cursor, BINDING))).toEqual([
      { position: 7, anchor: anchors[1], anchorPosition: 8, owner: { account: null, sameCaller: true } },
      { position: 8, anchor: anchors[1], owner: { account: null, sameCaller: true } },
      { position: 9, anchor: anchors[1], anchorPosition: 8, owner: { account: null, sameCaller: true } },
    ]);
    // The first anchored record past the page's first: distances counted from it.
    const inner = anchoredPageEncoder(BINDING)([7, 8, 9, 10, 11], [long, anchors[1]!, long, long, anchors[4]!]);
    expect(inner.map((cursor) => read(cursor))).toEqual([7, 8, 9, 10, 11].map((position, index) => ({ position, anchor: index <= 2 ? anchors[1] : anchors[4] })));
    // None can be anchored: position cursors.
    expect(anchoredPageEncoder(BINDING)([7, 8], [long, long])).toEqual([encodeCursor(7, BINDING), encodeCursor(8, BINDING)]);
    // An index past the page names no cursor of it.
    expect(refusal(`${Buffer.from([6, 0, 3]).toString('base64url')}${cursors[0]!.slice(4)}`)[0]).toBe('CURSOR_TAMPERED');
  });

  it('refuse positions that are no page', () => {
    expect(() => anchoredPageEncoder(BINDING)([1, 2 ** 30 + 1], anchors.slice(0, 2))).toThrow(new RangeError('cursor position must be an integer between 0 and 1073741824, got 1073741825'));
    expect(() => anchoredPageEncoder(BINDING)([1, 3], anchors.slice(0, 2))).toThrow(new RangeError('the positions of a page follow one another'));
  });

  it('are sealed for a run of positions, bounded by its first and last, none for an empty run', () => {
    const sealPage = anchoredPageSealer(BINDING);
    const anchorAt = (index: number) => anchors[index]!;
    expect(sealPage(2 ** 30 - 1, 2, anchorAt).map((cursor) => read(cursor))).toEqual([{ position: 2 ** 30 - 1, anchor: anchors[0] }, { position: 2 ** 30, anchor: anchors[1] }]);
    expect(() => sealPage(2 ** 30 - 1, 3, anchorAt)).toThrow(new RangeError('cursor position must be an integer between 0 and 1073741824, got 1073741825'));
    expect(() => sealPage(-1, 2, anchorAt)).toThrow(new RangeError('cursor position must be an integer between 0 and 1073741824, got -1'));
    expect(sealPage(5, 0, anchorAt)).toEqual([]);
    expect(anchoredPageEncoder(BINDING)([], [])).toEqual([]);
    // Ids too long to carry at the ends and in the middle: position cursors where no end can place them.
    const long = { id: 'x'.repeat(129), keys: null };
    expect(sealPage(7, 3, (index) => (index === 1 ? anchors[1]! : long)).map((cursor) => read(cursor))).toEqual([7, 8, 9].map((position) => ({ position, anchor: anchors[1] })));
    expect(sealPage(7, 2, () => long)).toEqual([encodeCursor(7, BINDING), encodeCursor(8, BINDING)]);
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
    expect(read(encodeAnchoredCursor(7, { id: UUID, keys: [time, UUID] }, BINDING), BINDING)).toEqual({ position: 7, anchor: { id: UUID, keys: [time, UUID] } });
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
    expect(read(encodeAnchoredCursor(7, { id: UUID, keys: [text, UUID] }, BINDING), BINDING)).toEqual({ position: 7, anchor: { id: UUID, keys: [text, UUID] } });
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
    expect(read(cursor, BINDING)).toEqual({ position: 7, anchor: { id, keys: [id] } });
  });

  it('carries ids of up to 128 bytes, counted in UTF-8, and no empty id', () => {
    for (const id of ['i'.repeat(128), 'é'.repeat(64)]) {
      expect(read(encodeAnchoredCursor(1, { id, keys: [id] }, BINDING), BINDING)).toEqual({ position: 1, anchor: { id, keys: [id] } });
    }
    for (const id of ['é'.repeat(65), '']) {
      expect(read(encodeAnchoredCursor(1, { id, keys: [id] }, BINDING), BINDING)).toEqual({ position: 1, anchor: null });
    }
  });

  it('carries sort values of up to 400 bytes and up to 16 keys', () => {
    // A text value of n bytes takes n + 3 bytes (tag, two length bytes), the id key one more.
    const fits = 'y'.repeat(396);
    expect(read(encodeAnchoredCursor(1, { id: UUID, keys: [fits, UUID] }, BINDING), BINDING).anchor).toEqual({ id: UUID, keys: [fits, UUID] });
    expect(read(encodeAnchoredCursor(1, { id: UUID, keys: [`${fits}y`, UUID] }, BINDING), BINDING).anchor).toEqual({ id: UUID, keys: null });
    const sixteen = Array.from({ length: 16 }, (_, index) => index);
    expect(read(encodeAnchoredCursor(1, { id: UUID, keys: sixteen }, BINDING), BINDING).anchor).toEqual({ id: UUID, keys: sixteen });
    expect(read(encodeAnchoredCursor(1, { id: UUID, keys: [...sixteen, 16] }, BINDING), BINDING).anchor).toEqual({ id: UUID, keys: null });
  });

  it('makes its largest cursors of an account and two ends with ids of 128 bytes and keys of 400, which it reads back', () => {
    const issue = { caller: new CursorOwner('Bearer token'), account: 'a'.repeat(128) };
    const end = (letter: string): Anchor => ({ id: letter.repeat(128), keys: [letter.repeat(397)] });
    const cursors = anchoredPageEncoder(BINDING, issue)([2 ** 30 - 300, 2 ** 30 - 299, 2 ** 30 - 298], [end('f'), end('m'), end('l')]);
    // A page of 65536 records has its count and indexes take two bytes more each.
    expect(cursors.map((cursor) => cursor.length)).toEqual([1695, 1695, 1695]);
    expect(MAX_CURSOR_LENGTH).toBe(Math.ceil(((Buffer.from(cursors[0]!, 'base64url').length + 6) * 4) / 3));
    expect(readCursor(cursors[2]!, BINDING, 'after', issue.caller)).toEqual({ position: 2 ** 30 - 298, anchor: end('l'), owner: { account: issue.account, sameCaller: true } });
  });

  it('leaves out values that are not JSON scalars', () => {
    for (const value of [Number.NaN, Infinity, {} as never, undefined as never]) {
      expect(read(encodeAnchoredCursor(1, { id: UUID, keys: [value, UUID] }, BINDING), BINDING).anchor).toEqual({ id: UUID, keys: null });
    }
  });

  it('reads each value tag back', () => {
    const keys = [null, true, false, 0, 2 ** 40 + 0.5, -1e-9, 'text', '2026-08-23T23:52:26.888+0000', UUID];
    for (const position of [0, 2 ** 7 - 1, 2 ** 14, 2 ** 21 - 1, 2 ** 28]) {
      expect(read(encodeAnchoredCursor(position, { id: UUID, keys }, BINDING), BINDING)).toEqual({ position, anchor: { id: UUID, keys } });
    }
  });
});

describe('the seal of a page, as docs/security.md says', () => {
  it('is AES-256-GCM under HKDF-SHA256 of CURSOR_SECRET and the salt, a counter nonce, the clear bytes authenticated', () => {
    useCursorSecret(SECRET);
    // Two pages (the same page twice is sealed once: see "hands the same page out again").
    const cursors = [encodeAnchoredCursor(42, ANCHOR, BINDING), encodeAnchoredCursor(43, ANCHOR, BINDING)];
    const [first, second] = cursors.map((cursor) => Buffer.from(cursor, 'base64url')) as [Buffer, Buffer];
    const secretId = Buffer.from(hkdfSync('sha256', SECRET, Buffer.alloc(0), 'gateway cursor secret id', 4));
    expect(first.subarray(AT.secretId, AT.salt)).toEqual(secretId);
    expect(first.subarray(AT.digest, AT.secretId)).toEqual(hashesOf(BINDING).digest.subarray(0, 8));
    // One process, one salt; its seals numbered from 0.
    expect(second.subarray(AT.salt, AT.nonce)).toEqual(first.subarray(AT.salt, AT.nonce));
    expect([first.subarray(AT.nonce, AT.sealed), second.subarray(AT.nonce, AT.sealed)]).toEqual([Buffer.alloc(12), Buffer.from([...Buffer.alloc(11), 1])]);
    const key = Buffer.from(hkdfSync('sha256', SECRET, first.subarray(AT.salt, AT.nonce), 'gateway cursor pages', 32));
    const decipher = createDecipheriv('aes-256-gcm', key, first.subarray(AT.nonce, AT.sealed), { authTagLength: 16 });
    decipher.setAAD(Buffer.concat([first.subarray(0, 1), first.subarray(AT.digest, AT.sealed)]));
    decipher.setAuthTag(first.subarray(first.length - 16));
    const plain = Buffer.concat([decipher.update(first.subarray(AT.sealed, first.length - 16)), decipher.final()]);
    // No account, the empty tag of no caller, position 42, one record, anchored at index 0: the
    // UUID, two keys (an instant, the id); no other anchored record (distance 0).
    expect(plain.subarray(0, 6)).toEqual(Buffer.from([2, 0, 42, 1, 0, 0]));
    expect(plain.subarray(6, 22).toString('hex')).toBe(UUID.replaceAll('-', ''));
    expect(plain.subarray(22)).toEqual(Buffer.from([2, 5, ...plain.subarray(24, 32), 6, 0]));
    // Nothing of the record in clear.
    for (const cursor of [first, Buffer.from(cursors[0]!)]) {
      expect(cursor.includes(Buffer.from(UUID.replaceAll('-', ''), 'hex'))).toBe(false);
      expect(cursor.includes('2026')).toBe(false);
    }
  });

  it('opens under the same CURSOR_SECRET in another process (a restart, another replica): another salt, the same secret', () => {
    useCursorSecret(SECRET);
    const cursor = encodeAnchoredCursor(42, ANCHOR, BINDING);
    useCursorSecret(SECRET);
    expect(encodeAnchoredCursor(42, ANCHOR, BINDING).slice(AT.salt * 4 / 3, AT.salt * 4 / 3 + 20)).not.toBe(cursor.slice(AT.salt * 4 / 3, AT.salt * 4 / 3 + 20));
    expect(read(cursor)).toEqual({ position: 42, anchor: ANCHOR });
  });

  it('hands the same page out again without another seal: the same cursors, the nonce not advanced', () => {
    useCursorSecret(SECRET);
    const caller = new CursorOwner('Bearer renewed-token');
    const seal = anchoredPageSealer(BINDING, { caller, account: UUID });
    const anchors = (index: number): Anchor => ({ id: `${UUID.slice(0, -2)}${String(index).padStart(2, '0')}`, keys: ANCHOR.keys });
    const nonceOf = (cursor: string) => Buffer.from(cursor, 'base64url').subarray(AT.nonce, AT.sealed);
    const first = seal(40, 20, anchors);
    expect(seal(40, 20, anchors)).toEqual(first);
    // The next page sealed takes the next nonce: the page asked again took none.
    expect(nonceOf(seal(60, 20, anchors)[0]!)).toEqual(Buffer.from([...Buffer.alloc(11), 1]));
    // Another caller, account, binding or secret: a seal of its own.
    const others = [
      anchoredPageSealer(BINDING, { caller: new CursorOwner('Bearer another-token'), account: UUID })(40, 20, anchors),
      anchoredPageSealer(BINDING, { caller, account: null })(40, 20, anchors),
      anchoredPageSealer(`${BINDING}&status=NEW`, { caller, account: UUID })(40, 20, anchors),
    ];
    expect(others.map((cursors) => nonceOf(cursors[0]!)[11])).toEqual([2, 3, 4]);
    useCursorSecret(SECRET);
    const resealed = seal(40, 20, anchors);
    expect(nonceOf(resealed[0]!)).toEqual(Buffer.alloc(12));
    expect(resealed[0]!.slice(AT.salt * 4 / 3, AT.nonce * 4 / 3)).not.toBe(first[0]!.slice(AT.salt * 4 / 3, AT.nonce * 4 / 3));
    for (const cursors of [first, resealed]) expect(readCursor(cursors[19]!, BINDING, 'after', caller).position).toBe(59);
  });

  it('seals a page too long to keep every time it is asked', () => {
    useCursorSecret(SECRET);
    // Two ends with ids of 128 bytes: a page of more than 256 plain bytes.
    const long = (index: number): Anchor => ({ id: `${'x'.repeat(125)}${String(index).padStart(3, '0')}`, keys: null });
    const nonces = [0, 1].map(() => Buffer.from(anchoredPageSealer(BINDING)(0, 3, long)[0]!, 'base64url').subarray(AT.nonce, AT.sealed)[11]);
    expect(nonces).toEqual([0, 1]);
  });

  it('opens under the previous secret during a rotation, and seals under the current one', () => {
    useCursorSecret('the secret before the rotation, 32+ chars');
    const before = encodeAnchoredCursor(42, ANCHOR, BINDING);
    useCursorSecret(SECRET, 'the secret before the rotation, 32+ chars');
    expect(read(before)).toEqual({ position: 42, anchor: ANCHOR });
    const after = encodeAnchoredCursor(43, ANCHOR, BINDING);
    useCursorSecret(SECRET);
    expect(read(after)).toEqual({ position: 43, anchor: ANCHOR });
    expect(refusal(before)[0]).toBe('CURSOR_OTHER_KEYS');
  });
});

describe('a refused cursor, by its reason', () => {
  const cursor = () => encodeAnchoredCursor(42, ANCHOR, BINDING);

  it('CURSOR_MALFORMED: not base64url, too long, not a cursor of any format, another spelling of its characters', () => {
    // A cursor asked for again is the same text, so the candidates are cursors of different positions: one of them
    // holds a '-' or '_' to respell (each of ~100 random characters has a 1 in 32 chance).
    const text = Array.from({ length: 64 }, (_, position) => encodeAnchoredCursor(position, ANCHOR, BINDING)).find((candidate) => /[-_]/.test(candidate));
    expect(text).toEqual(expect.any(String));
    if (text === undefined) return;
    const malformed = [
      '', 'not a cursor!', 'A'.repeat(1704), Buffer.from([6]).toString('base64url'), Buffer.from([9, 1, 2, 3]).toString('base64url'),
      Buffer.from('{"v":2,"p":1,"b":"x"}').toString('base64url'), Buffer.from('[1]').toString('base64url'),
      text.replaceAll('-', '+').replaceAll('_', '/'), `${text.slice(0, 20)}.${text.slice(20)}`,
    ];
    for (const value of malformed) {
      expect([value, refusal(value)]).toEqual([value, ['CURSOR_MALFORMED', 'after is not a cursor of this connection; pass a startCursor, endCursor or edge cursor from a previous page, or restart paging without it']]);
    }
  });

  it('CURSOR_TAMPERED: any changed byte of its binding, salt, nonce, sealed records or tag, a cut or an index out of its page', () => {
    const real = cursor();
    const length = Buffer.from(real, 'base64url').length;
    const tampered = [
      ...[AT.digest, AT.digest + 7, AT.salt, AT.nonce + 11, AT.sealed, length - 17, length - 1].map((at) => changed(real, at)),
      Buffer.from(real, 'base64url').subarray(0, length - 1).toString('base64url'),
      Buffer.concat([Buffer.from(real, 'base64url'), Buffer.from([0, 0, 0])]).toString('base64url'),
      changed(real, AT.index + 1),
      Buffer.from(real, 'base64url').subarray(0, AT.sealed + 15).toString('base64url'),
    ];
    for (const value of tampered) {
      expect([value, refusal(value)]).toEqual([value, ['CURSOR_TAMPERED', 'after cursor was changed after the gateway issued it; pass cursors back exactly as received, or restart paging without it']]);
    }
  });

  it('CURSOR_OTHER_KEYS: sealed under another secret (another deployment, an instance without CURSOR_SECRET), its secret id changed, or an earlier format', () => {
    useCursorSecret('another deployment has this secret, 32+ ch');
    const otherSecret = cursor();
    useCursorSecret(undefined);
    const otherInstance = cursor();
    useCursorSecret(SECRET);
    // The earlier formats' first bytes: 2 (anchor in clear), 3 and 4 (sealed one by one), 5 (every record of the page sealed).
    const earlier = [2, 3, 4, 5].map((version) => Buffer.from([version, 42, ...hashesOf(BINDING).digest.subarray(0, 8), ...Buffer.alloc(40, 7)]).toString('base64url'));
    for (const value of [otherSecret, otherInstance, changed(cursor(), AT.secretId), ...earlier]) {
      expect([value, refusal(value, 'before')]).toEqual([
        value,
        ['CURSOR_OTHER_KEYS', 'before cursor was sealed under keys this gateway does not hold (a rotated CURSOR_SECRET, another gateway instance, or an earlier cursor format); restart paging without it'],
      ]);
    }
  });

  it('CURSOR_OTHER_CONNECTION: an anchored or a position cursor of another list, filter or order', () => {
    for (const value of [encodeAnchoredCursor(3, ANCHOR, 'exceptions?sort=status%2CASC'), encodeCursor(3, 'exceptions?status=NEW')]) {
      expect(refusal(value)).toEqual(['CURSOR_OTHER_CONNECTION', 'after cursor does not belong to this filter/order; restart paging without it']);
    }
  });

  it('CURSOR_MALFORMED: a page sealed under the keys yet not of this layout', () => {
    useCursorSecret(SECRET);
    const real = Buffer.from(cursor(), 'base64url');
    /** `plain` sealed as the gateway seals, under the key of the real cursor's salt, with a nonce of its own. */
    const sealedAs = (plain: number[], index = 0) => {
      const key = Buffer.from(hkdfSync('sha256', SECRET, real.subarray(AT.salt, AT.nonce), 'gateway cursor pages', 32));
      const nonce = Buffer.alloc(12, 0xff);
      const head = Buffer.concat([Buffer.from([6, 0, index]), real.subarray(AT.digest, AT.nonce), nonce]);
      const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: 16 });
      cipher.setAAD(Buffer.concat([head.subarray(0, 1), head.subarray(AT.digest)]));
      return Buffer.concat([head, cipher.update(Buffer.from(plain)), cipher.final(), cipher.getAuthTag()]).toString('base64url');
    };
    // No account, no caller tag, start 42, then count, first index, a text id "a" without keys, the distance to the last.
    const page = (count: number, first: number, distance: number, ...rest: number[]) => [2, 0, 42, count, first, 1, 1, 97, 255, distance, ...rest];
    expect(readCursor(sealedAs(page(2, 1, 0)), BINDING)).toEqual({ position: 42, anchor: { id: 'a', keys: null }, anchorPosition: 43, owner: { account: null, sameCaller: true } });
    expect(readCursor(sealedAs(page(3, 0, 2, 1, 1, 98, 255), 2), BINDING)).toEqual({ position: 44, anchor: { id: 'b', keys: null }, owner: { account: null, sameCaller: true } });
    for (const plain of [
      page(2, 1, 0, 0), // a byte past the page
      page(1, 1, 0), // its first anchor past the page
      page(3, 1, 2, 1, 1, 98, 255), // its last anchor past the page
      page(2, 1, 0).slice(0, -1), // cut short
      [2, 0, 42, 1, 0, 7, 97, 255, 0], // an id of no kind
      [2, 0, 42, 1, 0, 1, 1, 97, 17, ...Array(17).fill(0), 0], // 17 keys
    ]) {
      expect([plain, refusal(sealedAs(plain))[0]]).toEqual([plain, 'CURSOR_MALFORMED']);
    }
  });

  it('is sealed with a key an attacker cannot have: a page sealed under a guessed key does not open', () => {
    const real = Buffer.from(cursor(), 'base64url');
    const guessed = createCipheriv('aes-256-gcm', Buffer.alloc(32, 1), real.subarray(AT.nonce, AT.sealed), { authTagLength: 16 });
    guessed.setAAD(Buffer.concat([real.subarray(0, 1), real.subarray(AT.digest, AT.sealed)]));
    const body = Buffer.concat([guessed.update(Buffer.from([2, 0, 0, 1, 1, 1, 97, 255])), guessed.final(), guessed.getAuthTag()]);
    expect(refusal(Buffer.concat([real.subarray(0, AT.sealed), body]).toString('base64url'))[0]).toBe('CURSOR_TAMPERED');
  });
});
