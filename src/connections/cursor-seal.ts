import { createCipheriv, createSecretKey, hash, hkdfSync, randomBytes, timingSafeEqual, type Cipheriv } from 'node:crypto';
import { PageCmac, type MessageSpan } from './page-cmac.ts';

/**
 * The sealing of an anchored cursor's record part (its id and sort values): deterministic
 * authenticated encryption (SIV: a tag over AES-256-CMAC, then AES-256-CTR under the tag), so that a
 * cursor copied into a URL or a log shows nothing of the record, and a changed byte is refused.
 * Cursors sealed with an HMAC-SHA256 tag instead (`Mac` 'hmac-sha256', the earlier version of the
 * format) are still read. CMAC rather than HMAC because a page's tags are then computed together
 * (page-cmac.ts): a few AES calls for a page where HMAC made two SHA-256 calls per cursor.
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

/** The synthetic IV: the MAC over everything else the cursor holds, and its caller. */
export const SEAL_TAG_BYTES = 16;
/** Names the keys that sealed a cursor. */
export const KEY_ID_BYTES = 4;

const AES_BLOCK_BYTES = 16;
/** SHA-256's block: HMAC pads its key to it. */
const BLOCK_BYTES = 64;
const DIGEST_BYTES = 32;
/**
 * The HKDF output: HMAC key, cipher key, key id, the key of caller hashes, then the CMAC key. HKDF's
 * output for one secret and label is the same bytes whatever its length, so the first four keep
 * their values as the list grows.
 */
const KEY_MATERIAL_BYTES = 32 + 32 + KEY_ID_BYTES + 32 + 32;
/** A page of 100 cursors of 100 bytes and their caller hash fit: a page's tag inputs are written here, one after another. */
const PAGE_INPUT_BYTES = 16 * 1024;

/** What computed a sealed cursor's tag: AES-256-CMAC, or HMAC-SHA256 (the earlier version, still read). */
export type Mac = 'aes-cmac' | 'hmac-sha256';

/**
 * The prefix of a secret the primary draws for its workers when no CURSOR_SECRET is set (start.ts):
 * such a key is this instance's alone, so another key id is expected (another instance, a restart),
 * not a sign of tampering.
 */
const DRAWN_SECRET_PREFIX = 'drawn-for-this-instance:';

/** HMAC-SHA256 under one key, computed with the one-shot hash(): createHmac() per message costs several times more. */
interface HmacPads {
  /** The key XOR ipad, then room for the message. */
  inner: Buffer;
  /** The key XOR opad, then room for the inner digest. */
  outer: Buffer;
}

function hmacPads(key: Uint8Array, messageBytes: number): HmacPads {
  const inner = Buffer.alloc(BLOCK_BYTES + messageBytes);
  const outer = Buffer.alloc(BLOCK_BYTES + DIGEST_BYTES);
  for (let index = 0; index < BLOCK_BYTES; index++) {
    // A key shorter than the block is padded with zeros.
    const byte = key[index] ?? 0;
    inner[index] = byte ^ 0x36;
    outer[index] = byte ^ 0x5c;
  }
  return { inner, outer };
}

/** HMAC-SHA256 (RFC 2104) of the message written into `pads.inner` after its padded key, `end` its end there. */
function hmacOf(pads: HmacPads, end: number): Buffer {
  pads.outer.set(hash('sha256', pads.inner.subarray(0, end), 'buffer'), BLOCK_BYTES);
  return hash('sha256', pads.outer, 'buffer');
}

interface CursorKeys {
  /** The HMAC key of cursors sealed with an HMAC-SHA256 tag. */
  hmac: HmacPads;
  /** The CMAC key of a page's tags. */
  cmac: PageCmac;
  /**
   * AES-256 of whole blocks, for the CTR keystream (ctrSpans()): one object for the process, as ECB
   * keeps no state between whole blocks. A CTR cipher object per cursor costs more than its tag.
   */
  blocks: Cipheriv;
  id: Buffer;
  /** Keys the hash that names a caller (callerHash); sized for one token, any longer one is hashed with pads of its own. */
  caller: HmacPads;
  callerKey: Buffer;
  /** Whether a cursor of another key id is refused rather than read as its position. */
  refusesOtherKeys: boolean;
}

