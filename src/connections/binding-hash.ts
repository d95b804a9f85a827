import { createHmac, type KeyObject } from 'node:crypto';
import { bindingKeys } from './cursor-seal.ts';

/**
 * The MAC that binds a cursor to its connection's list, filter and order (the binding): a cursor
 * carries part of it, and is refused under any other binding. Keyed (HMAC-SHA256 under a key HKDF
 * derives from the cursor secret, cursor-seal.ts): the binding holds client filter values (a
 * Financial Account id, a search text), and an unkeyed hash of it would let anyone holding a cursor
 * confirm guesses of them offline.
 */

/** Bytes of the binding's MAC an anchored cursor carries. */
export const BINDING_DIGEST_BYTES = 8;

export interface BindingHashes {
  digest: Buffer;
  /** 66 bits of the digest as base64url text, as position cursors carry it. */
  hash: string;
}

/**
 * MACs of recent bindings under the current key: most requests page the same few lists with the
 * same filters, so a page's cursors reuse them rather than computing them again. Bounded in entries
 * and in the length of what it keeps (a binding holds client filter values); longer bindings are
 * computed each time. Emptied when the secret changes.
 */
const BINDING_CACHE_ENTRIES = 256;
const BINDING_CACHE_MAX_CHARS = 512;
const bindingCache = new Map<string, BindingHashes>();
let cachedUnder: readonly KeyObject[] | undefined;

function macOf(binding: string, key: KeyObject): BindingHashes {
  const digest = createHmac('sha256', key).update(binding).digest();
  // 66 bits: collisions between two filter/order texts of one connection are out of reach in practice.
  return { digest, hash: digest.toString('base64url').slice(0, 11) };
}

/** The binding's MAC under the current secret's key. */
export function hashesOf(binding: string): BindingHashes {
  const keys = bindingKeys();
  if (keys !== cachedUnder) {
    bindingCache.clear();
    cachedUnder = keys;
  }
  const cached = bindingCache.get(binding);
  if (cached) return cached;
  const hashes = macOf(binding, keys[0] as KeyObject);
  if (binding.length <= BINDING_CACHE_MAX_CHARS) {
    if (bindingCache.size >= BINDING_CACHE_ENTRIES) bindingCache.delete(bindingCache.keys().next().value as string);
    bindingCache.set(binding, hashes);
  }
  return hashes;
}

/** The binding's MAC under the previous secret's key while a rotation lasts (CURSOR_SECRET_PREVIOUS); undefined otherwise. */
export function previousHashesOf(binding: string): BindingHashes | undefined {
  const previous = bindingKeys()[1];
  return previous === undefined ? undefined : macOf(binding, previous);
}

/** Bindings whose MACs are held (for tests). */
export function cachedBindings(): number {
  return bindingCache.size;
}
