import { describe, expect, it } from '@jest/globals';
import { GraphQLError } from 'graphql';
import { encodeCursor, paginate, planPages } from '../../src/connections/index.ts';
import type { Connection, ConnectionArgs, PageRequest, PagingOptions } from '../../src/connections/index.ts';
import { FakePlatform, rows } from './fake-platform.ts';
import type { Row, Shape } from './fake-platform.ts';

const BINDING = 'linx?status=NEW&sort=createdAt,DESC';
const cursors = new Map<number, string>();
/** The cursor of a position, made once: the walks below compare thousands of edges. */
function at(position: number): string {
  let cursor = cursors.get(position);
  if (cursor === undefined) cursors.set(position, (cursor = encodeCursor(position, BINDING)));
  return cursor;
}

interface Variant {
  pageBase: 0 | 1;
  shape: Shape;
  totals: 'always' | 'sometimes';
}

const VARIANTS: Variant[] = [
  { pageBase: 0, shape: 'envelope', totals: 'always' },
  { pageBase: 1, shape: 'envelope', totals: 'always' },
  { pageBase: 0, shape: 'bare', totals: 'sometimes' },
  { pageBase: 1, shape: 'bare', totals: 'sometimes' },
];

function setup(records: Row[], variant: Variant, cap = 100, overrides: Partial<PagingOptions> = {}) {
  const platform = new FakePlatform(records, { pageBase: variant.pageBase, shape: variant.shape, maxPageSize: cap });
  const options: PagingOptions = {
    pageBase: variant.pageBase,
    defaultSize: 20,
    maxSize: 100,
    upstreamMaxPageSize: cap,
    binding: BINDING,
    totals: variant.totals,
    ...overrides,
  };
  const page = (args: ConnectionArgs) => paginate(args, options, platform.fetchPage);
  return { platform, options, page };
}