function deriveKeys(secret: string | Buffer, refusesOtherKeys: boolean): CursorKeys {
  const material = Buffer.from(hkdfSync('sha256', secret, 'gateway cursors', 'anchored cursor keys', KEY_MATERIAL_BYTES));
  const idEnd = 64 + KEY_ID_BYTES;
  const callerKey = Buffer.from(material.subarray(idEnd, idEnd + 32));
  const blockCipher = (key: Uint8Array) => createCipheriv('aes-256-ecb', createSecretKey(key), null).setAutoPadding(false);
  return {
    // Room for the largest cursor (1 024 bytes) and a caller hash.
    hmac: hmacPads(material.subarray(0, 32), 1024 + DIGEST_BYTES),
    cmac: new PageCmac(blockCipher(material.subarray(idEnd + 32, idEnd + 64))),
    blocks: blockCipher(material.subarray(32, 64)),
    id: Buffer.from(material.subarray(64, idEnd)),
    caller: hmacPads(callerKey, MAX_PADDED_TOKEN_BYTES),
    callerKey,
    refusesOtherKeys,
  };
}

/** Tokens up to this many bytes are hashed in the caller pads kept with the keys. */
const MAX_PADDED_TOKEN_BYTES = 4096;

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
  if (token === '') return Buffer.alloc(0);
  const length = Buffer.byteLength(token, 'utf8');
  const pads = length <= MAX_PADDED_TOKEN_BYTES ? keys.caller : hmacPads(keys.callerKey, length);
  pads.inner.write(token, BLOCK_BYTES, 'utf8');
  const digest = hmacOf(pads, BLOCK_BYTES + length);
  // The token is not kept past its hash.
  pads.inner.fill(0, BLOCK_BYTES, BLOCK_BYTES + length);
  return digest;
}

/** HMAC-SHA256 of the parts, truncated to the tag: the tag of a cursor sealed with Mac 'hmac-sha256'. */
function hmacTagOf(clear: Uint8Array, keyId: Uint8Array, record: Uint8Array, caller: Uint8Array): Buffer {
  const { inner } = keys.hmac;
  let end = BLOCK_BYTES;
  for (const part of [clear, keyId, record, caller]) {
    inner.set(part, end);
    end += part.length;
  }
  return hmacOf(keys.hmac, end).subarray(0, SEAL_TAG_BYTES);
}

/** Each cursor's tag input (clear part, key id, record part, caller), written one after another; grown for a page that needs more. */
let tagInput = Buffer.allocUnsafe(PAGE_INPUT_BYTES);

/** One cursor of a page packed into one buffer: where it starts, where its seal (tag, then key id) goes, where it ends. */
export interface CursorSpan {
  start: number;
  sealAt: number;
  end: number;
}

/** The AES-CMAC tag of each cursor of `bytes` for `caller`, computed together: SEAL_TAG_BYTES each, one after another. */
function cmacTagsOf(bytes: Buffer, cursors: readonly CursorSpan[], keyId: Buffer, caller: Buffer): Buffer {
  let total = 0;
  for (const { start, end } of cursors) total += end - start - SEAL_TAG_BYTES + caller.length;
  if (total > tagInput.length) tagInput = Buffer.allocUnsafe(Math.max(total, 2 * tagInput.length));
  const input = tagInput;
  const messages: MessageSpan[] = [];
  let at = 0;
  for (const { start, sealAt, end } of cursors) {
    const from = at;
    at += bytes.copy(input, at, start, sealAt);
    at += keyId.copy(input, at);
    at += bytes.copy(input, at, sealAt + SEAL_TAG_BYTES + KEY_ID_BYTES, end);
    at += caller.copy(input, at);
    messages.push({ start: from, length: at - from });
  }
  return keys.cmac.tags(input, messages);
}

/** The record part of a cursor: what the seal enciphers. */
function recordOf({ sealAt, end }: CursorSpan): { start: number; end: number } {
  return { start: sealAt + SEAL_TAG_BYTES + KEY_ID_BYTES, end };
}

