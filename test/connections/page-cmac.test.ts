import { createCipheriv } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { PageCmac } from '../../src/connections/page-cmac.ts';
import { aesCmac } from './seal-reference.ts';

/** The 16-byte tags one after another, in hex. */
const split = (tags: Buffer) => Array.from({ length: tags.length / 16 }, (_, index) => tags.subarray(16 * index, 16 * index + 16).toString('hex'));
const blockCipher = (algorithm: string, key: Buffer) => createCipheriv(algorithm, key, null).setAutoPadding(false);

describe('AES-CMAC of a page of messages', () => {
  it("gives RFC 4493's tags for its four examples (AES-128), computed in one batch", () => {
    const key = Buffer.from('2b7e151628aed2a6abf7158809cf4f3c', 'hex');
    const message = Buffer.from(
      '6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710',
      'hex',
    );
    const tags = new PageCmac(blockCipher('aes-128-ecb', key)).tags(message, [0, 16, 40, 64].map((length) => ({ start: 0, length })));
    expect(split(tags)).toEqual([
      'bb1d6929e95937287fa37d129b756746',
      '070a16b46b4d4144f79bdd9dd04a287c',
      'dfa66747de9ae63030ca32611497c827',
      '51f0bebf7e3b9d92fc49741779363cfe',
    ]);
  });

  it('gives each message of a batch the tag it has alone, whatever the lengths side by side (AES-256)', () => {
    const key = Buffer.from(Array.from({ length: 32 }, (_, index) => (index * 37 + 11) & 0xff));
    const data = Buffer.from(Array.from({ length: 2048 }, (_, index) => (index * 131 + 7) & 0xff));
    const lengths = [0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 80, 95, 96, 97, 200];
    const messages = lengths.map((length, index) => ({ start: index * 13, length }));
    const cmac = new PageCmac(blockCipher('aes-256-ecb', key));
    const tags = split(cmac.tags(data, messages));
    expect(tags.map((tag, index) => [lengths[index], tag])).toEqual(
      messages.map(({ start, length }) => [length, aesCmac(key, data.subarray(start, start + length)).toString('hex')]),
    );
    // The same cipher object serves the next page: it keeps no state between whole blocks.
    expect(split(cmac.tags(data, messages.slice(3, 5)))).toEqual(tags.slice(3, 5));
    expect(cmac.tags(data, []).length).toBe(0);
  });
});
