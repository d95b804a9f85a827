import { describe, expect, it } from '@jest/globals';
import { MAX_CURSOR_POSITION, decodeCursor, encodeCursor, readCursor } from '../../src/connections/index.ts';
import { hashesOf } from '../../src/connections/binding-hash.ts';
import { unpackPosition } from '../../src/connections/position-cursor.ts';
import { rejection } from '../support/rejection.ts';

const BINDING = 'exceptions?status=NEW&sort=createdAt,DESC';

function encodeRaw(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** The payload of a real cursor, to forge variants of it. */
function payloadOf(cursor: string): { v: number; p: number; b: string } {
  return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
}

describe('cursors', () => {
  it('round-trips positions as opaque base64url text', () => {
    for (const position of [0, 1, 19, 250, 123_456, MAX_CURSOR_POSITION]) {
      const cursor = encodeCursor(position, BINDING);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeCursor(cursor, BINDING)).toBe(position);
    }
    expect(encodeCursor(7, BINDING)).toBe(encodeCursor(7, BINDING));
    expect(encodeCursor(7, BINDING)).not.toBe(encodeCursor(8, BINDING));
  });

  it('carries a format version and a short hash of the binding, never the binding itself', () => {
    const payload = payloadOf(encodeCursor(3, BINDING));
    expect(payload).toEqual({ v: 1, p: 3, b: expect.stringMatching(/^[A-Za-z0-9_-]{11}$/) });
    expect(payloadOf(encodeCursor(3, 'exceptions?status=RESOLVED&sort=createdAt,DESC')).b).not.toBe(payload.b);
  });

  it('rejects a cursor made for another filter or order, telling the client to restart', () => {
    const cursor = encodeCursor(3, 'exceptions?status=RESOLVED&sort=createdAt,DESC');
    const error = rejection(() => decodeCursor(cursor, BINDING, 'after'));
    expect(error.message).toBe('after cursor does not belong to this filter/order; restart paging without it');
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', argumentName: 'after', reason: 'CURSOR_OTHER_CONNECTION' });
  });

  it('rejects a position cursor of a format version no gateway made as malformed', () => {
    const forged = encodeRaw(JSON.stringify({ ...payloadOf(encodeCursor(3, BINDING)), v: 2 }));
    const error = rejection(() => decodeCursor(forged, BINDING, 'before'));
    expect(error.message).toBe('before is not a cursor of this connection; pass a startCursor, endCursor or edge cursor from a previous page, or restart paging without it');
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', argumentName: 'before', reason: 'CURSOR_MALFORMED' });
  });

  const real = payloadOf(encodeCursor(3, BINDING));
  const garbage: Array<[string, string]> = [
    ['empty text', ''],
    ['characters outside base64url', 'abc+/def'],
    ['padding', `${encodeCursor(3, BINDING)}=`],
    ['text that is not JSON', encodeRaw('position 3')],
    ['truncated JSON', encodeCursor(3, BINDING).slice(0, -4)],
    ['JSON null', encodeRaw('null')],
    ['a JSON array', encodeRaw('[1,3,"x"]')],
    ['a JSON number', encodeRaw('3')],
    ['no version', encodeRaw(JSON.stringify({ p: 3, b: real.b }))],
    ['a textual version', encodeRaw(JSON.stringify({ ...real, v: '1' }))],
    ['a negative position', encodeRaw(JSON.stringify({ ...real, p: -1 }))],
    ['a fractional position', encodeRaw(JSON.stringify({ ...real, p: 2.5 }))],
    ['a textual position', encodeRaw(JSON.stringify({ ...real, p: '3' }))],
    ['a position past the int32 page range', encodeRaw(JSON.stringify({ ...real, p: MAX_CURSOR_POSITION + 1 }))],
    ['no binding hash', encodeRaw(JSON.stringify({ v: 1, p: 3 }))],
    ['extra fields', encodeRaw(JSON.stringify({ ...real, admin: true }))],
    ['reordered fields', encodeRaw(JSON.stringify({ p: 3, v: 1, b: real.b }))],
    ['an oversized payload', encodeRaw(JSON.stringify({ ...real, pad: 'x'.repeat(500) }))],
  ];

  it.each(garbage)('rejects %s as BAD_USER_INPUT without crashing', (_, cursor) => {
    const error = rejection(() => decodeCursor(cursor, BINDING, 'after'));
    expect(error.message).toBe(
      'after is not a cursor of this connection; pass a startCursor, endCursor or edge cursor from a previous page, or restart paging without it',
    );
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', argumentName: 'after', reason: 'CURSOR_MALFORMED' });
  });

  it('refuses to encode positions no list can have', () => {
    expect(() => encodeCursor(-1, BINDING)).toThrow(RangeError);
    expect(() => encodeCursor(1.5, BINDING)).toThrow(RangeError);
    expect(() => encodeCursor(MAX_CURSOR_POSITION + 1, BINDING)).toThrow(RangeError);
    expect(() => encodeCursor(-1, BINDING)).toThrow(new RangeError('cursor position must be an integer between 0 and 1073741824, got -1'));
  });

  it('names the argument "cursor" when the caller names none', () => {
    for (const read of [() => readCursor('', BINDING), () => decodeCursor('', BINDING)]) {
      const error = rejection(read);
      expect([error.message, error.extensions]).toEqual([
        'cursor is not a cursor of this connection; pass a startCursor, endCursor or edge cursor from a previous page, or restart paging without it',
        { code: 'BAD_USER_INPUT', argumentName: 'cursor', reason: 'CURSOR_MALFORMED' },
      ]);
    }
  });

  it('rejects a value that is not text as BAD_USER_INPUT', () => {
    expect(rejection(() => decodeCursor(12345 as never, BINDING, 'after')).extensions).toEqual({ code: 'BAD_USER_INPUT', argumentName: 'after', reason: 'CURSOR_MALFORMED' });
  });

  it('reads the payload of a position cursor only from JSON of an object', () => {
    for (const text of ['3', '"x"', 'true', 'null', '[1,3]', '{"v"', '']) {
      expect([text, unpackPosition(Buffer.from(text, 'utf8'))]).toEqual([text, null]);
    }
    expect(unpackPosition(Buffer.from('{"v":1,"p":3}', 'utf8'))).toEqual({ v: 1, p: 3 });
  });
});