/**
 * XORs each span of `data` in place with AES-256-CTR's keystream under its tag (the span's 16 bytes
 * of `tags`) as the initial counter block (a 128-bit big-endian counter, as OpenSSL's aes-256-ctr
 * counts): the counter blocks of all of them enciphered in one call, so a page of cursors makes one
 * cipher call rather than one each.
 */
function ctrSpans(tags: Uint8Array, data: Uint8Array, spans: readonly { start: number; end: number }[]): void {
  let total = 0;
  for (const { start, end } of spans) total += Math.ceil((end - start) / AES_BLOCK_BYTES);
  const counters = Buffer.allocUnsafe(total * AES_BLOCK_BYTES);
  let at = 0;
  for (let index = 0; index < spans.length; index++) {
    const { start, end } = spans[index] as { start: number; end: number };
    const tag = tags.subarray(index * SEAL_TAG_BYTES, (index + 1) * SEAL_TAG_BYTES);
    for (let block = 0; block * AES_BLOCK_BYTES < end - start; block++, at += AES_BLOCK_BYTES) {
      counters.set(tag, at);
      let carry = block;
      for (let byte = at + AES_BLOCK_BYTES - 1; carry > 0 && byte >= at; byte--) {
        const sum = (counters[byte] as number) + (carry & 0xff);
        counters[byte] = sum & 0xff;
        carry = (carry >>> 8) + (sum >>> 8);
      }
    }
  }
  const stream = keys.blocks.update(counters);
  at = 0;
  for (const { start, end } of spans) {
    for (let byte = start; byte < end; byte++) data[byte] = (data[byte] as number) ^ (stream[at + byte - start] as number);
    at += Math.ceil((end - start) / AES_BLOCK_BYTES) * AES_BLOCK_BYTES;
  }
}

/** XORs each of `data` in place with AES-256-CTR's keystream under its tag (see ctrSpans), all in one cipher call. */
export function ctrInPlace(tags: readonly Uint8Array[], data: readonly Buffer[]): void {
  const joined = Buffer.concat(data);
  const spans: { start: number; end: number }[] = [];
  let at = 0;
  for (const part of data) spans.push({ start: at, end: (at += part.length) });
  ctrSpans(Buffer.concat(tags), joined, spans);
  data.forEach((part, index) => joined.copy(part, 0, (spans[index] as { start: number }).start, (spans[index] as { end: number }).end));
}

/**
 * Seals the record part of each cursor of `bytes` in place for `caller` (a callerHash),
 * authenticating its clear part with it, and writes its tag and this process's key id at its
 * `sealAt`. A page's cursors are sealed together: their tags in a few cipher calls, their
 * keystreams in one.
 */
export function seal(bytes: Buffer, cursors: readonly CursorSpan[], caller: Buffer): void {
  const tags = cmacTagsOf(bytes, cursors, keys.id, caller);
  ctrSpans(tags, bytes, cursors.map(recordOf));
  cursors.forEach(({ sealAt }, index) => {
    tags.copy(bytes, sealAt, index * SEAL_TAG_BYTES, (index + 1) * SEAL_TAG_BYTES);
    keys.id.copy(bytes, sealAt + SEAL_TAG_BYTES);
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
export function unseal(clear: Buffer, tag: Buffer, keyId: Buffer, sealed: Buffer, caller: Buffer, mac: Mac): Buffer | Unreadable {
  if (!keyId.equals(keys.id)) return 'other key';
  // The cursor again, its record part deciphered: clear part, tag, key id, record part.
  const bytes = Buffer.concat([clear, tag, keyId, sealed]);
  const span: CursorSpan = { start: 0, sealAt: clear.length, end: bytes.length };
  ctrSpans(tag, bytes, [recordOf(span)]);
  const record = bytes.subarray(recordOf(span).start);
  const tagFor = (of: Buffer) => (mac === 'aes-cmac' ? cmacTagsOf(bytes, [span], keyId, of) : hmacTagOf(clear, keyId, record, of));
  if (timingSafeEqual(tagFor(caller), tag)) return record;
  if (caller.length > 0 && timingSafeEqual(tagFor(EMPTY), tag)) return 'no caller';
  throw new RangeError('cursor seal does not verify');
}

const EMPTY = Buffer.alloc(0);
