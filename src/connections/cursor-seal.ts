import { createCipheriv, createSecretKey, hash, hkdfSync, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';

/**
 * The sealing of an anchored cursor's record part (its id and sort values): deterministic
 * authenticated encryption (SIV over HMAC-SHA256 and AES-256-CTR), so that a cursor copied into a
 * URL or a log shows nothing of the record, and a changed byte is refused.
 *
 * Deterministic on purpose: the same record at the same place of the same list gives the same
 * cursor (clients and caches may compare them), and no nonce is carried. It reveals only that two
 * cursors are equal, which their clear positions already tell.
 *
 * The keys come from CURSOR_SECRET, shared by the replicas and kept across restarts; without it,
 * from random bytes drawn at start-up, and a cursor sealed by another process is read as its
 * clear position alone (docs/paging.md). A key id travels in clear to tell such a cursor from a
 * tampered one.
 */

/** The synthetic IV: the first bytes of the HMAC over everything else the cursor holds. */
export const SEAL_TAG_BYTES = 16;
/** Names the keys that sealed a cursor. */
export const KEY_ID_BYTES = 4;

/** SHA-256's block: HMAC pads its key to it. */
const BLOCK_BYTES = 64;
const DIGEST_BYTES = 32;
/** Larger than any cursor: the HMAC's inner input is written here after its padded key. */
const INNER_BYTES = BLOCK_BYTES + 1024;

interface CursorKeys {
  /** HMAC-SHA256 of the mac key, computed with the one-shot hash(): the key XOR ipad, then room for the message. */
  inner: Buffer;
  /** The key XOR opad, then room for the inner digest. */
  outer: Buffer;
  cipher: KeyObject;
  id: Buffer;
}

function deriveKeys(secret: string | Buffer): CursorKeys {
  const material = Buffer.from(hkdfSync('sha256', secret, 'gateway cursors', 'anchored cursor keys', 32 + 32 + KEY_ID_BYTES));
  const inner = Buffer.alloc(INNER_BYTES);
  const outer = Buffer.alloc(BLOCK_BYTES + DIGEST_BYTES);
  for (let index = 0; index < BLOCK_BYTES; index++) {
    const byte = index < 32 ? (material[index] as number) : 0;
    inner[index] = byte ^ 0x36;
    outer[index] = byte ^ 0x5c;
  }
  return { inner, outer, cipher: createSecretKey(material.subarray(32, 64)), id: Buffer.from(material.subarray(64)) };
}

let keys = deriveKeys(randomBytes(32));

/** Seals cursors with keys derived from `secret`, or from fresh random bytes without one. */
export function useCursorSecret(secret: string | undefined): void {
  keys = deriveKeys(secret ?? randomBytes(32));
}

/**
 * HMAC-SHA256 (RFC 2104) of the three parts, truncated to the tag. Written out over the one-shot
 * hash(): createHmac() per cursor costs several times more, and this runs once per edge of a page.
 */
function tagOf(clear: Uint8Array, keyId: Uint8Array, record: Uint8Array): Buffer {
  const { inner, outer } = keys;
  let end = BLOCK_BYTES;
  for (const part of [clear, keyId, record]) {
    inner.set(part, end);
    end += part.length;
  }
  outer.set(hash('sha256', inner.subarray(0, end), 'buffer'), BLOCK_BYTES);
  return hash('sha256', outer, 'buffer').subarray(0, SEAL_TAG_BYTES);
}

/** AES-256-CTR under the tag as its initial counter block. */
function ctr(tag: Uint8Array, data: Uint8Array): Buffer {
  return createCipheriv('aes-256-ctr', keys.cipher, tag).update(data);
}

/**
 * Seals `record` in place, authenticating `clear` with it; writes the tag and this process's key id
 * into `tagAndKeyId` (SEAL_TAG_BYTES + KEY_ID_BYTES bytes).
 */
export function seal(clear: Buffer, tagAndKeyId: Buffer, record: Buffer): void {
  const tag = tagOf(clear, keys.id, record);
  record.set(ctr(tag, record));
  tagAndKeyId.set(tag, 0);
  tagAndKeyId.set(keys.id, SEAL_TAG_BYTES);
}

/**
 * The record part of a sealed cursor; null when another key sealed it (another replica, a run
 * before a restart). Throws a RangeError when this key sealed it and a byte changed since.
 */
export function unseal(clear: Buffer, tag: Buffer, keyId: Buffer, sealed: Buffer): Buffer | null {
  if (!keyId.equals(keys.id)) return null;
  const record = ctr(tag, sealed);
  if (!timingSafeEqual(tagOf(clear, keyId, record), tag)) throw new RangeError('cursor seal does not verify');
  return record;
}
