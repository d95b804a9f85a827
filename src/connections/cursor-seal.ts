import { createCipheriv, createHmac, createSecretKey, hash, hkdfSync, randomBytes, timingSafeEqual, type Cipheriv, type KeyObject } from 'node:crypto';

/**
 * The sealing of an anchored cursor's record part (its id and sort values): deterministic
 * authenticated encryption (SIV over HMAC-SHA256 and AES-256-CTR), so that a cursor copied into a
 * URL or a log shows nothing of the record, and a changed byte is refused.
 *
 * Deterministic on purpose: the same record at the same place of the same list gives the same
 * cursor (clients and caches may compare them), and no nonce is carried. It reveals only that two
 * cursors are equal, which their clear positions already tell.
 *
 * Bound to its caller: the tag also covers a keyed hash of the caller's token (callerHash), which
 * the cursor does not carry. Read by another caller, the tag does not verify and the cursor is
 * refused like a tampered one: the two cannot be told apart, and neither may place a page.
 *
 * The keys come from CURSOR_SECRET, shared by the replicas and kept across restarts; a cursor with
 * another key id is then refused (its key id was changed, or the secret rotated). Without it, the
 * keys come from random bytes drawn at start-up, and a cursor sealed by another process is read as
 * its clear position alone (docs/paging.md): the key id travels in clear to tell such a cursor.
 */

/** The synthetic IV: the first bytes of the HMAC over everything else the cursor holds. */
export const SEAL_TAG_BYTES = 16;
/** Names the keys that sealed a cursor. */
export const KEY_ID_BYTES = 4;

const AES_BLOCK_BYTES = 16;
/** SHA-256's block: HMAC pads its key to it. */
const BLOCK_BYTES = 64;
const DIGEST_BYTES = 32;
/** Larger than any cursor and a caller hash: the HMAC's inner input is written here after its padded key. */
const INNER_BYTES = BLOCK_BYTES + 1024 + DIGEST_BYTES;
/** The HKDF output: mac key, cipher key, key id, then the key of caller hashes. */
const KEY_MATERIAL_BYTES = 32 + 32 + KEY_ID_BYTES + 32;

/**
 * The prefix of a secret the primary draws for its workers when no CURSOR_SECRET is set (start.ts):
 * such a key is this instance's alone, so another key id is expected (another instance, a restart),
 * not a sign of tampering.
 */
const DRAWN_SECRET_PREFIX = 'drawn-for-this-instance:';

interface CursorKeys {
  /** HMAC-SHA256 of the mac key, computed with the one-shot hash(): the key XOR ipad, then room for the message. */
  inner: Buffer;
  /** The key XOR opad, then room for the inner digest. */
  outer: Buffer;
  /**
   * AES-256 of whole blocks, for the CTR keystream (keystreams()): one object for the process, as ECB
   * keeps no state between whole blocks. A CTR cipher object per cursor cost more than its HMAC.
   */
  blocks: Cipheriv;
  id: Buffer;
  /** Keys the hash that names a caller (callerHash). */
  caller: KeyObject;
  /** Whether a cursor of another key id is refused rather than read as its position. */
  refusesOtherKeys: boolean;
}

function deriveKeys(secret: string | Buffer, refusesOtherKeys: boolean): CursorKeys {
  const material = Buffer.from(hkdfSync('sha256', secret, 'gateway cursors', 'anchored cursor keys', KEY_MATERIAL_BYTES));
  const inner = Buffer.alloc(INNER_BYTES);
  const outer = Buffer.alloc(BLOCK_BYTES + DIGEST_BYTES);
  for (let index = 0; index < BLOCK_BYTES; index++) {
    const byte = index < 32 ? (material[index] as number) : 0;
    inner[index] = byte ^ 0x36;
    outer[index] = byte ^ 0x5c;
  }
  const idEnd = 64 + KEY_ID_BYTES;
  return {
    inner,
    outer,
    blocks: createCipheriv('aes-256-ecb', createSecretKey(material.subarray(32, 64)), null).setAutoPadding(false),
    id: Buffer.from(material.subarray(64, idEnd)),
    caller: createSecretKey(material.subarray(idEnd)),
    refusesOtherKeys,
  };
}

let keys = deriveKeys(randomBytes(32), false);

/**
 * Seals cursors with keys derived from `secret`, or from fresh random bytes without one. With a
 * secret (other than one drawn for this instance's workers), a cursor of another key is refused.
 */
export function useCursorSecret(secret: string | undefined): void {
  keys = secret === undefined ? deriveKeys(randomBytes(32), false) : deriveKeys(secret, !secret.startsWith(DRAWN_SECRET_PREFIX));
}

