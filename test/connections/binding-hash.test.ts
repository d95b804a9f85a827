import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { BINDING_DIGEST_BYTES, cachedBindings, hashesOf, previousHashesOf } from '../../src/connections/binding-hash.ts';
import { encodeCursor, readCursor } from '../../src/connections/cursor.ts';
import { useCursorSecret } from '../../src/connections/cursor-seal.ts';

const SECRET = 'a cursor secret of the deployment, 32+ characters';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();
/** HMAC-SHA256 under the key HKDF-SHA256 derives from `secret` for bindings, as docs/security.md states it. */
const mac = (secret: string, text: string) => createHmac('sha256', Buffer.from(hkdfSync('sha256', Buffer.from(secret), Buffer.alloc(0), 'gateway cursor bindings', 32))).update(text, 'utf8').digest();

afterEach(() => useCursorSecret(undefined));

describe('hashesOf', () => {
  it("is the binding's HMAC-SHA256 (of its UTF-8) under a key derived from the cursor secret, and its first 11 base64url characters as a position cursor's hash", () => {
    useCursorSecret(SECRET);
    for (const binding of ['acceptances?financialAccountId=fa-1', 'linx?status=NEW&sort=Müller', '']) {
      const { digest, hash } = hashesOf(binding);
      expect(digest).toEqual(mac(SECRET, binding));
      expect(digest).not.toEqual(sha256(binding));
      expect(hash).toBe(mac(SECRET, binding).toString('base64url').slice(0, 11));
      expect(hash).toHaveLength(11);
    }
    expect(BINDING_DIGEST_BYTES).toBe(8);
  });

  it('is another MAC under another secret, and one of the previous secret is read while a rotation lasts', () => {
    const binding = 'acceptances?financialAccountId=fa-1';
    useCursorSecret(`${SECRET} (old)`);
    const old = encodeCursor(3, binding);
    useCursorSecret(SECRET);
    expect(hashesOf(binding).digest).toEqual(mac(SECRET, binding));
    expect(() => readCursor(old, binding)).toThrow(expect.objectContaining({ extensions: expect.objectContaining({ reason: 'CURSOR_OTHER_CONNECTION' }) }));
    expect(previousHashesOf(binding)).toBeUndefined();
    useCursorSecret(SECRET, `${SECRET} (old)`);
    expect(previousHashesOf(binding)?.digest).toEqual(mac(`${SECRET} (old)`, binding));
    expect(readCursor(old, binding).position).toBe(3);
  });

  it('refuses a cursor bound by the unkeyed hash of earlier gateways', () => {
    const binding = 'acceptances?financialAccountId=fa-1';
    const unkeyed = Buffer.from(JSON.stringify({ v: 1, p: 3, b: sha256(binding).toString('base64url').slice(0, 11) })).toString('base64url');
    expect(() => readCursor(unkeyed, binding)).toThrow(expect.objectContaining({ extensions: expect.objectContaining({ reason: 'CURSOR_OTHER_CONNECTION' }) }));
  });

  it('keeps the hashes of up to 256 bindings of up to 512 characters, the oldest let go first', () => {
    const prefix = `cache-test-${Date.now()}-`;
    // The MACs of the key in force (a changed secret empties the cache).
    hashesOf('exceptions');
    const before = cachedBindings();
    const first = hashesOf(`${prefix}0`);
    expect(hashesOf(`${prefix}0`)).toBe(first);
    expect(cachedBindings()).toBe(Math.min(before + 1, 256));
    for (let index = 1; index < 300; index++) hashesOf(`${prefix}${index}`);
    expect(cachedBindings()).toBe(256);
    // The first was let go: hashed again, a new object of the same hashes.
    const again = hashesOf(`${prefix}0`);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    // The newest is still held.
    expect(hashesOf(`${prefix}299`)).toBe(hashesOf(`${prefix}299`));
  });

  it('hashes a binding longer than 512 characters each time, keeping nothing of it', () => {
    const long = `exceptions?status=${'x'.repeat(512 - 'exceptions?status='.length)}`;
    expect(long).toHaveLength(512);
    expect(hashesOf(long)).toBe(hashesOf(long));
    const longer = `${long}y`;
    const count = cachedBindings();
    const hashes = hashesOf(longer);
    expect(hashes.digest).toEqual(hashesOf(longer).digest);
    expect(hashesOf(longer)).not.toBe(hashes);
    expect(cachedBindings()).toBe(count);
  });
});
