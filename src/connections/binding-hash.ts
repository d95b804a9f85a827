import { createHash } from 'node:crypto';

/**
 * The hash that binds a cursor to its connection's list, filter and order (the binding): a cursor
 * carries part of it, and is refused under any other binding.
 */

/** Bytes of the binding's SHA-256 an anchored cursor carries. */
export const BINDING_DIGEST_BYTES = 8;

export interface BindingHashes {
  digest: Buffer;
  /** 66 bits of the digest as base64url text, as position cursors carry it. */
  hash: string;
}

/**
 * Hashes of recent bindings: most requests page the same few lists with the same filters, so a
 * page's cursors reuse them rather than hashing again. Bounded in entries and in the length of
 * what it keeps (a binding holds client filter values); longer bindings are hashed each time.
 */
const BINDING_CACHE_ENTRIES = 256;
const BINDING_CACHE_MAX_CHARS = 512;
const bindingCache = new Map<string, BindingHashes>();

export function hashesOf(binding: string): BindingHashes {
  const cached = bindingCache.get(binding);
  if (cached) return cached;
  const digest = createHash('sha256').update(binding).digest();
  // 66 bits: collisions between two filter/order texts of one connection are out of reach in practice.
  const hashes = { digest, hash: digest.toString('base64url').slice(0, 11) };
  if (binding.length <= BINDING_CACHE_MAX_CHARS) {
    if (bindingCache.size >= BINDING_CACHE_ENTRIES) bindingCache.delete(bindingCache.keys().next().value as string);
    bindingCache.set(binding, hashes);
  }
  return hashes;
}

/** Bindings whose hashes are held (for tests). */
export function cachedBindings(): number {
  return bindingCache.size;
}
