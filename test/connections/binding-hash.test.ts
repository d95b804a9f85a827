import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { BINDING_DIGEST_BYTES, cachedBindings, hashesOf } from '../../src/connections/binding-hash.ts';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

describe('hashesOf', () => {
  it("is the binding's SHA-256 (of its UTF-8), and its first 11 base64url characters as a position cursor's hash", () => {
    for (const binding of ['exceptions?sort=createdAt%2CDESC', 'linx?status=NEW&sort=Müller', '']) {
      const { digest, hash } = hashesOf(binding);
      expect(digest).toEqual(sha256(binding));
      expect(hash).toBe(sha256(binding).toString('base64url').slice(0, 11));
      expect(hash).toHaveLength(11);
    }
    expect(BINDING_DIGEST_BYTES).toBe(8);
  });

  it('keeps the hashes of up to 256 bindings of up to 512 characters, the oldest let go first', () => {
    const prefix = `cache-test-${Date.now()}-`;
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
    expect(hashes.digest).toEqual(sha256(longer));
    expect(hashesOf(longer)).not.toBe(hashes);
    expect(cachedBindings()).toBe(count);
  });
});