/** A key for this instance's workers to share when no CURSOR_SECRET is set: read as no secret. */
export function drawnCursorSecret(): string {
  return DRAWN_SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * What names a caller inside a seal: HMAC-SHA256 of its token under a key of the cursor keys, so
 * the seal depends on the token without the token or a plain hash of it being kept anywhere.
 * Empty for no token: the cursors of the tests, and of gateways before cursors had a caller.
 */
export function callerHash(token: string): Buffer {
  return token === '' ? Buffer.alloc(0) : createHmac('sha256', keys.caller).update(token, 'utf8').digest();
}

/**
 * HMAC-SHA256 (RFC 2104) of the three parts, truncated to the tag. Written out over the one-shot
 * hash(): createHmac() per cursor costs several times more, and this runs once per edge of a page.
 */
function tagOf(clear: Uint8Array, keyId: Uint8Array, record: Uint8Array, caller: Uint8Array): Buffer {
  const { inner, outer } = keys;
  let end = BLOCK_BYTES;
  for (const part of [clear, keyId, record, caller]) {
    inner.set(part, end);
    end += part.length;
  }
  outer.set(hash('sha256', inner.subarray(0, end), 'buffer'), BLOCK_BYTES);
  return hash('sha256', outer, 'buffer').subarray(0, SEAL_TAG_BYTES);
}

/**
 * XORs each of `data` in place with AES-256-CTR's keystream under its tag as the initial counter
 * block (a 128-bit big-endian counter, as OpenSSL's aes-256-ctr counts): the counter blocks of all of
 * them enciphered in one call, so a page of cursors makes one cipher call rather than one each.
 */
export function ctrInPlace(tags: readonly Uint8Array[], data: readonly Buffer[]): void {
  let total = 0;
  for (const part of data) total += Math.ceil(part.length / AES_BLOCK_BYTES);
  const counters = Buffer.allocUnsafe(total * AES_BLOCK_BYTES);
  let at = 0;
  data.forEach((part, index) => {
    for (let block = 0; block * AES_BLOCK_BYTES < part.length; block++, at += AES_BLOCK_BYTES) {
      counters.set(tags[index] as Uint8Array, at);
      let carry = block;
      for (let byte = at + AES_BLOCK_BYTES - 1; carry > 0 && byte >= at; byte--) {
        const sum = (counters[byte] as number) + (carry & 0xff);
        counters[byte] = sum & 0xff;
        carry = (carry >>> 8) + (sum >>> 8);
      }
    }
  });
  const stream = keys.blocks.update(counters);
  at = 0;
  for (const part of data) {
    for (let byte = 0; byte < part.length; byte++) part[byte] = (part[byte] as number) ^ (stream[at + byte] as number);
    at += Math.ceil(part.length / AES_BLOCK_BYTES) * AES_BLOCK_BYTES;
  }
}

/** One cursor's part of a page to seal: its clear bytes, room for its tag and key id, its record part. */
export interface SealParts {
  clear: Buffer;
  tagAndKeyId: Buffer;
  record: Buffer;
}

/**
 * Seals each record part in place for `caller` (a callerHash), authenticating its clear part with
 * it; writes its tag and this process's key id into its `tagAndKeyId` (SEAL_TAG_BYTES + KEY_ID_BYTES
 * bytes). A page's cursors are sealed together: one cipher call for all of them.
 */
export function seal(parts: readonly SealParts[], caller: Buffer): void {
  const tags = parts.map(({ clear, record }) => tagOf(clear, keys.id, record, caller));
  ctrInPlace(
    tags,
    parts.map((part) => part.record),
  );
  parts.forEach((part, index) => {
    part.tagAndKeyId.set(tags[index] as Buffer, 0);
    part.tagAndKeyId.set(keys.id, SEAL_TAG_BYTES);
  });
}

/**
 * Why a sealed cursor's record part cannot be read: another key sealed it (see otherKeysRefused),
 * or it was sealed for no caller (by a gateway before cursors had one) and a caller reads it, which
 * may then use its clear position alone.
 */
export type Unreadable = 'other key' | 'no caller';

/** Whether a cursor of another key is refused (CURSOR_SECRET set) rather than read as its position. */
export function otherKeysRefused(): boolean {
  return keys.refusesOtherKeys;
}

/**
 * The record part of a sealed cursor, read by `caller` (a callerHash), or why it cannot be read.
 * Throws a RangeError when this key sealed it and its tag does not verify for this caller: a byte
 * changed since, or another caller's cursor (the two cannot be told apart).
 */
export function unseal(clear: Buffer, tag: Buffer, keyId: Buffer, sealed: Buffer, caller: Buffer): Buffer | Unreadable {
  if (!keyId.equals(keys.id)) return 'other key';
  const record = Buffer.from(sealed);
  ctrInPlace([tag], [record]);
  if (timingSafeEqual(tagOf(clear, keyId, record, caller), tag)) return record;
  if (caller.length > 0 && timingSafeEqual(tagOf(clear, keyId, record, EMPTY), tag)) return 'no caller';
  throw new RangeError('cursor seal does not verify');
}

const EMPTY = Buffer.alloc(0);
