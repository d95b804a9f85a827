import { describe, expect, it } from '@jest/globals';
import { POSITION_VERSION, packPosition, unpackPosition } from '../../src/connections/position-cursor.ts';

const bytesOf = (text: string) => Buffer.from(text, 'utf8');

describe('packPosition', () => {
  it('is the base64url of the JSON of version 1, the position and the binding hash', () => {
    expect(POSITION_VERSION).toBe(1);
    expect(packPosition(42, 'AbCdEfGhIjK')).toBe(Buffer.from('{"v":1,"p":42,"b":"AbCdEfGhIjK"}').toString('base64url'));
    expect(Buffer.from(packPosition(0, 'h'), 'base64url').toString('utf8')).toBe('{"v":1,"p":0,"b":"h"}');
  });
});

describe('unpackPosition', () => {
  it("reads a cursor's JSON object back, whatever its fields", () => {
    expect(unpackPosition(Buffer.from(packPosition(7, 'hash'), 'base64url'))).toEqual({ v: 1, p: 7, b: 'hash' });
    expect(unpackPosition(bytesOf('{"v":2,"x":true}'))).toEqual({ v: 2, x: true });
    expect(unpackPosition(bytesOf('{}'))).toEqual({});
  });

  it('is null for bytes that are not the JSON of an object', () => {
    for (const text of ['', '{', 'not json', '[1,2]', '[]', 'null', '42', '"text"', 'true', '\u00ff\u00fe']) {
      expect([text, unpackPosition(bytesOf(text))]).toEqual([text, null]);
    }
    expect(unpackPosition(Buffer.from([0xff, 0x00, 0x7b]))).toBeNull();
  });
});