/** The connection for positions [start, end) of `all`, with pageInfo read off the full list. */
function expected(all: Row[], start: number, end: number, shape: Shape): Connection<Row> {
  const nodes = all.slice(start, end);
  const edges = nodes.map((node, index) => ({ cursor: at(start + index), node }));
  return {
    edges,
    nodes,
    pageInfo: {
      hasNextPage: end < all.length,
      hasPreviousPage: start > 0 && all.length > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount: shape === 'envelope' ? all.length : null,
  };
}

/** The requests a window of `count` rows at `offset` must cost, in the endpoint's base. */
function planned(offset: number, count: number, cap: number, pageBase: 0 | 1): PageRequest[] {
  return planPages(offset, count, cap).map(({ page, size }) => ({ page: page + pageBase, size }));
}

/**
 * The requests a window costs on a list of `length` rows: the plan's first page alone, then the rest
 * of the plan up to the end that first answer shows (its total, or a short page of a bare answer).
 */
function plannedUpToEnd(offset: number, count: number, cap: number, variant: Variant, length: number): PageRequest[] {
  const [head, ...rest] = planPages(offset, count, cap);
  if (head === undefined) return [];
  const served = Math.max(0, Math.min(head.size, length - head.page * head.size));
  const end = variant.totals === 'always' ? length : served < head.size ? head.page * head.size + served : Infinity;
  return [head, ...rest.filter((page) => page.page * page.size < end)].map(({ page, size }) => ({ page: page + variant.pageBase, size }));
}

/** Whether one page of some size up to the cap holds the window, so exactly one call is due. */
function onePageFits(offset: number, count: number, cap: number): boolean {
  for (let size = count; size <= cap; size++) {
    if (Math.floor(offset / size) === Math.floor((offset + count - 1) / size)) return true;
  }
  return false;
}

/** JSON with object keys sorted, so two equal values always print the same. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1)))
      : item,
  );
}

/**
 * The steps of a walk through a list, compared once at the end as one line per step: deep equality
 * on thousands of connections would dominate the suite's run time, and a line diff still names the
 * step (by its window start) and shows what differs.
 */
class Walk {
  readonly #actual: string[] = [];
  readonly #expected: string[] = [];

  step(
    start: number,
    connection: Connection<Row>,
    requests: PageRequest[],
    wanted: Connection<Row>,
    wantedRequests: PageRequest[],
    oneCallDue: boolean,
  ): void {
    this.#actual.push(`${start} ${canonical({ connection, requests, calls: requests.length })}`);
    this.#expected.push(
      `${start} ${canonical({ connection: wanted, requests: wantedRequests, calls: oneCallDue ? 1 : wantedRequests.length })}`,
    );
  }

  check(): void {
    expect(this.#actual).toEqual(this.#expected);
  }
}

function emptyPage(hasNextPage: boolean, hasPreviousPage: boolean, totalCount: number | null): Connection<Row> {
  return { edges: [], nodes: [], pageInfo: { hasNextPage, hasPreviousPage, startCursor: null, endCursor: null }, totalCount };
}

async function rejection(run: () => Promise<unknown>): Promise<GraphQLError> {
  const error = await run().then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(GraphQLError);
  expect((error as GraphQLError).extensions.code).toBe('BAD_USER_INPUT');
  return error as GraphQLError;
}

describe.each(VARIANTS)('walking whole lists: pageBase $pageBase, $shape answers, totals $totals', (variant) => {
  const lookAhead = variant.totals === 'sometimes' ? 1 : 0;
  const cases: Array<[number, number, number]> = [];
  for (const length of [0, 1, 7, 20, 61, 250]) {
    for (const n of [1, 7, 100]) cases.push([length, n, 100]);
    // Upstream pages smaller than the window force the multi-page fallback; single rows never need it.
    for (const n of [7, 100]) cases.push([length, n, 7]);
  }

  it.each(cases)('forwards through %i records, first %i, upstream pages up to %i', async (length, n, cap) => {
    const all = rows(length);
    const { platform, page } = setup(all, variant, cap);
    const walk = new Walk();
    const seen: Row[] = [];
    let start = 0;
    for (;;) {
      const connection = await page({ first: n, after: start === 0 ? null : at(start - 1) });
      const window = expected(all, start, Math.min(start + n, length), variant.shape);
      walk.step(start, connection, platform.take(), window, plannedUpToEnd(start, n + lookAhead, cap, variant, length), onePageFits(start, n + lookAhead, cap));
      seen.push(...connection.nodes);
      if (!connection.pageInfo.hasNextPage) break;
      start += n;
    }
    walk.check();
    expect(seen).toEqual(all);
  });

  it.each(cases)('backwards through %i records, last %i, upstream pages up to %i', async (length, n, cap) => {
    const all = rows(length);
    const { platform, page } = setup(all, variant, cap);
    const walk = new Walk();

    // The first step has to find the end of the list.
    let end = length;
    let start = Math.max(0, end - n);
    let connection = await page({ last: n });
    // With totals: one row for totalElements, then the window unless that row already was the whole
    // window. Without: full pages until one comes back short, and the window is inside what was read.
    const findEnd =
      variant.totals === 'always'
        ? [{ page: variant.pageBase, size: 1 }, ...(end > 1 ? planned(start, end - start, cap, variant.pageBase) : [])]
        : Array.from({ length: Math.floor(length / cap) + 1 }, (_, index) => ({ page: index + variant.pageBase, size: cap }));
    walk.step(start, connection, platform.take(), expected(all, start, end, variant.shape), findEnd, false);
    const seen = [...connection.nodes];

    while (connection.pageInfo.hasPreviousPage) {
      end = start;
      start = Math.max(0, end - n);
      connection = await page({ last: n, before: connection.pageInfo.startCursor });
      const window = expected(all, start, end, variant.shape);
      const count = end - start + lookAhead;
      walk.step(start, connection, platform.take(), window, planned(start, count, cap, variant.pageBase), onePageFits(start, count, cap));
      seen.unshift(...connection.nodes);
    }
    walk.check();
    expect(start).toBe(0);
    expect(seen).toEqual(all);
  });
});

const ENVELOPE: Variant = { pageBase: 0, shape: 'envelope', totals: 'always' };
const BARE_ONE_BASED: Variant = { pageBase: 1, shape: 'bare', totals: 'sometimes' };

describe('argument errors, raised before any upstream call', () => {
  it('refuses first together with last', async () => {
    const { platform, page } = setup(rows(20), ENVELOPE);
    const error = await rejection(() => page({ first: 5, last: 5 }));
    expect(error.message).toBe('first and last cannot be used together; pass first to page forwards or last to page backwards');
    expect(platform.requests).toEqual([]);
  });

  it.each([
    ['first', -1],
    ['first', 101],
    ['first', 2.5],
    ['last', -1],
    ['last', 101],
  ] as const)('refuses %s: %d', async (name, value) => {
    const { platform, page } = setup(rows(20), ENVELOPE);
    const error = await rejection(() => page({ [name]: value }));
    expect(error.message).toBe(`${name} must be between 0 and 100, got ${value}`);
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', argumentName: name });
    expect(platform.requests).toEqual([]);
  });

  it('checks sizes against the configured maximum', async () => {
    const { page } = setup(rows(20), ENVELOPE, 100, { maxSize: 50 });
    expect((await rejection(() => page({ last: 51 }))).message).toBe('last must be between 0 and 50, got 51');
    expect((await page({ last: 50 })).nodes).toEqual(rows(20));
  });

  it('refuses a garbage cursor', async () => {
    const { platform, page } = setup(rows(20), BARE_ONE_BASED);
    const error = await rejection(() => page({ first: 5, after: 'not-a-cursor' }));
    expect(error.message).toBe(
      'after is not a cursor of this connection; pass a startCursor, endCursor or edge cursor from a previous page, or restart paging without it',
    );
    expect(platform.requests).toEqual([]);
  });

  it('refuses a cursor from another filter or order', async () => {
    const { platform, page } = setup(rows(20), BARE_ONE_BASED);
    const foreign = encodeCursor(4, 'linx?status=FAILED&sort=createdAt,DESC');
    const error = await rejection(() => page({ last: 5, before: foreign }));
    expect(error.message).toBe('before cursor does not belong to this filter/order; restart paging without it');
    expect(platform.requests).toEqual([]);
  });

  it('refuses nonsensical options as a programming error, not a client one', async () => {
    const fetchPage = new FakePlatform([], { pageBase: 0, shape: 'envelope', maxPageSize: 100 }).fetchPage;
    const base: PagingOptions = { pageBase: 0, defaultSize: 20, maxSize: 100, upstreamMaxPageSize: 100, binding: BINDING };
    await expect(paginate({}, { ...base, defaultSize: 101 }, fetchPage)).rejects.toThrow(TypeError);
    await expect(paginate({}, { ...base, upstreamMaxPageSize: 0 }, fetchPage)).rejects.toThrow(TypeError);
    await expect(paginate({}, { ...base, pageBase: 2 as 0 }, fetchPage)).rejects.toThrow(TypeError);
  });
});

describe('windows', () => {
  it('uses the default size when neither first nor last is given', async () => {
    const all = rows(61);
    const { platform, page } = setup(all, ENVELOPE);
    expect(await page({})).toEqual(expected(all, 0, 20, 'envelope'));
    expect(platform.take()).toEqual([{ page: 0, size: 20 }]);
    expect(await page({ after: at(19) })).toEqual(expected(all, 20, 40, 'envelope'));
    expect(platform.take()).toEqual([{ page: 1, size: 20 }]);
  });

  describe.each([ENVELOPE, BARE_ONE_BASED])('after and before together, pageBase $pageBase, $shape answers', (variant) => {
    const all = rows(20);

    it.each([
      [{ first: 3 }, 6, 9],
      [{ first: 10 }, 6, 12],
      [{ last: 3 }, 9, 12],
      [{ last: 10 }, 6, 12],
    ])('%j between records 5 and 12', async (size, start, end) => {
      const { platform, page } = setup(all, variant);
      const connection = await page({ ...size, after: at(5), before: at(12) });
      // Record 12 itself follows every one of these windows, so each has a next page.
      expect(connection.pageInfo.hasNextPage).toBe(true);
      expect(connection).toEqual(expected(all, start, end, variant.shape));
      expect(platform.requests).toHaveLength(1);
    });

    it('gives an empty page between crossed cursors, with records on both sides', async () => {
      const { platform, page } = setup(all, variant);
      const totalCount = variant.shape === 'envelope' ? 20 : null;
      expect(await page({ first: 3, after: at(12), before: at(5) })).toEqual(emptyPage(true, true, totalCount));
      expect(await page({ last: 3, after: at(18), before: at(19) })).toEqual(emptyPage(true, true, totalCount));
      expect(platform.requests).toHaveLength(2);
    });
  });
});

describe('first: 0 and last: 0', () => {
  it('answers first: 0 from one single-row page on an envelope endpoint', async () => {
    const { platform, page } = setup(rows(20), ENVELOPE);
    expect(await page({ first: 0 })).toEqual(emptyPage(true, false, 20));
    expect(platform.take()).toEqual([{ page: 0, size: 1 }]);
    expect(await page({ first: 0, after: at(19) })).toEqual(emptyPage(false, true, 20));
    expect(platform.take()).toEqual([{ page: 20, size: 1 }]);
    expect(await page({ first: 0, after: at(9) })).toEqual(emptyPage(true, true, 20));
    expect(platform.take()).toEqual([{ page: 10, size: 1 }]);
  });

  it('answers first: 0 in one call on a bare-array endpoint, reading the rows on both sides of the gap', async () => {
    const { platform, page } = setup(rows(20), BARE_ONE_BASED);
    expect(await page({ first: 0 })).toEqual(emptyPage(true, false, null));
    expect(platform.take()).toEqual([{ page: 1, size: 1 }]);
    // Rows 19 and 20 share page 6 of size 3: 19 exists, 20 does not.
    expect(await page({ first: 0, after: at(19) })).toEqual(emptyPage(false, true, null));
    expect(platform.take()).toEqual([{ page: 7, size: 3 }]);
    expect(await page({ first: 0, after: at(9) })).toEqual(emptyPage(true, true, null));
    expect(platform.take()).toHaveLength(1);
  });

  it('answers first: 0 on an empty list', async () => {
    for (const variant of [ENVELOPE, BARE_ONE_BASED]) {
      const { platform, page } = setup([], variant);
      expect(await page({ first: 0 })).toEqual(emptyPage(false, false, variant.shape === 'envelope' ? 0 : null));
      expect(platform.requests).toEqual([{ page: variant.pageBase, size: 1 }]);
    }
  });

  it('answers last: 0 without before from what finds the end of the list', async () => {
    const envelope = setup(rows(20), ENVELOPE);
    expect(await envelope.page({ last: 0 })).toEqual(emptyPage(false, true, 20));
    expect(envelope.platform.requests).toEqual([{ page: 0, size: 1 }]);
    const bare = setup(rows(20), BARE_ONE_BASED);
    expect(await bare.page({ last: 0 })).toEqual(emptyPage(false, true, null));
    expect(bare.platform.requests).toEqual([{ page: 1, size: 100 }]);
    const empty = setup([], ENVELOPE);
    expect(await empty.page({ last: 0 })).toEqual(emptyPage(false, false, 0));
  });

  it('answers last: 0 before a cursor in one call', async () => {
    const envelope = setup(rows(20), ENVELOPE);
    expect(await envelope.page({ last: 0, before: at(5) })).toEqual(emptyPage(true, true, 20));
    expect(envelope.platform.requests).toEqual([{ page: 5, size: 1 }]);
    const bare = setup(rows(20), BARE_ONE_BASED);
    expect(await bare.page({ last: 0, before: at(5) })).toEqual(emptyPage(true, true, null));
    expect(bare.platform.requests).toHaveLength(1);
  });
});

describe('last without before', () => {
  const all = rows(250);

  it('reads totalElements from a one-row page, then fetches the window in one call', async () => {
    const { platform, page } = setup(all, { pageBase: 1, shape: 'envelope', totals: 'always' });
    expect(await page({ last: 7 })).toEqual(expected(all, 243, 250, 'envelope'));
    expect(platform.requests).toEqual([
      { page: 1, size: 1 },
      { page: 28, size: 9 },
    ]);
  });

  it('walks a bare-array list in full pages until one comes back short', async () => {
    const { platform, page } = setup(all, BARE_ONE_BASED);
    expect(await page({ last: 7 })).toEqual(expected(all, 243, 250, 'bare'));
    expect(platform.requests).toEqual([
      { page: 1, size: 100 },
      { page: 2, size: 100 },
      { page: 3, size: 100 },
    ]);
  });

  it('walks only from the page holding after', async () => {
    const { platform, page } = setup(all, BARE_ONE_BASED);
    expect(await page({ last: 10, after: at(215) })).toEqual(expected(all, 240, 250, 'bare'));
    expect(platform.requests).toEqual([{ page: 3, size: 100 }]);
  });

  it('keeps the window inside after', async () => {
    const short = rows(20);
    const envelope = setup(short, ENVELOPE);
    expect(await envelope.page({ last: 10, after: at(15) })).toEqual(expected(short, 16, 20, 'envelope'));
    expect(envelope.platform.requests).toEqual([
      { page: 0, size: 1 },
      { page: 4, size: 4 },
    ]);
    const bare = setup(short, BARE_ONE_BASED);
    expect(await bare.page({ last: 10, after: at(15) })).toEqual(expected(short, 16, 20, 'bare'));
    expect(bare.platform.requests).toEqual([{ page: 1, size: 100 }]);
  });

  it('stops walking as soon as a response carries a total', async () => {
    const { platform, page } = setup(all, { pageBase: 0, shape: 'envelope', totals: 'sometimes' });
    expect(await page({ last: 7 })).toEqual(expected(all, 243, 250, 'envelope'));
    expect(platform.requests).toEqual([
      { page: 0, size: 100 },
      { page: 27, size: 9 },
    ]);
  });

  it('refuses to walk past maxWalkRecords, telling the client how to page instead', async () => {
    // A platform that ignores `page` never ends: the walk must not either.
    const platform = new FakePlatform(rows(150), { pageBase: 1, shape: 'bare', maxPageSize: 100 });
    const fetchPage = platform.fetchPage;
    const endless = (request: PageRequest) => fetchPage({ ...request, page: 1 });
    const error = await rejection(() =>
      paginate({ last: 5 }, { pageBase: 1, defaultSize: 20, maxSize: 100, upstreamMaxPageSize: 100, binding: BINDING, maxWalkRecords: 1000 }, endless),
    );
    expect(error.message).toBe(
      'last without before has to read this list to its end, and it is longer than 1000 records; pass before, or page forwards with first and after',
    );
    expect(platform.requests).toHaveLength(11);
    const long = rows(1000);
    const within = setup(long, BARE_ONE_BASED, 100, { maxWalkRecords: 1000 });
    expect(await within.page({ last: 5 })).toEqual(expected(long, 995, 1000, 'bare'));
    expect(within.platform.requests).toHaveLength(11);
  });
});

describe('a platform that does not answer as asked', () => {
  it('ignores rows past the requested page size', async () => {
    // A platform that repeats each page: whatever follows the requested rows belongs to no position.
    const repeating = (platform: FakePlatform) => async (request: PageRequest) => {
      const result = await platform.fetchPage(request);
      return { ...result, items: [...result.items, ...result.items] };
    };
    const envelopeRows = rows(10);
    const envelope = setup(envelopeRows, ENVELOPE);
    expect(await paginate({ first: 7, after: at(2) }, envelope.options, repeating(envelope.platform))).toEqual(
      expected(envelopeRows, 3, 10, 'envelope'),
    );
    expect(envelope.platform.requests).toEqual([{ page: 0, size: 10 }]);
    const bareRows = rows(100);
    const bare = setup(bareRows, BARE_ONE_BASED);
    expect(await paginate({ last: 3 }, bare.options, repeating(bare.platform))).toEqual(expected(bareRows, 97, 100, 'bare'));
    expect(bare.platform.requests).toEqual([
      { page: 1, size: 100 },
      { page: 2, size: 100 },
    ]);
  });

  it('returns what still exists when the list shrank under a cursor', async () => {
    for (const variant of [ENVELOPE, BARE_ONE_BASED]) {
      const { platform, page } = setup(rows(20), variant);
      const after = (await page({ first: 16 })).pageInfo.endCursor;
      platform.records = rows(10);
      platform.take();
      expect(await page({ first: 5, after })).toEqual(emptyPage(false, true, variant.shape === 'envelope' ? 10 : null));
      // Without a total, only a look at the first row tells whether anything precedes the empty page.
      expect(platform.take()).toHaveLength(variant.shape === 'envelope' ? 1 : 2);
      platform.records = [];
      expect(await page({ first: 5, after })).toEqual(emptyPage(false, false, variant.shape === 'envelope' ? 0 : null));
    }
  });

  it('ends the page where the rows stop when the list shrank inside the window', async () => {
    for (const variant of [ENVELOPE, BARE_ONE_BASED]) {
      const { platform, page } = setup(rows(20), variant);
      platform.records = rows(9);
      expect(await page({ first: 7, after: at(4) })).toEqual(expected(rows(9), 5, 9, variant.shape));
    }
  });

  it('believes a short page over a totalElements that promises more', async () => {
    const all = rows(20);
    const { platform } = setup(all, ENVELOPE);
    const inflated = async (request: PageRequest) => ({ ...(await platform.fetchPage(request)), total: 30 });
    const options: PagingOptions = { pageBase: 0, defaultSize: 20, maxSize: 100, upstreamMaxPageSize: 100, binding: BINDING, totals: 'always' };
    const connection = await paginate({ first: 7, after: at(14) }, options, inflated);
    expect(connection).toEqual({ ...expected(all, 15, 20, 'envelope'), totalCount: 30 });
    expect(platform.requests).toEqual([{ page: 1, size: 11 }]);
  });

  it('stays exact when an endpoint said to report totals answers a bare array', async () => {
    const all = rows(20);
    const { platform, page } = setup(all, { pageBase: 1, shape: 'bare', totals: 'always' });
    expect(await page({ first: 7 })).toEqual(expected(all, 0, 7, 'bare'));
    expect(platform.take()).toEqual([
      { page: 1, size: 7 },
      { page: 8, size: 1 },
    ]);
    expect(await page({ first: 7, after: at(13) })).toEqual(expected(all, 14, 20, 'bare'));
    expect(platform.take()).toEqual([{ page: 3, size: 7 }]);
    expect(await page({ last: 7 })).toEqual(expected(all, 13, 20, 'bare'));
    expect(platform.take()).toEqual([
      { page: 1, size: 1 },
      { page: 1, size: 100 },
    ]);
  });

  it('passes upstream failures through untouched', async () => {
    const failure = new Error('platform unavailable');
    const options: PagingOptions = { pageBase: 0, defaultSize: 20, maxSize: 100, upstreamMaxPageSize: 100, binding: BINDING };
    await expect(paginate({ first: 5 }, options, () => Promise.reject(failure))).rejects.toBe(failure);
  });
});
