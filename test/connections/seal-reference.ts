import { createCipheriv, createHmac, hkdfSync } from 'node:crypto';

/**
 * The cursor seal written out from its definition (docs/security.md, "Cursors"), with Node's crypto
 * alone, for the tests to check src/connections/cursor-seal.ts against: not the code under test.
 */

/** The keys HKDF-SHA256 derives from a CURSOR_SECRET: HMAC key, cipher key, key id, caller key, CMAC key. */
export function sealKeys(secret: string) {
  const material = Buffer.from(hkdfSync('sha256', secret, 'gateway cursors', 'anchored cursor keys', 132));
  return { hmac: material.subarray(0, 32), cipher: material.subarray(32, 64), keyId: material.subarray(64, 68), caller: material.subarray(68, 100), cmac: material.subarray(100, 132) };
}

/** Doubling in GF(2^128) (RFC 4493, section 2.3), bit by bit over a bigint. */
function doubled(block: Buffer): Buffer {
  const value = BigInt(`0x${block.toString('hex')}`);
  const shifted = (value << 1n) & ((1n << 128n) - 1n);
  return Buffer.from((value >> 127n === 1n ? shifted ^ 0x87n : shifted).toString(16).padStart(32, '0'), 'hex');
}

/** AES-256-CMAC (RFC 4493) as the last block of AES-256-CBC from a zero IV over the message with its last block tweaked. */
export function aesCmac(key: Buffer, message: Buffer): Buffer {
  const zero = createCipheriv('aes-256-ecb', key, null).setAutoPadding(false).update(Buffer.alloc(16));
  const [k1, k2] = [doubled(zero), doubled(doubled(zero))];
  const whole = message.length > 0 && message.length % 16 === 0;
  const padded = whole ? Buffer.from(message) : Buffer.concat([message, Buffer.from([0x80]), Buffer.alloc(15 - (message.length % 16))]);
  const last = padded.length - 16;
  for (let index = 0; index < 16; index++) padded[last + index] = (padded[last + index] as number) ^ ((whole ? k1 : k2)[index] as number);
  const chained = createCipheriv('aes-256-cbc', key, Buffer.alloc(16)).setAutoPadding(false).update(padded);
  return chained.subarray(chained.length - 16);
}

/** The HMAC-SHA256 of a caller's token that a seal covers. */
export function callerHashOf(secret: string, token: string): Buffer {
  return createHmac('sha256', sealKeys(secret).caller).update(token).digest();
}

/**
 * A version 3 cursor, as earlier gateways sealed them: the version 4 layout with an HMAC-SHA256 tag,
 * made from the clear (version 2) spelling of the same cursor and the clear part's length.
 */
export function hmacSealedCursor(secret: string, clearCursor: string, sealAt: number, callerHash: Buffer = Buffer.alloc(0)): string {
  const keys = sealKeys(secret);
  const clear = Buffer.from(clearCursor, 'base64url');
  const head = Buffer.from(clear.subarray(0, sealAt));
  head[0] = 3;
  const record = clear.subarray(sealAt);
  const tag = createHmac('sha256', keys.hmac).update(head).update(keys.keyId).update(record).update(callerHash).digest().subarray(0, 16);
  const sealed = createCipheriv('aes-256-ctr', keys.cipher, tag).update(record);
  return Buffer.concat([head, tag, keys.keyId, sealed]).toString('base64url');
}
