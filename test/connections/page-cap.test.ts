import { describe, expect, it } from '@jest/globals';
import { testConfig } from '../../src/settings/config.ts';
import { NO_OWNER } from '../../src/connections/owner-tag.ts';
import { capShownBy, encodeCursor, listConnection, paginate, PAGE_CAP_FLOOR, PAGE_CAP_TTL_MS, PagingFacts, type ListDescriptor } from '../../src/connections/index.ts';
import { pageCapFloor, plannedPageSize, RequestPageSize } from '../../src/connections/page-cap.ts';
import { createLogger } from '../../src/logger.ts';
import { item, type Item } from './keyed-platform.ts';
import type { PageRequest, PageResult, PagingOptions } from '../../src/connections/index.ts';
import { rows, type Row } from './fake-platform.ts';

const BINDING = 'exceptions';

/**
 * A platform that serves at most `cap` rows a page without saying so, as Spring Data does: page N
 * of the capped size, with hasNext and totalPages computed from it (either left out on request).
 */
function cappedPlatform(records: Row[], cap: number, envelope: { hasNext: boolean; totalPages: boolean } = { hasNext: true, totalPages: true }) {
  const requests: PageRequest[] = [];
  const fetchPage = async ({ page, size }: PageRequest): Promise<PageResult<Row>> => {
    requests.push({ page, size });
    const served = Math.min(size, cap);
    const totalPages = Math.ceil(records.length / served);
    return {
      items: records.slice(page * served, page * served + served),
      total: records.length,
      ...(envelope.hasNext && { hasNext: page + 1 < totalPages }),
      ...(envelope.totalPages && { totalPages }),
    };
  };
  return { requests, fetchPage };
}

function options(learned: number[]): PagingOptions {
  return { pageBase: 0, defaultSize: 20, maxSize: 100, upstreamMaxPageSize: 100, binding: BINDING, totals: 'always', onPageCap: (size) => learned.push(size) };
}

const ids = (list: readonly Row[]) => list.map((row) => row.id);

describe('a platform that silently caps page sizes', () => {
  it('places a full capped page where it belongs and fetches the rest with the learned size', async () => {
    const all = rows(300);
    const platform = cappedPlatform(all, 25);
    const learned: number[] = [];
    const page = await paginate({ first: 40 }, options(learned), platform.fetchPage);
    expect(ids(page.nodes)).toEqual(ids(all.slice(0, 40)));
    expect(platform.requests).toEqual([
      { page: 0, size: 40 },
      { page: 1, size: 20 },
    ]);
    expect(learned).toEqual([25]);
    expect([page.pageInfo.hasNextPage, page.totalCount]).toEqual([true, 300]);
  });

  it('places the rows of a capped page past the first where the capped size puts them', async () => {
    const all = rows(300);
    const platform = cappedPlatform(all, 25);
    const learned: number[] = [];
    const page = await paginate({ first: 30, after: encodeCursor(39, BINDING) }, options(learned), platform.fetchPage);
    expect(ids(page.nodes)).toEqual(ids(all.slice(40, 70)));
    // Page 1 of 25 holds rows 25..49: the window's rows 40..49 are among them; only 50..69 are asked for again, in one page of 24.
    expect(platform.requests).toEqual([
      { page: 1, size: 35 },
      { page: 2, size: 24 },
    ]);
    expect(learned).toEqual([25]);
  });

  it('recognises the capped last page instead of taking its rows for the ones after the cursor', async () => {
    const all = rows(60);
    const platform = cappedPlatform(all, 25);
    const learned: number[] = [];
    // Rows 60.. do not exist; page 2 of 30 would be them, but the platform serves page 2 of 25: rows 50..59.
    const page = await paginate({ first: 30, after: encodeCursor(59, BINDING) }, options(learned), platform.fetchPage);
    expect(page.nodes).toEqual([]);
    expect([page.pageInfo.hasNextPage, page.pageInfo.hasPreviousPage]).toEqual([false, true]);
    expect(platform.requests).toEqual([{ page: 2, size: 30 }]);
    expect(learned).toEqual([25]);
  });

  it('learns a safe lower bound from totalPages alone and reads the window again with it', async () => {
    const all = rows(110);
    const platform = cappedPlatform(all, 25, { hasNext: false, totalPages: true });
    const learned: number[] = [];
    const page = await paginate({ first: 40 }, options(learned), platform.fetchPage);
    expect(ids(page.nodes)).toEqual(ids(all.slice(0, 40)));
    // ceil(110 / 5 pages) = 22 <= 25: rows of a size the platform serves in full.
    expect(learned).toEqual([22]);
    expect(platform.requests).toEqual([
      { page: 0, size: 40 },
      { page: 0, size: 20 },
      { page: 1, size: 20 },
    ]);
  });

  it('takes an honest short last page for the end of the list', async () => {
    const all = rows(30);
    const platform = cappedPlatform(all, 100);
    const learned: number[] = [];
    const page = await paginate({ first: 20, after: encodeCursor(19, BINDING) }, options(learned), platform.fetchPage);
    expect(ids(page.nodes)).toEqual(ids(all.slice(20, 30)));
    expect(learned).toEqual([]);
    expect(platform.requests).toEqual([{ page: 1, size: 20 }]);
  });

  it('plans with a cap learned earlier from the first call on', async () => {
    const all = rows(300);
    const platform = cappedPlatform(all, 25);
    const page = await paginate({ first: 40, after: encodeCursor(7, BINDING) }, { ...options([]), upstreamMaxPageSize: 25 }, platform.fetchPage);
    expect(ids(page.nodes)).toEqual(ids(all.slice(8, 48)));
    expect(platform.requests.every((request) => request.size <= 25)).toBe(true);
    expect(platform.requests).toHaveLength(2);
  });
});

