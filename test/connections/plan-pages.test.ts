import { describe, expect, it } from '@jest/globals';
import { planPages } from '../../src/connections/index.ts';

// Global lookups are slow inside the test runner's vm context, and the sweep below makes a million.
const { floor } = Math;

/** How many pages of `size` the window [offset, offset + count) touches. */
function pagesFor(offset: number, count: number, size: number): number {
  return floor((offset + count - 1) / size) - floor(offset / size) + 1;
}

/** Every mismatch between planPages and the rules, found by trying every size up to the cap. */
function violations(offset: number, count: number, cap: number): string[] {
  const plan = planPages(offset, count, cap);
  const where = `offset ${offset} count ${count} cap ${cap}`;
  const found: string[] = [];
  if (plan.length === 0) return [`${where} is empty`];
  const size = plan[0]!.size;
  if (size < 1 || size > cap) found.push(`${where} uses a size outside 1..cap`);
  plan.forEach((page, index) => {
    if (page.size !== size) found.push(`${where} mixes page sizes`);
    if (page.page !== plan[0]!.page + index) found.push(`${where} is not consecutive`);
  });
  const firstRow = plan[0]!.page * size;
  const endRow = (plan.at(-1)!.page + 1) * size;
  // Exactly covers: the window is inside the pages and every page holds some of the window.
  if (firstRow > offset || endRow < offset + count) found.push(`${where} does not cover the window`);
  if (firstRow + size <= offset || endRow - size >= offset + count) found.push(`${where} fetches a page outside the window`);

  const single: number[] = [];
  for (let s = count; s <= cap; s++) if (pagesFor(offset, count, s) === 1) single.push(s);
  if (single.length > 0) {
    if (plan.length !== 1) found.push(`${where} uses ${plan.length} pages although size ${single[0]} covers it in one`);
    else if (size !== single[0]) found.push(`${where} uses size ${size}, smallest single page is ${single[0]}`);
  } else {
    let fewest = Infinity;
    let smallest = 0;
    for (let s = 1; s <= cap; s++) {
      const pages = pagesFor(offset, count, s);
      if (pages < fewest) {
        fewest = pages;
        smallest = s;
      }
    }
    if (plan.length !== fewest) found.push(`${where} uses ${plan.length} pages, fewest is ${fewest}`);
    else if (size !== smallest) found.push(`${where} uses size ${size}, smallest with ${fewest} pages is ${smallest}`);
  }
  return found;
}

describe('planPages', () => {
  it.each([100, 7, 10])('plans every window of offset 0..60 and count 1..60 under cap %i', (cap) => {
    const found: string[] = [];
    let singlePages = 0;
    for (let offset = 0; offset <= 60; offset++) {
      for (let count = 1; count <= 60; count++) {
        const problems = violations(offset, count, cap);
        if (problems.length > 0) found.push(...problems, `  plan: ${JSON.stringify(planPages(offset, count, cap))}`);
        if (planPages(offset, count, cap).length === 1) singlePages++;
      }
    }
    expect(found).toEqual([]);
    // Guards the sweep itself: both the single-page and the fallback rule were exercised.
    expect(singlePages).toBeGreaterThan(0);
    expect(singlePages).toBeLessThan(61 * 60);
  });

  it('takes the smallest single page that holds the window, not one starting at zero', () => {
    expect(planPages(0, 20, 100)).toEqual([{ page: 0, size: 20 }]);
    expect(planPages(20, 20, 100)).toEqual([{ page: 1, size: 20 }]);
    expect(planPages(13, 3, 100)).toEqual([{ page: 3, size: 4 }]);
    expect(planPages(19, 2, 100)).toEqual([{ page: 6, size: 3 }]);
    expect(planPages(99, 2, 100)).toEqual([{ page: 33, size: 3 }]);
    expect(planPages(243, 8, 100)).toEqual([{ page: 27, size: 9 }]);
  });

  it('falls back to the fewest pages, then the smallest size, when no single page fits', () => {
    // Sizes 6 and 7 both straddle; 4 is the smallest size that needs only two pages.
    expect(planPages(5, 6, 7)).toEqual([
      { page: 1, size: 4 },
      { page: 2, size: 4 },
    ]);
    expect(planPages(0, 101, 100)).toEqual([
      { page: 0, size: 51 },
      { page: 1, size: 51 },
    ]);
    expect(planPages(0, 60, 7)).toEqual(Array.from({ length: 9 }, (_, page) => ({ page, size: 7 })));
  });

  it('plans nothing for an empty window and refuses nonsense', () => {
    expect(planPages(5, 0, 100)).toEqual([]);
    expect(() => planPages(-1, 1, 100)).toThrow(RangeError);
    expect(() => planPages(0, 1.5, 100)).toThrow(RangeError);
    expect(() => planPages(0, 1, 0)).toThrow(RangeError);
  });

  it('names the argument it refuses and the value it got', () => {
    expect(() => planPages(-1, 1, 100)).toThrow(new RangeError('offset must be a non-negative integer, got -1'));
    expect(() => planPages(0, 1.5, 100)).toThrow(new RangeError('count must be a non-negative integer, got 1.5'));
    expect(() => planPages(0, 1, 0)).toThrow(new RangeError('upstreamMaxPageSize must be a positive integer, got 0'));
  });

  it('plans pages of one row under a maximum page size of 1', () => {
    expect(planPages(4, 3, 1)).toEqual([
      { page: 4, size: 1 },
      { page: 5, size: 1 },
      { page: 6, size: 1 },
    ]);
  });
});
