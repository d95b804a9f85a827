import { describe, expect, it } from '@jest/globals';
import { decodeCursor, encodeAnchoredCursor, encodeCursor, readCursor } from '../../src/connections/index.ts';
import type { Anchor } from '../../src/connections/index.ts';
import { rejection } from '../support/rejection.ts';

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

  it('stays about as short as a position cursor for the default order', () => {
    const cursor = encodeAnchoredCursor(123, { id: UUID, keys: ['2026-08-23T23:52:26.888+0000', UUID] }, BINDING);
    expect(cursor).toHaveLength(51);
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