describe('what an answer shows of a cap', () => {
  const asked = { page: 2, size: 40 };

  it.each([
    ['full capped pages with hasNext', 25, 300, { hasNext: true, totalPages: 12 }, { size: 25, exact: true }],
    ['hasNext without totalPages', 25, 300, { hasNext: true }, { size: 25, exact: true }],
    ["the capped list's last page", 10, 60, { hasNext: false, totalPages: 3 }, { size: 25, exact: true }],
    ['totalPages alone, a lower bound', 25, 300, { totalPages: 12 }, { size: 25, exact: false }],
    ['totalPages alone, past the end of the capped list', 0, 30, { totalPages: 2 }, { size: 15, exact: false }],
  ] as const)('reads %s', (_, served, total, evidence, shown) => {
    expect(capShownBy(asked, served, total, evidence)).toEqual(shown);
  });

  it.each([
    ['a full page', 40, 300, { hasNext: true, totalPages: 8 }],
    ['a short page with nothing that tells a cap', 10, 300, {}],
    ["an honest last page", 10, 90, { hasNext: false, totalPages: 3 }],
    ['hasNext on a page that holds the last rows', 25, 75, { hasNext: true, totalPages: 3 }],
    ['hasNext with a totalPages of another size', 25, 300, { hasNext: true, totalPages: 20 }],
    ['totalPages no page size gives', 25, 300, { totalPages: 1e9 }],
    ['totalPages that disagrees with the rows served', 5, 300, { totalPages: 12 }],
    ['totalPages that disagrees with hasNext', 25, 300, { totalPages: 12, hasNext: false }],
    ['an empty page where the capped list has rows', 0, 60, { totalPages: 3 }],
  ] as const)('learns nothing from %s', (_, served, total, evidence) => {
    expect(capShownBy(asked, served, total, evidence)).toBeNull();
  });
});

describe('a learned cap', () => {
  const EXCEPTIONS = Array.from({ length: 300 }, (_, index) => item(300 - index));

  /** The platform's page envelope of `size` rows from page `page`, as Spring Data computes it. */
  function envelope(page: number, size: number) {
    const content = EXCEPTIONS.slice(page * size, page * size + size);
    const totalPages = Math.ceil(EXCEPTIONS.length / size);
    return { totalElements: EXCEPTIONS.length, totalPages, hasNext: page + 1 < totalPages, content };
  }

  /** A list descriptor over a platform serving at most `cap` rows a page, recording each request. */
  function cappedList(cap: number, requests: PageRequest[]): ListDescriptor<Item> {
    return {
      list: 'exceptions',
      pageBase: 0,
      totals: 'always',
      defaultSort: ['createdAt,DESC'],
      fetch: async (_client, _query, request): Promise<PageResult<Item>> => {
        requests.push(request);
        const { content, totalElements, hasNext, totalPages } = envelope(request.page, Math.min(cap, request.size));
        return { items: content, total: totalElements, hasNext, totalPages };
      },
    };
  }

  function context(paging: PagingFacts) {
    return { requestId: 'r1', config: testConfig(), logger: createLogger('silent'), platform: undefined as never, caller: NO_OWNER, paging };
  }

  it('expires, and the next request asks for the configured size again', async () => {
    let now = 1_000_000;
    const paging = new PagingFacts({ now: () => now });
    const requests: PageRequest[] = [];
    const capped = cappedList(25, requests);
    await listConnection(context(paging), capped, {}, { first: 40 });
    expect(paging.pageCap('exceptions')).toBe(25);
    requests.splice(0);

    now += PAGE_CAP_TTL_MS - 1;
    await listConnection(context(paging), capped, {}, { first: 40 });
    expect(requests).toEqual([
      { page: 0, size: 20 },
      { page: 1, size: 20 },
    ]);
    requests.splice(0);

    now += 1;
    expect(paging.pageCap('exceptions')).toBeUndefined();
    expect(paging.pageCaps()).toEqual(new Map());
    const honest = cappedList(1000, requests);
    const connection = await listConnection(context(paging), honest, {}, { first: 40 });
    expect(connection.nodes.map((row) => row.id)).toEqual(EXCEPTIONS.slice(0, 40).map((row) => row.id));
    expect(requests).toEqual([{ page: 0, size: 40 }]);
    expect(paging.pageCaps()).toEqual(new Map());
  });

  it('is lowered by a lower one and kept by a higher one', () => {
    let now = 0;
    const paging = new PagingFacts({ now: () => now, ttlMs: 100 });
    expect(paging.learnPageCap('linx', 50)).toBe(true);
    now = 60;
    expect(paging.learnPageCap('linx', 60)).toBe(false);
    expect(paging.learnPageCap('linx', 30)).toBe(true);
    expect(paging.learnPageCap('linx', 3)).toBe(true);
    expect(paging.pageCaps()).toEqual(new Map([['linx', PAGE_CAP_FLOOR]]));
    expect(paging.learnPageCap('linx', 2)).toBe(false);
    // Kept for the whole time from when it was last lowered.
    now = 159;
    expect(paging.pageCap('linx')).toBe(PAGE_CAP_FLOOR);
    now = 160;
    expect(paging.pageCap('linx')).toBeUndefined();
  });
});