describe('binding hashes', () => {
  it('are kept for at most 256 bindings of up to 512 characters, and cursors stay the same either way', async () => {
    const { cachedBindings } = await import('../../src/connections/binding-hash.ts');
    const long = `exceptions?filter=${'x'.repeat(600)}`;
    const before = cachedBindings();
    const first = encodeCursor(3, long);
    expect(cachedBindings()).toBe(before);
    expect(encodeCursor(3, long)).toBe(first);
    expect(decodeCursor(first, long)).toBe(3);

    const cursors = Array.from({ length: 300 }, (_, index) => encodeCursor(index, `exceptions?status=S${index}`));
    expect(cachedBindings()).toBe(256);
    // Evicted or held, a binding hashes the same: every cursor still reads back under its own binding only.
    cursors.forEach((cursor, index) => expect(decodeCursor(cursor, `exceptions?status=S${index}`)).toBe(index));
    expect(cursors.map((_, index) => encodeCursor(index, `exceptions?status=S${index}`))).toEqual(cursors);
    expect(cachedBindings()).toBe(256);
  });

  it('hand out the held hashes of a binding hashed again, keeping the other held bindings', async () => {
    const { cachedBindings } = await import('../../src/connections/binding-hash.ts');
    const bindings = Array.from({ length: 256 }, (_, index) => `payments?status=P${index}`);
    const first = bindings.map((binding) => hashesOf(binding));
    expect(cachedBindings()).toBe(256);
    for (const [index, binding] of bindings.entries()) expect(hashesOf(binding)).toBe(first[index]);
    expect(cachedBindings()).toBe(256);
  });
});
