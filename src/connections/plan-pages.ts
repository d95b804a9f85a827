import type { PageRequest } from './types.ts';

// A module binding: the size search below runs up to upstreamMaxPageSize times per window, and a global
// lookup per iteration is many times slower inside vm contexts such as the test runner's.
const { floor } = Math;

/**
 * Zero-based pages of one size that together cover positions [offset, offset + count).
 *
 * Every page is one upstream call, so the plan takes the fewest pages any size up to
 * `upstreamMaxPageSize` allows, and among those the smallest size, which fetches the fewest rows
 * outside the window. Whenever a single page can cover the window this is the smallest size s ≥ count
 * with floor(offset / s) == floor((offset + count - 1) / s).
 */
export function planPages(offset: number, count: number, upstreamMaxPageSize: number): PageRequest[] {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`offset must be a non-negative integer, got ${offset}`);
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer, got ${count}`);
  if (!Number.isSafeInteger(upstreamMaxPageSize) || upstreamMaxPageSize < 1) {
    throw new RangeError(`upstreamMaxPageSize must be a positive integer, got ${upstreamMaxPageSize}`);
  }
  if (count === 0) return [];
  const last = offset + count - 1;
  let bestSize = 1;
  let bestPages = Infinity;
  // Sizes below count never give a single page, but can give the fewest pages when no size does.
  for (let size = 1; size <= upstreamMaxPageSize; size++) {
    const pages = floor(last / size) - floor(offset / size) + 1;
    if (pages < bestPages) {
      bestPages = pages;
      bestSize = size;
      if (pages === 1) break;
    }
  }
  const firstPage = floor(offset / bestSize);
  return Array.from({ length: bestPages }, (_, index) => ({ page: firstPage + index, size: bestSize }));
}

/**
 * At most the pages planPages gives for `count` positions at any offset: pages of
 * `upstreamMaxPageSize` alone never take more than this, and the plan takes no more pages than they would.
 */
export function mostPages(count: number, upstreamMaxPageSize: number): number {
  return count === 0 ? 0 : floor((count - 1) / upstreamMaxPageSize) + 2;
}
