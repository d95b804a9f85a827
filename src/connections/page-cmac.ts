import type { Cipheriv } from 'node:crypto';

/**
 * AES-CMAC (RFC 4493, NIST SP 800-38B) of many messages at once: the tags of a page's cursors.
 *
 * CMAC chains one block-cipher call per 16-byte block of a message, so each message is sequential,
 * but the messages of a page are independent: round r enciphers block r of every message still
 * running in one call. A page of 20 cursors of 5–6 blocks makes 5–6 calls into OpenSSL rather than
 * the 40 SHA-256 calls of an HMAC each, and the XORs between rounds are a few hundred bytes of
 * JavaScript.
 */

const BLOCK_BYTES = 16;

/** Doubling in GF(2^128), as CMAC derives its subkeys (RFC 4493, section 2.3). */
function doubled(block: Uint8Array): Buffer {
  const out = Buffer.alloc(BLOCK_BYTES);
  for (let index = 0; index < BLOCK_BYTES; index++) {
    const next = index + 1 < BLOCK_BYTES ? (block[index + 1] as number) >>> 7 : 0;
    out[index] = (((block[index] as number) << 1) | next) & 0xff;
  }
  if (((block[0] as number) & 0x80) !== 0) out[BLOCK_BYTES - 1] = (out[BLOCK_BYTES - 1] as number) ^ 0x87;
  return out;
}

/** One message: `length` bytes of `data` from `start`. */
export interface MessageSpan {
  start: number;
  length: number;
}

export class PageCmac {
  /** AES in ECB mode without padding: over whole blocks it keeps no state between calls, so one object serves the process. */
  readonly #blocks: Cipheriv;
  /** The subkey XORed into a final block that is whole. */
  readonly #whole: Buffer;
  /** The subkey XORed into a final block that is padded (and into the one block of an empty message). */
  readonly #padded: Buffer;

  constructor(blocks: Cipheriv) {
    this.#blocks = blocks;
    this.#whole = doubled(blocks.update(Buffer.alloc(BLOCK_BYTES)));
    this.#padded = doubled(this.#whole);
  }

  /** The 16-byte CMAC of each message of `data`, one after another in the order given. */
  tags(data: Uint8Array, messages: readonly MessageSpan[]): Buffer {
    const count = messages.length;
    const starts = new Int32Array(count);
    const lengths = new Int32Array(count);
    const blocks = new Int32Array(count);
    let rounds = 0;
    for (let message = 0; message < count; message++) {
      const { start, length } = messages[message] as MessageSpan;
      starts[message] = start;
      lengths[message] = length;
      blocks[message] = Math.max(1, Math.ceil(length / BLOCK_BYTES));
      rounds = Math.max(rounds, blocks[message] as number);
    }
    const state = Buffer.alloc(count * BLOCK_BYTES);
    const running = new Int32Array(count);
    for (let round = 0; round < rounds; round++) {
      let active = 0;
      for (let message = 0; message < count; message++) if ((blocks[message] as number) > round) running[active++] = message;
      const input = Buffer.allocUnsafe(active * BLOCK_BYTES);
      const from = round * BLOCK_BYTES;
      for (let slot = 0; slot < active; slot++) {
        const message = running[slot] as number;
        const [start, length] = [starts[message] as number, lengths[message] as number];
        const [out, chained] = [slot * BLOCK_BYTES, message * BLOCK_BYTES];
        if (round < (blocks[message] as number) - 1) {
          // A block inside the message: whole, no tweak.
          for (let byte = 0; byte < BLOCK_BYTES; byte++) input[out + byte] = (state[chained + byte] as number) ^ (data[start + from + byte] as number);
          continue;
        }
        const subkey = length > 0 && length % BLOCK_BYTES === 0 ? this.#whole : this.#padded;
        for (let byte = 0; byte < BLOCK_BYTES; byte++) {
          const at = from + byte;
          // Past the message's end: the 10* padding of a final block that is not whole.
          const value = at < length ? (data[start + at] as number) : at === length ? 0x80 : 0;
          input[out + byte] = (state[chained + byte] as number) ^ value ^ (subkey[byte] as number);
        }
      }
      const enciphered = this.#blocks.update(input);
      for (let slot = 0; slot < active; slot++) enciphered.copy(state, (running[slot] as number) * BLOCK_BYTES, slot * BLOCK_BYTES, (slot + 1) * BLOCK_BYTES);
    }
    return state;
  }
}
