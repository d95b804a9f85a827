import { createDecipheriv, createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { packAnchored } from '../../src/connections/anchored-cursor.ts';
import { hashesOf } from '../../src/connections/binding-hash.ts';
import { NO_CALLER } from '../../src/connections/caller.ts';
import { drawnCursorSecret, useCursorSecret } from '../../src/connections/cursor-seal.ts';
import { CursorCaller, encodeAnchoredCursor, readCursor, type Anchor } from '../../src/connections/index.ts';
import { rejection } from '../support/rejection.ts';
import { aesCmac, callerHashOf, hmacSealedCursor, sealKeys } from './seal-reference.ts';

const BINDING = 'exceptions?sort=createdAt%2CDESC';
const UUID = '144dd391-6a98-4e9f-906f-34d220a04a6b';
const ANCHOR: Anchor = { id: UUID, keys: ['2026-08-23T23:52:26.888+0000', UUID] };
const MALFORMED = 'after is not a cursor of this connection; pass a startCursor, endCursor or edge cursor from a previous page, or restart paging without it';
const SECRET = 'replicas share this secret, 32+ chars';
/** Version, position 42 (one byte), 8 bytes of the binding's hash, 16 of the tag: then the key id, then the record. */
const SEAL_AT = 10;
const KEY_ID_AT = 26;
const RECORD_AT = 30;

const acme = new CursorCaller('Bearer acme-token-0123456789');
const globex = new CursorCaller('Bearer globex-token-0123456789');
const refusal = (cursor: string, caller: CursorCaller) => rejection(() => readCursor(cursor, BINDING, 'after', caller));

afterEach(() => useCursorSecret(undefined));

describe('a caller, named by its token', () => {
  it('is the same for every spelling of the Authorization header: scheme in any case, any whitespace around the token', () => {
    const cursor = encodeAnchoredCursor(42, ANCHOR, BINDING, acme);
    for (const authorization of ['bearer acme-token-0123456789', 'BEARER \t acme-token-0123456789 ', '  Bearer acme-token-0123456789']) {
      expect([authorization, readCursor(cursor, BINDING, 'after', new CursorCaller(authorization))]).toEqual([authorization, { position: 42, anchor: ANCHOR }]);
      expect(encodeAnchoredCursor(42, ANCHOR, BINDING, new CursorCaller(authorization))).toBe(cursor);
    }
  });

  it('differs with any other token, a token in another case included', () => {
    const cursor = encodeAnchoredCursor(42, ANCHOR, BINDING, acme);
    for (const authorization of ['Bearer ACME-TOKEN-0123456789', 'Bearer acme-token-012345678', 'Bearer acme-token-0123456789x', undefined, '']) {
      expect([authorization, refusal(cursor, new CursorCaller(authorization)).message]).toEqual([authorization, MALFORMED]);
    }
  });

  it('keeps its token out of what a log would print of it', () => {
    expect(JSON.stringify({ caller: acme })).toBe('{"caller":{}}');
  });
});

describe('anchored cursors sealed for their caller', () => {
  it("are refused to another caller, and to none, like a forged cursor: another caller's anchor never places a page", () => {
    const cursor = encodeAnchoredCursor(42, ANCHOR, BINDING, acme);
    expect(readCursor(cursor, BINDING, 'after', acme)).toEqual({ position: 42, anchor: ANCHOR });
    for (const caller of [globex, NO_CALLER]) {
      const error = refusal(cursor, caller);
      expect([error.message, error.extensions]).toEqual([MALFORMED, { code: 'BAD_USER_INPUT', argumentName: 'after' }]);
    }
  });

  it('are the same text for the same record, place and caller, and another for another caller', () => {
    const cursor = encodeAnchoredCursor(42, ANCHOR, BINDING, acme);
    expect(encodeAnchoredCursor(42, ANCHOR, BINDING, acme)).toBe(cursor);
    expect(encodeAnchoredCursor(42, ANCHOR, BINDING, globex)).not.toBe(cursor);
    // The same clear part: position and binding.
    expect(Buffer.from(encodeAnchoredCursor(42, ANCHOR, BINDING, globex), 'base64url').subarray(0, SEAL_AT)).toEqual(Buffer.from(cursor, 'base64url').subarray(0, SEAL_AT));
  });

  it('refuse any changed byte to the caller they were issued to', () => {
    const real = Buffer.from(encodeAnchoredCursor(42, ANCHOR, BINDING, acme), 'base64url');
    for (let index = 1; index < real.length; index++) {
      if (index >= KEY_ID_AT && index < RECORD_AT) continue;
      const bytes = Buffer.from(real);
      bytes[index] = (bytes[index] as number) ^ 0x01;
      expect([index, refusal(bytes.toString('base64url'), acme).message]).toEqual([index, MALFORMED]);
    }
  });

  it('are sealed as docs/security.md says: the tag also covers HMAC-SHA256 of the token, under a key derived from CURSOR_SECRET', () => {
    useCursorSecret(SECRET);
    const bytes = Buffer.from(encodeAnchoredCursor(42, ANCHOR, BINDING, acme), 'base64url');
    const keys = sealKeys(SECRET);
    const callerHash = createHmac('sha256', keys.caller).update('acme-token-0123456789').digest();
    const [tag, keyId, sealed] = [bytes.subarray(SEAL_AT, KEY_ID_AT), bytes.subarray(KEY_ID_AT, RECORD_AT), bytes.subarray(RECORD_AT)];
    const record = createDecipheriv('aes-256-ctr', keys.cipher, tag).update(sealed);
    expect(record).toEqual(Buffer.from(packAnchored(42, hashesOf(BINDING).digest, ANCHOR, true), 'base64url').subarray(SEAL_AT));
    expect(tag).toEqual(aesCmac(keys.cmac, Buffer.concat([bytes.subarray(0, SEAL_AT), keyId, record, callerHash])));
  });

  it('name a caller of a token of any length by the HMAC-SHA256 of the token, a token longer than 4 kB included', () => {
    useCursorSecret(SECRET);
    for (const token of ['t', 'acme-token-0123456789', 'ü'.repeat(2_047), 'k'.repeat(4_096), 'k'.repeat(4_097), 'z'.repeat(20_000)]) {
      const bytes = Buffer.from(encodeAnchoredCursor(42, ANCHOR, BINDING, new CursorCaller(`Bearer ${token}`)), 'base64url');
      const keys = sealKeys(SECRET);
      const record = createDecipheriv('aes-256-ctr', keys.cipher, bytes.subarray(SEAL_AT, KEY_ID_AT)).update(bytes.subarray(RECORD_AT));
      const expected = aesCmac(keys.cmac, Buffer.concat([bytes.subarray(0, SEAL_AT), bytes.subarray(KEY_ID_AT, RECORD_AT), record, callerHashOf(SECRET, token)]));
      expect([token.length, bytes.subarray(SEAL_AT, KEY_ID_AT)]).toEqual([token.length, expected]);
    }
    // A long token hashed after a short one, and the short one again: each its own caller.
    const long = new CursorCaller(`Bearer ${'k'.repeat(5_000)}`);
    const cursor = encodeAnchoredCursor(42, ANCHOR, BINDING, acme);
    expect(refusal(encodeAnchoredCursor(42, ANCHOR, BINDING, long), acme).message).toBe(MALFORMED);
    expect(readCursor(cursor, BINDING, 'after', acme)).toEqual({ position: 42, anchor: ANCHOR });
  });

  it('sealed for their caller by earlier gateways with an HMAC-SHA256 tag (version 3) are read by that caller alone', () => {
    useCursorSecret(SECRET);
    const clear = packAnchored(42, hashesOf(BINDING).digest, ANCHOR, true);
    const cursor = hmacSealedCursor(SECRET, clear, SEAL_AT, callerHashOf(SECRET, 'acme-token-0123456789'));
    expect(readCursor(cursor, BINDING, 'after', acme)).toEqual({ position: 42, anchor: ANCHOR });
    expect(refusal(cursor, globex).message).toBe(MALFORMED);
  });

  it('made before cursors had a caller, or in clear by earlier gateways, are read by a caller as their position alone', () => {
    const unbound = encodeAnchoredCursor(42, ANCHOR, BINDING);
    const clear = packAnchored(42, hashesOf(BINDING).digest, ANCHOR, true);
    for (const cursor of [unbound, clear]) {
      expect(readCursor(cursor, BINDING, 'after', acme)).toEqual({ position: 42, anchor: null });
      expect(readCursor(cursor, BINDING, 'after', NO_CALLER)).toEqual({ position: 42, anchor: ANCHOR });
    }
    const changed = Buffer.from(unbound, 'base64url');
    changed[RECORD_AT] = (changed[RECORD_AT] as number) ^ 0x01;
    expect(refusal(changed.toString('base64url'), acme).message).toBe(MALFORMED);
  });
});

describe('anchored cursors of another key', () => {
  it('are refused with CURSOR_SECRET: another secret (rotated) or a changed key id', () => {
    useCursorSecret('the secret of one deployment, 32+ chars');
    const cursor = encodeAnchoredCursor(42, ANCHOR, BINDING, acme);
    useCursorSecret('the secret of another deployment, 32+ ch');
    expect(refusal(cursor, acme).message).toBe(MALFORMED);
    useCursorSecret(SECRET);
    const real = Buffer.from(encodeAnchoredCursor(42, ANCHOR, BINDING, acme), 'base64url');
    for (let index = KEY_ID_AT; index < RECORD_AT; index++) {
      const bytes = Buffer.from(real);
      bytes[index] = (bytes[index] as number) ^ 0x01;
      expect([index, refusal(bytes.toString('base64url'), acme).message]).toEqual([index, MALFORMED]);
      // Its position rewritten too.
      bytes[1] = 0;
      expect([index, refusal(bytes.toString('base64url'), acme).message]).toEqual([index, MALFORMED]);
    }
    // Still told apart from a cursor of another filter or order.
    useCursorSecret('the secret of one deployment, 32+ chars');
    const other = encodeAnchoredCursor(42, ANCHOR, 'exceptions?sort=description', acme);
    useCursorSecret(SECRET);
    expect(refusal(other, acme).message).toBe('after cursor does not belong to this filter/order; restart paging without it');
  });

  it('are read as their position alone under the key an instance draws for its workers without CURSOR_SECRET', () => {
    useCursorSecret(drawnCursorSecret());
    const cursor = encodeAnchoredCursor(42, ANCHOR, BINDING, acme);
    expect(readCursor(cursor, BINDING, 'after', acme)).toEqual({ position: 42, anchor: ANCHOR });
    useCursorSecret(drawnCursorSecret());
    expect(readCursor(cursor, BINDING, 'after', acme)).toEqual({ position: 42, anchor: null });
    expect(readCursor(cursor, BINDING, 'after', globex)).toEqual({ position: 42, anchor: null });
    expect(drawnCursorSecret()).toMatch(/^drawn-for-this-instance:[A-Za-z0-9_-]{43}$/);
  });
});
