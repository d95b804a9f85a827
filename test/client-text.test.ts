import { describe, expect, it } from '@jest/globals';
import { clip, clipEchoes, clipEchoesDeep, MAX_MESSAGE_CHARS } from '../src/client-text.ts';

// The common cuts are shown in test/ops/hostile-input.test.ts; here, the edges.

describe('clip', () => {
  it('keeps text of exactly the limit, and cuts one character more', () => {
    expect(clip('abcd', 4)).toBe('abcd');
    expect(clip('abcde', 4)).toBe('abcd…');
    expect(clip('', 0)).toBe('');
    expect(clip('a', 0)).toBe('…');
  });

  it('never keeps half a surrogate pair, and keeps a whole one', () => {
    expect(clip('😀😀', 3)).toBe('😀…');
    expect(clip('😀😀x', 4)).toBe('😀😀…');
  });
});

describe('clipEchoes', () => {
  it('leaves a message of at most the limit as it is, however it is made', () => {
    expect(clipEchoes('"abc" defgh', 11)).toBe('"abc" defgh');
  });

  it('keeps every kind of space between the words', () => {
    expect(clipEchoes(`a\tb\n${'c'.repeat(12)}\r\nd`, 5)).toBe('a\tb\nccccc…\r\nd');
  });

  it('cuts a word that runs into a quote at the quote', () => {
    expect(clipEchoes(`id${'x'.repeat(10)}"${'q'.repeat(10)}"`, 5)).toBe('idxxx…"qqqqq…"');
  });

  it('never returns more than MAX_MESSAGE_CHARS and its mark, whatever the message', () => {
    expect(clipEchoes('"ab" '.repeat(2_000), 3)).toHaveLength(MAX_MESSAGE_CHARS + 1);
    expect(clipEchoes('x'.repeat(5_000), 2_000)).toBe(`${'x'.repeat(MAX_MESSAGE_CHARS)}…`);
  });
});

describe('clipEchoesDeep', () => {
  it('cuts every string of objects and arrays, keys included, and leaves other values alone', () => {
    const long = 'y'.repeat(20);
    expect(clipEchoesDeep({ [long]: [long, 7, null, true, { text: `say ${long}` }] }, 5)).toEqual({ 'yyyyy…': ['yyyyy…', 7, null, true, { text: 'say yyyyy…' }] });
  });

  it('goes four levels deep and leaves what is below as it is', () => {
    const long = 'z'.repeat(10);
    const deep = { a: { b: { c: { d: long, e: { f: long } } } } };
    expect(clipEchoesDeep(deep, 3)).toEqual({ a: { b: { c: { d: 'zzz…', e: { f: long } } } } });
    expect(clipEchoesDeep(long, 3, 0)).toBe('zzz…');
  });
});
