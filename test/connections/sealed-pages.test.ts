import { describe, expect, it } from '@jest/globals';
import { SealedPages } from '../../src/connections/sealed-pages.ts';

const CLEAR = Buffer.from([6, 1, 2, 3, 4, 5, 6, 7, 8]);
const KEY = {};

describe('SealedPages', () => {
  it('names a page by its clear and plain bytes, and gives back what was kept under that name', () => {
    const pages = new SealedPages();
    const name = pages.nameOf(CLEAR, Buffer.from([2, 0, 42]), KEY) as string;
    expect(name).toBe(Buffer.from([6, 1, 2, 3, 4, 5, 6, 7, 8, 2, 0, 42]).toString('latin1'));
    expect(pages.get(name)).toBeUndefined();
    pages.keep(name, 'page text');
    expect(pages.get(name)).toBe('page text');
    expect(pages.get(pages.nameOf(CLEAR, Buffer.from([2, 0, 43]), KEY) as string)).toBeUndefined();
  });

  it('keeps no page of more than 256 plain bytes', () => {
    const pages = new SealedPages();
    expect(pages.nameOf(CLEAR, Buffer.alloc(256), KEY)).toHaveLength(9 + 256);
    expect(pages.nameOf(CLEAR, Buffer.alloc(257), KEY)).toBeUndefined();
  });

  it('keeps 1024 pages, the oldest first out', () => {
    const pages = new SealedPages();
    const nameOf = (index: number) => pages.nameOf(CLEAR, Buffer.from(String(index)), KEY) as string;
    for (let index = 0; index < 1025; index++) pages.keep(nameOf(index), `page ${index}`);
    expect(pages.size).toBe(1024);
    expect([pages.get(nameOf(0)), pages.get(nameOf(1)), pages.get(nameOf(1024))]).toEqual([undefined, 'page 1', 'page 1024']);
  });

  it('forgets every page once the sealing key changes', () => {
    const pages = new SealedPages();
    const name = pages.nameOf(CLEAR, Buffer.from([1]), KEY) as string;
    pages.keep(name, 'page text');
    expect(pages.nameOf(CLEAR, Buffer.from([1]), {})).toBe(name);
    expect([pages.get(name), pages.size]).toEqual([undefined, 0]);
  });
});