describe('the page size a request plans with', () => {
  it('is the configured size, lowered by a cap no further than the floor', () => {
    expect(pageCapFloor(100)).toBe(PAGE_CAP_FLOOR);
    expect(pageCapFloor(7)).toBe(7);
    expect(plannedPageSize(100, Infinity)).toBe(100);
    expect(plannedPageSize(100, 25)).toBe(25);
    expect(plannedPageSize(100, 3)).toBe(PAGE_CAP_FLOOR);
    expect(plannedPageSize(7, 3)).toBe(7);
    expect(plannedPageSize(7, 25)).toBe(7);
  });

  it('goes down with every cap an answer of the request shows, and tells each', () => {
    const told: number[] = [];
    const size = new RequestPageSize(100, (cap) => told.push(cap));
    expect([size.configured, size.planned]).toEqual([100, 100]);
    size.shown(40);
    size.shown(60);
    expect([size.configured, size.planned]).toEqual([100, 40]);
    size.shown(2);
    expect(size.planned).toBe(PAGE_CAP_FLOOR);
    expect(told).toEqual([40, 60, 2]);
  });
});

describe('what an answer shows of a cap, at the edges', () => {
  it.each([
    ['an empty page with hasNext and nothing else', { page: 2, size: 40 }, 0, 300, { hasNext: true }, null],
    ["a capped list's last page, full", { page: 2, size: 40 }, 25, 75, { hasNext: false, totalPages: 3 }, { size: 25, exact: true }],
    ["a last page whose totalPages is of another size", { page: 2, size: 40 }, 10, 60, { hasNext: false, totalPages: 4 }, null],
    ['a last page of the first page', { page: 0, size: 40 }, 10, 10, { hasNext: false, totalPages: 1 }, null],
    ['an empty list', { page: 0, size: 40 }, 0, 0, { hasNext: false, totalPages: 0 }, null],
    ["a capped list's last page, an odd page number", { page: 3, size: 40 }, 10, 85, { hasNext: false, totalPages: 4 }, { size: 25, exact: true }],
    ["a capped list's last page, hasNext without totalPages", { page: 2, size: 40 }, 10, 60, { hasNext: false }, { size: 25, exact: true }],
    ['an empty page past the end, hasNext without totalPages', { page: 2, size: 40 }, 0, 60, { hasNext: false }, null],
    ['a short page with nothing else, where a capped last page would fit', { page: 2, size: 40 }, 10, 60, {}, null],
    ['a last page whose rows no whole page size explains', { page: 2, size: 40 }, 10, 61, { hasNext: false }, null],
    ['a last page that would need pages smaller than itself', { page: 2, size: 40 }, 30, 70, { hasNext: false }, null],
  ] as const)('reads %s', (_, page, served, total, evidence, shown) => {
    expect(capShownBy(page, served, total, evidence)).toEqual(shown);
  });

  it('lists no cap once it expired, whether or not it was asked for since', () => {
    let now = 0;
    const paging = new PagingFacts({ now: () => now, ttlMs: 100 });
    paging.learnPageCap('linx', 40);
    paging.learnPageCap('exceptions', 25);
    now = 50;
    paging.learnPageCap('exceptions', 20);
    now = 100;
    expect(paging.pageCaps()).toEqual(new Map([['exceptions', 20]]));
    now = 150;
    expect(paging.pageCaps()).toEqual(new Map());
  });

  it('keeps a cap learned again at the same size as it was', () => {
    const paging = new PagingFacts({ now: () => 0 });
    expect(paging.learnPageCap('linx', 40)).toBe(true);
    expect(paging.learnPageCap('linx', 40)).toBe(false);
    expect(paging.pageSizeFor('linx', 100)).toBe(40);
    expect(paging.pageSizeFor('linx', 30)).toBe(30);
    expect(paging.pageSizeFor('exceptions', 100)).toBe(100);
  });
});
