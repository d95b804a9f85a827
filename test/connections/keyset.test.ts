import { afterEach, describe, expect, it } from '@jest/globals';
import type { GraphQLError } from 'graphql';
import { useCursorSecret } from '../../src/connections/cursor-seal.ts';
import { encodeAnchoredCursor, paginate, planPages, readCursor } from '../../src/connections/index.ts';
import type { AnchorOutcome, Connection, ConnectionArgs, PageRequest, PagingOptions } from '../../src/connections/index.ts';
import { DEFAULT_ORDER, KeyedPlatform, item, type Item } from './keyed-platform.ts';

// Every test here pages with an order, as production always does (the area's orderBy or the
// platform's default createdAt DESC, then id): cursors are anchored to their record.

const BINDING = 'exceptions?sort=createdAt%2CDESC';

interface Setup {
  pageBase: 0 | 1;
  totals: boolean;
}

const ENVELOPE: Setup = { pageBase: 0, totals: true };
const BARE: Setup = { pageBase: 1, totals: false };

function keyset(platform: KeyedPlatform, setup: Setup = ENVELOPE, overrides: Partial<PagingOptions> = {}) {
  const outcomes: AnchorOutcome[] = [];
  const options: PagingOptions = {
    pageBase: setup.pageBase,
    defaultSize: 20,
    maxSize: 100,
    upstreamMaxPageSize: 100,
    binding: BINDING,
    totals: setup.totals ? 'always' : 'sometimes',
    order: DEFAULT_ORDER,
    onAnchor: (outcome) => outcomes.push(outcome),
    ...overrides,
  };
  const page = (args: ConnectionArgs): Promise<Connection<Item>> => paginate(args, options, platform.fetchPage);
  return { page, outcomes, options };
}

/** The cursor the gateway hands out for `record` at `position`. */
function cursorOf(record: Item, position: number): string {
  return encodeAnchoredCursor(position, { id: record.id, keys: [record.createdAt, record.id] }, BINDING);
}

/** A cursor on the record now at `position` of the platform's list. */
function cursorAt(platform: KeyedPlatform, position: number): string {
  return cursorOf(platform.items[position]!, position);
}

const idsOf = (connection: Connection<Item>) => connection.nodes.map((node) => node.id);

function pageInfoOf(connection: Connection<Item>) {
  const { hasNextPage, hasPreviousPage } = connection.pageInfo;
  return { hasNextPage, hasPreviousPage, totalCount: connection.totalCount };
}

/** Newest records, `count` of them, created after every seeded one. */
function newest(from: number, count: number): Item[] {
  return Array.from({ length: count }, (_, index) => item(from + index, 10_000 + from + index));
}

/** The calls of a plan whose pages after the first are asked only up to the end the first answer shows. */
function callsUpToEnd(plan: readonly { page: number; size: number }[], setup: Setup, length: number): number {
  const [head, ...rest] = plan;
  if (head === undefined) return 0;
  const served = Math.max(0, Math.min(head.size, length - head.page * head.size));
  const end = setup.totals ? length : served < head.size ? head.page * head.size + served : Infinity;
  return 1 + rest.filter((page) => page.page * page.size < end).length;
}

describe.each([
  ['envelope answers, zero-based pages', ENVELOPE],
  ['bare answers, one-based pages', BARE],
] as const)('walking an unchanging list in the default order: %s', (_, setup) => {
  const lookAhead = setup.totals ? 0 : 1;
  const cases: [number, number][] = [];
  for (const length of [0, 1, 7, 61, 250]) for (const n of [1, 7, 98, 100]) cases.push([length, n]);

  it.each(cases)('forwards through %i records, first %i', async (length, n) => {
    const platform = KeyedPlatform.seeded(length, setup);
    const { page, outcomes } = keyset(platform, setup);
    const all = platform.ids();
    const seen: string[] = [];
    let after: string | null = null;
    for (let start = 0; ; start += n) {
      const connection: Connection<Item> = await page({ first: n, after });
      const requests = platform.take();
      expect(idsOf(connection)).toEqual(all.slice(start, start + n));
      expect(pageInfoOf(connection)).toEqual({ hasNextPage: start + n < length, hasPreviousPage: start > 0 && length > 0, totalCount: setup.totals ? length : null });
      expect([connection.pageInfo.startCursor, connection.pageInfo.endCursor]).toEqual([connection.edges[0]?.cursor ?? null, connection.edges.at(-1)?.cursor ?? null]);
      // The anchor's row rides along only when it costs no call: as many calls as the window alone,
      // but none for a page past the end the plan's first answer shows.
      expect(requests).toHaveLength(callsUpToEnd(planPages(start, n + lookAhead, 100), setup, length));
      if (after !== null) {
        const anchorRead = requests.some(({ page: index, size }) => (index - setup.pageBase) * size <= start - 1 && start - 1 < (index - setup.pageBase + 1) * size);
        expect(outcomes.splice(0)).toEqual([anchorRead ? 'exact' : 'unverified']);
      }
      seen.push(...idsOf(connection));
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(seen).toEqual(all);
  });

  it.each(cases)('backwards through %i records, last %i', async (length, n) => {
    const platform = KeyedPlatform.seeded(length, setup);
    const { page, outcomes } = keyset(platform, setup);
    const all = platform.ids();
    const seen: string[] = [];
    let before: string | null = null;
    for (let end = length; ; end -= n) {
      const connection: Connection<Item> = await page(before === null ? { last: n } : { last: n, before });
      const start = Math.max(0, end - n);
      expect(idsOf(connection)).toEqual(all.slice(start, end));
      expect(pageInfoOf(connection)).toEqual({ hasNextPage: end < length, hasPreviousPage: start > 0, totalCount: setup.totals ? length : null });
      const requests = platform.take();
      if (before !== null) {
        expect(requests).toHaveLength(planPages(start, end - start + lookAhead, 100).length);
        const anchorRead = requests.some(({ page: index, size }) => (index - setup.pageBase) * size <= end && end < (index - setup.pageBase + 1) * size);
        expect(outcomes.splice(0)).toEqual([anchorRead ? 'exact' : 'unverified']);
      }
      seen.unshift(...idsOf(connection));
      if (!connection.pageInfo.hasPreviousPage) break;
      before = connection.pageInfo.startCursor;
    }
    expect(seen).toEqual(all);
  });
});

describe('last without before when the list changes length between its calls', () => {
  it('ends the window where the list ends now when rows arrived at its end', async () => {
    const platform = KeyedPlatform.seeded(30, ENVELOPE);
    const { page } = keyset(platform);
    // After the one-row call that reports 30 rows, two older records arrive: the list ends at 32.
    platform.beforeCall(1, () => platform.insert(item(101, 0.5), item(102, 0.25)));
    const connection = await page({ last: 5 });
    expect(idsOf(connection)).toEqual(platform.ids(27, 32));
    expect(pageInfoOf(connection)).toEqual({ hasNextPage: false, hasPreviousPage: true, totalCount: 32 });
    expect(platform.take()).toEqual([
      { page: 0, size: 1 },
      { page: 5, size: 5 },
      // The rows the moved window lacks, joined at row 29 which both calls read.
      { page: 7, size: 4 },
    ]);
  });

  it('ends the window where the list ends now when rows left its end', async () => {
    const platform = KeyedPlatform.seeded(30, ENVELOPE);
    const { page } = keyset(platform);
    platform.beforeCall(1, () => platform.remove(platform.items[28]!.id, platform.items[29]!.id));
    const connection = await page({ last: 5 });
    expect(idsOf(connection)).toEqual(platform.ids(23, 28));
    expect(pageInfoOf(connection)).toEqual({ hasNextPage: false, hasPreviousPage: true, totalCount: 28 });
    expect(platform.take()).toEqual([
      { page: 0, size: 1 },
      { page: 5, size: 5 },
      // Rows 23 and 24, read with row 25 to join them where it is.
      { page: 3, size: 7 },
    ]);
  });

  it('keeps the window where the first call put it when the connection has no order', async () => {
    const platform = KeyedPlatform.seeded(30, ENVELOPE);
    const { page } = keyset(platform, ENVELOPE, { order: [] });
    platform.beforeCall(1, () => platform.insert(item(101, 0.5), item(102, 0.25)));
    const connection = await page({ last: 5 });
    expect(idsOf(connection)).toEqual(platform.ids(25, 30));
    expect(pageInfoOf(connection)).toEqual({ hasNextPage: true, hasPreviousPage: true, totalCount: 32 });
  });

  it('keeps the window inside after when the list shrank to before it', async () => {
    const platform = KeyedPlatform.seeded(30, ENVELOPE);
    const { page } = keyset(platform);
    const after = cursorAt(platform, 26);
    platform.take();
    platform.beforeCall(1, () => platform.remove(...platform.ids(20, 30)));
    const connection = await page({ last: 5, after });
    expect(idsOf(connection)).toEqual([]);
    expect(pageInfoOf(connection)).toEqual({ hasNextPage: false, hasPreviousPage: true, totalCount: 20 });
  });
});

describe('a request bounded by two anchored cursors', () => {
  it('looks both cursors up again in the wider call it served the page from', async () => {
    const platform = KeyedPlatform.seeded(60, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const a = platform.items[10]!;
    const b = platform.items[20]!;
    // Three records arrive between the two cursors' records: b is past the first call's rows.
    platform.insert(item(1001, 45.5), item(1002, 45.6), item(1003, 45.7));
    // Two more arrive at the head between the first call and the wider one.
    platform.beforeCall(1, () => platform.insert(...newest(2001, 2)));
    const connection = await page({ first: 5, after: cursorOf(a, 10), before: cursorOf(b, 20) });
    const from = platform.position(a.id) + 1;
    expect(from).toBe(13);
    expect(idsOf(connection)).toEqual(platform.ids(from, from + 5));
    expect(pageInfoOf(connection)).toEqual({ hasNextPage: true, hasPreviousPage: true, totalCount: 65 });
    expect(outcomes).toEqual(['exact', 'widened']);
    expect(platform.take()).toEqual([
      { page: 0, size: 21 },
      { page: 0, size: 100 },
    ]);
  });

  it('keeps the place of a cursor whose record left before the wider call', async () => {
    const platform = KeyedPlatform.seeded(60, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const a = platform.items[10]!;
    const b = platform.items[20]!;
    platform.insert(item(1001, 45.5), item(1002, 45.6), item(1003, 45.7));
    // a is read in the first call, then leaves while a newer record arrives: the wider call holds
    // only b, and a's place (10) still holds the record before the window.
    platform.beforeCall(1, () => {
      platform.remove(a.id);
      platform.insert(...newest(2001, 1));
    });
    const connection = await page({ first: 5, after: cursorOf(a, 10), before: cursorOf(b, 20) });
    expect(idsOf(connection)).toEqual([49, 48, 47, 46, 1003].map((n) => item(n).id));
    expect(pageInfoOf(connection)).toEqual({ hasNextPage: true, hasPreviousPage: true, totalCount: 63 });
    expect(outcomes).toEqual(['exact', 'widened']);
  });

  it('finds a cursor whose record left before the wider call by its sort values in the wider rows', async () => {
    const platform = KeyedPlatform.seeded(60, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const a = platform.items[10]!;
    const b = platform.items[20]!;
    platform.insert(item(1001, 45.5), item(1002, 45.6), item(1003, 45.7));
    // a is read in the first call, then leaves: in the wider call every row after it is one place
    // nearer the head, so a's old place (10) holds the record right after it.
    platform.beforeCall(1, () => platform.remove(a.id));
    const connection = await page({ first: 5, after: cursorOf(a, 10), before: cursorOf(b, 20) });
    expect(idsOf(connection)).toEqual([49, 48, 47, 46, 1003].map((n) => item(n).id));
    expect(pageInfoOf(connection)).toEqual({ hasNextPage: true, hasPreviousPage: true, totalCount: 62 });
    expect(outcomes).toEqual(['exact', 'widened']);
  });

  it('serves the rows between both cursors found again where they moved', async () => {
    const platform = KeyedPlatform.seeded(60, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const a = platform.items[10]!;
    const b = platform.items[16]!;
    platform.insert(...newest(3001, 2));
    const connection = await page({ last: 10, after: cursorOf(a, 10), before: cursorOf(b, 16) });
    expect(idsOf(connection)).toEqual(platform.ids(13, 18));
    // a's row moved within the first call's rows 9..17; b's moved past them, to row 18.
    expect(outcomes).toEqual(['moved', 'widened']);
    expect(pageInfoOf(connection)).toEqual({ hasNextPage: true, hasPreviousPage: true, totalCount: 62 });
    expect(platform.take()).toEqual([
      { page: 1, size: 9 },
      { page: 0, size: 100 },
    ]);
  });
});

describe('finding a cursor whose record left the list by its sort values', () => {
  it('serves from the first record after the values the cursor carries', async () => {
    const platform = KeyedPlatform.seeded(60, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const before = platform.ids();
    const anchor = platform.items[9]!;
    platform.remove(anchor.id);
    const connection = await page({ first: 10, after: cursorOf(anchor, 9) });
    expect(idsOf(connection)).toEqual(before.slice(10, 20));
    expect(outcomes).toEqual(['sort-keys']);
    // Rows on both sides of the values were in the first call: nothing more was asked.
    expect(platform.take()).toEqual([{ page: 0, size: 20 }]);
  });

  it('breaks ties on the sort key by id, ascending', async () => {
    const tied = [item(500, 30.5), item(501, 30.5), item(502, 30.5), item(503, 30.5), item(504, 30.5)];
    const platform = new KeyedPlatform([...Array.from({ length: 60 }, (_, index) => item(index + 1)), ...tied], ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const anchor = platform.items[platform.position(tied[2]!.id)]!;
    const position = platform.position(anchor.id);
    const following = platform.ids(position + 1, position + 4);
    expect(following.slice(0, 2)).toEqual([tied[3]!.id, tied[4]!.id]);
    platform.remove(anchor.id);
    const connection = await page({ first: 3, after: cursorOf(anchor, position) });
    expect(idsOf(connection)).toEqual(following);
    expect(outcomes).toEqual(['sort-keys']);
  });

  it('mirrors for before: the window ends at the first record after the values', async () => {
    const platform = KeyedPlatform.seeded(60, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const before = platform.ids();
    const anchor = platform.items[30]!;
    platform.remove(anchor.id);
    const connection = await page({ last: 5, before: cursorOf(anchor, 30) });
    expect(idsOf(connection)).toEqual(before.slice(25, 30));
    expect(outcomes).toEqual(['sort-keys']);
  });

  it('places the window by the values the cursor carries when its record moved among the rows read', async () => {
    const platform = KeyedPlatform.seeded(60, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const anchor = platform.items[9]!;
    // Edited to sort three rows further down: it is at 12 now, in the first call's rows 8..15.
    platform.remove(anchor.id);
    const edited = { ...anchor, createdAt: item(0, 47.5).createdAt };
    platform.insert(edited);
    expect(platform.position(anchor.id)).toBe(12);
    const connection = await page({ first: 5, after: cursorOf(anchor, 9) });
    // Keyset: every row after the values the cursor carries, the edited record among them.
    expect(idsOf(connection)).toEqual(platform.ids(9, 14));
    expect(outcomes).toEqual(['sort-keys']);
    expect(platform.take()).toEqual([{ page: 1, size: 8 }]);
  });

  it('places the window by the values the cursor carries when its record changed them in place', async () => {
    const platform = KeyedPlatform.seeded(60, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const anchor = platform.items[9]!;
    platform.remove(anchor.id);
    platform.insert({ ...anchor, createdAt: item(0, 50.5).createdAt });
    expect(platform.position(anchor.id)).toBe(9);
    const connection = await page({ first: 5, after: cursorOf(anchor, 9) });
    expect(idsOf(connection)).toEqual(platform.ids(9, 14));
    expect(outcomes).toEqual(['sort-keys']);
  });

  it('places the window by the values when the record is still there with other values', async () => {
    const platform = KeyedPlatform.seeded(60, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const anchor = platform.items[9]!;
    const before = platform.ids();
    // The record was edited: it now sorts at the head of the list.
    platform.remove(anchor.id);
    platform.insert({ ...anchor, createdAt: item(0, 5000).createdAt });
    const connection = await page({ first: 5, after: cursorOf(anchor, 9) });
    expect(idsOf(connection)).toEqual(before.slice(10, 15));
    expect(outcomes).toEqual(['sort-keys']);
  });
});

describe("a cursor whose record was at the list's edge", () => {
  it('serves from the start when the cursor was on the first record and it left', async () => {
    const platform = KeyedPlatform.seeded(30, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const before = platform.ids();
    const anchor = platform.items[0]!;
    platform.remove(anchor.id);
    const connection = await page({ first: 5, after: cursorOf(anchor, 0) });
    expect(idsOf(connection)).toEqual(before.slice(1, 6));
    expect(outcomes).toEqual(['sort-keys']);
    expect(pageInfoOf(connection)).toEqual({ hasNextPage: true, hasPreviousPage: false, totalCount: 29 });
  });

  it('serves nothing after a cursor on the last record when it left', async () => {
    for (const setup of [ENVELOPE, BARE]) {
      const platform = KeyedPlatform.seeded(30, setup);
      const { page, outcomes } = keyset(platform, setup);
      const anchor = platform.items[29]!;
      platform.remove(anchor.id);
      const connection = await page({ first: 5, after: cursorOf(anchor, 29) });
      expect(idsOf(connection)).toEqual([]);
      expect(outcomes).toEqual(['sort-keys']);
      expect(pageInfoOf(connection)).toEqual({ hasNextPage: false, hasPreviousPage: true, totalCount: setup.totals ? 29 : null });
      // The short page that ends the list tells: no wider call.
      expect(platform.take()).toHaveLength(1);
    }
  });

  it('places a cursor past the end of a list that shrank by its values', async () => {
    for (const setup of [ENVELOPE, BARE]) {
      const platform = KeyedPlatform.seeded(30, setup);
      const { page, outcomes } = keyset(platform, setup);
      const anchor = platform.items[25]!;
      platform.remove(...platform.ids(20, 30));
      const connection = await page({ first: 5, after: cursorOf(anchor, 25) });
      expect(idsOf(connection)).toEqual([]);
      expect(outcomes).toEqual(['sort-keys']);
      expect(pageInfoOf(connection)).toEqual({ hasNextPage: false, hasPreviousPage: true, totalCount: setup.totals ? 20 : null });
    }
  });
});

describe('a cursor whose sort values were too long to carry', () => {
  /** Records ordered by description, whose text takes more than a cursor carries. */
  function described(count: number) {
    const items = Array.from({ length: count }, (_, index) => ({ ...item(index + 1), description: `${String(index).padStart(3, '0')} ${'x'.repeat(500)}` }));
    const order = [
      { field: 'description', descending: false },
      { field: 'id', descending: false },
    ];
    const outcomes: AnchorOutcome[] = [];
    let list = items;
    const options: PagingOptions = { pageBase: 0, defaultSize: 20, maxSize: 100, upstreamMaxPageSize: 100, binding: 'exceptions?sort=description', totals: 'always', order, onAnchor: (outcome) => outcomes.push(outcome) };
    const page = (args: ConnectionArgs) => paginate(args, options, async ({ page: index, size }) => ({ items: list.slice(index * size, (index + 1) * size), total: list.length }));
    return { items, outcomes, page, remove: (id: string) => (list = list.filter((row) => row.id !== id)) };
  }

  it('finds its record by id', async () => {
    const { items, outcomes, page, remove } = described(40);
    const cursor = (await page({ first: 10 })).pageInfo.endCursor;
    expect(readCursor(cursor!, 'exceptions?sort=description').anchor).toEqual({ id: items[9]!.id, keys: null });
    remove(items[2]!.id);
    const connection = await page({ first: 5, after: cursor });
    expect(connection.nodes.map((row) => row.id)).toEqual(items.slice(10, 15).map((row) => row.id));
    expect(outcomes).toEqual(['moved']);
  });

  it('trusts the position of a cursor whose row could not share the call', async () => {
    const { items, outcomes, page } = described(300);
    const cursor = (await page({ first: 100 })).pageInfo.endCursor;
    const connection = await page({ first: 100, after: cursor });
    expect(connection.nodes.map((row) => row.id)).toEqual(items.slice(100, 200).map((row) => row.id));
    expect(outcomes).toEqual(['unverified']);
  });

  it('falls back to its position when the record is gone', async () => {
    const { items, outcomes, page, remove } = described(40);
    const cursor = (await page({ first: 10 })).pageInfo.endCursor;
    remove(items[9]!.id);
    const connection = await page({ first: 5, after: cursor });
    expect(connection.nodes.map((row) => row.id)).toEqual(items.slice(11, 16).map((row) => row.id));
    expect(outcomes).toEqual(['offset']);
  });
});

describe('the bounded wider search', () => {
  it('searches wider in an ascending order when every row read comes before the cursor', async () => {
    const order = [
      { field: 'name', descending: false },
      { field: 'id', descending: false },
    ];
    let list = Array.from({ length: 60 }, (_, index) => ({ id: `r${String(index).padStart(3, '0')}`, name: `m${String(index).padStart(3, '0')}` }));
    const seeded = list.map((row) => row.id);
    const outcomes: AnchorOutcome[] = [];
    const requests: PageRequest[] = [];
    const options: PagingOptions = { pageBase: 0, defaultSize: 20, maxSize: 100, upstreamMaxPageSize: 100, binding: 'names', totals: 'always', order, onAnchor: (outcome) => outcomes.push(outcome) };
    const fetchPage = async (request: PageRequest) => {
      requests.push(request);
      return { items: list.slice(request.page * request.size, (request.page + 1) * request.size), total: list.length };
    };
    const cursor = (await paginate({ first: 10 }, options, fetchPage)).pageInfo.endCursor;
    // The cursor's record leaves and 30 records sorting before every one arrive.
    list = [...Array.from({ length: 30 }, (_, index) => ({ id: `a${String(index).padStart(3, '0')}`, name: `a${String(index).padStart(3, '0')}` })), ...list.filter((row) => row.id !== seeded[9])];
    requests.splice(0);
    const connection = await paginate({ first: 5, after: cursor }, options, fetchPage);
    expect(connection.nodes.map((row) => row.id)).toEqual(seeded.slice(10, 15));
    expect(outcomes.at(-1)).toBe('sort-keys');
    expect(requests).toHaveLength(2);
  });

  it('finds a record moved past the first call by its id in one call centred on its old place', async () => {
    const platform = KeyedPlatform.seeded(200, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const before = platform.ids();
    const anchor = platform.items[9]!;
    platform.insert(...newest(5001, 30));
    const connection = await page({ first: 10, after: cursorOf(anchor, 9) });
    expect(idsOf(connection)).toEqual(before.slice(10, 20));
    expect(outcomes).toEqual(['widened']);
    expect(platform.take()).toEqual([
      { page: 0, size: 20 },
      { page: 0, size: 100 },
    ]);
  });

  it.each([
    [11, 350, { page: 58, size: 6 }],
    [10, 70, { page: 7, size: 9 }],
  ])('centres the wider page under a maximum page size of %p on old position %p with the page that reaches furthest', async (maxPageSize, position, expected) => {
    const platform = KeyedPlatform.seeded(position + 50, ENVELOPE);
    const { page } = keyset(platform, ENVELOPE, { upstreamMaxPageSize: maxPageSize });
    const anchor = platform.items[position]!;
    platform.remove(...platform.ids(position - 20, position));
    await page({ first: 5, after: cursorOf(anchor, position) });
    const [, wide] = platform.take();
    expect(wide).toEqual(expected);
  });

  it('centres the wider page on the old position deep in the list', async () => {
    const platform = KeyedPlatform.seeded(400, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const before = platform.ids();
    const anchor = platform.items[250]!;
    // Forty records before the cursor's record leave the list.
    platform.remove(...platform.ids(200, 240));
    const connection = await page({ first: 10, after: cursorOf(anchor, 250) });
    expect(idsOf(connection)).toEqual(before.slice(251, 261));
    expect(outcomes).toEqual(['widened']);
    const [, wide] = platform.take();
    // The page of at most 100 rows that reaches furthest on both sides of row 250.
    expect(wide).toEqual({ page: 2, size: 100 });
  });

  it('finds a vanished record by its values in the wider call', async () => {
    const platform = KeyedPlatform.seeded(200, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const before = platform.ids();
    const anchor = platform.items[9]!;
    platform.remove(anchor.id);
    platform.insert(...newest(6001, 30));
    const connection = await page({ first: 10, after: cursorOf(anchor, 9) });
    expect(idsOf(connection)).toEqual(before.slice(10, 20));
    expect(outcomes).toEqual(['sort-keys']);
    expect(platform.take()).toHaveLength(2);
  });

  it('falls back to the old position when more changed than the wider call reaches', async () => {
    const platform = KeyedPlatform.seeded(300, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const anchor = platform.items[9]!;
    platform.insert(...newest(7001, 150));
    const connection = await page({ first: 10, after: cursorOf(anchor, 9) });
    expect(idsOf(connection)).toEqual(platform.ids(10, 20));
    expect(outcomes).toEqual(['offset']);
    expect(platform.take()).toEqual([
      { page: 0, size: 20 },
      { page: 0, size: 100 },
    ]);
  });
});

describe('a window as large as the upstream page', () => {
  it('trusts a cursor whose row could not share the call when the window agrees', async () => {
    const platform = KeyedPlatform.seeded(300, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const connection = await page({ first: 100, after: cursorAt(platform, 99) });
    expect(idsOf(connection)).toEqual(platform.ids(100, 200));
    expect(outcomes).toEqual(['unverified']);
    expect(platform.take()).toEqual([{ page: 1, size: 100 }]);
  });

  it('trusts a cursor whose row could not share the call in a list that reports no total', async () => {
    const platform = KeyedPlatform.seeded(300, BARE);
    const { page, outcomes } = keyset(platform, BARE);
    // Rows 100..199 answer the window and tell that a next page exists; row 99 would take a second call.
    const connection = await page({ first: 99, after: cursorAt(platform, 99) });
    expect(idsOf(connection)).toEqual(platform.ids(100, 199));
    expect(outcomes).toEqual(['unverified']);
    expect(platform.take()).toEqual([{ page: 2, size: 100 }]);
  });

  it.each([90, 99])('does not trust a cursor at or past the end of a list of %p that shrank', async (length) => {
    const platform = KeyedPlatform.seeded(300, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const cursor = cursorAt(platform, 99);
    platform.remove(...platform.ids(length));
    const connection = await page({ first: 100, after: cursor });
    expect(idsOf(connection)).toEqual([]);
    expect(pageInfoOf(connection)).toEqual({ hasNextPage: false, hasPreviousPage: true, totalCount: length });
    // The total tells the cursor's row is gone: one wider call finds where its values now fall.
    expect(outcomes).toEqual(['sort-keys']);
    expect(platform.take()).toEqual([
      { page: 1, size: 100 },
      { page: 1, size: 67 },
    ]);
  });

  it('searches wider when the window holds a row that belongs before the cursor', async () => {
    const platform = KeyedPlatform.seeded(300, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const before = platform.ids();
    const anchor = platform.items[99]!;
    platform.remove(anchor.id);
    platform.insert(...newest(9001, 3));
    const connection = await page({ first: 100, after: cursorOf(anchor, 99) });
    expect(idsOf(connection)).toEqual(before.slice(100, 200));
    expect(outcomes).toEqual(['sort-keys']);
    expect(platform.take()[0]).toEqual({ page: 1, size: 100 });
  });

  it('places the window by the values among its own rows when the wider call finds nothing', async () => {
    const platform = KeyedPlatform.seeded(300, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const before = platform.ids();
    const anchor = platform.items[99]!;
    // Sixty records arrive and the cursor's record leaves: the window's rows (100..199 now) start
    // with records that belong before the cursor, the wider call around row 99 holds only such
    // records, and the window's own rows bracket the cursor's values.
    platform.remove(anchor.id);
    platform.insert(...newest(9101, 60));
    const connection = await page({ first: 100, after: cursorOf(anchor, 99) });
    expect(idsOf(connection)).toEqual(before.slice(100, 200));
    expect(outcomes).toEqual(['sort-keys']);
    expect(platform.take().slice(0, 2)).toEqual([
      { page: 1, size: 100 },
      // A page of at most 100 rows reaching furthest on both sides of row 99 (32 rows): rows 67..133.
      { page: 1, size: 67 },
    ]);
  });

  it('trusts a before cursor whose row could not share the call when the window agrees', async () => {
    const platform = KeyedPlatform.seeded(300, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const connection = await page({ last: 100, before: cursorAt(platform, 200) });
    expect(idsOf(connection)).toEqual(platform.ids(100, 200));
    expect(outcomes).toEqual(['unverified']);
    expect(platform.take()).toEqual([{ page: 1, size: 100 }]);
  });

  it('searches wider when the window before a cursor holds a row that belongs after it', async () => {
    const platform = KeyedPlatform.seeded(300, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const before = platform.ids();
    const anchor = platform.items[200]!;
    platform.remove(anchor.id, ...platform.ids(0, 3));
    const connection = await page({ last: 100, before: cursorOf(anchor, 200) });
    expect(idsOf(connection)).toEqual(before.slice(100, 200));
    expect(outcomes).toEqual(['sort-keys']);
    expect(platform.take()[0]).toEqual({ page: 1, size: 100 });
  });
});

describe('a page-size cap learned while the list changes', () => {
  /** 100 records from a platform serving at most 25 a page, with a cursor on row 7. */
  function capped() {
    const platform = KeyedPlatform.seeded(100, { ...ENVELOPE, servesAtMost: 25 });
    const seeded = platform.ids();
    const after = cursorAt(platform, 7);
    return { platform, seeded, after, ...keyset(platform) };
  }

  it('joins the rows of the re-planned call at a record both calls hold', async () => {
    const { platform, seeded, after, page, outcomes } = capped();
    platform.beforeCall(1, () => platform.insert(...newest(100_001, 2)));
    const connection = await page({ first: 33, after });
    expect(idsOf(connection)).toEqual(seeded.slice(8, 41));
    expect(outcomes).toEqual(['exact']);
    expect(platform.take()).toEqual([
      { page: 0, size: 41 },
      // Rows 24..40 as they were; the join at row 24 shows them two further down now.
      { page: 1, size: 21 },
      // What the window still lacks (row 40), asked where the list has it now.
      { page: 10, size: 4 },
    ]);
  });

  it('joins them by sort values when the record next to the gap left in between', async () => {
    const { platform, seeded, after, page } = capped();
    platform.beforeCall(1, () => platform.remove(seeded[24]!));
    const connection = await page({ first: 33, after });
    // Row 24 was read by the first call, before it left; the rest is joined after its values.
    expect(idsOf(connection)).toEqual(seeded.slice(8, 41));
    expect(pageInfoOf(connection)).toEqual({ hasNextPage: true, hasPreviousPage: true, totalCount: 99 });
  });

  it('ends the page before rows it cannot join for certain', async () => {
    const { platform, seeded, after, page } = capped();
    platform.beforeCall(1, () => platform.remove(...seeded.slice(20, 25)));
    const connection = await page({ first: 33, after });
    expect(idsOf(connection)).toEqual(seeded.slice(8, 25));
    expect(pageInfoOf(connection)).toEqual({ hasNextPage: true, hasPreviousPage: true, totalCount: 100 });
  });

  it('joins rows before the gap at a record after it', async () => {
    const platform = KeyedPlatform.seeded(100, { ...ENVELOPE, servesAtMost: 25 });
    const { page } = keyset(platform);
    const seeded = platform.ids();
    // last 30 before row 60: asked as one page of rows 30..60, served as page 0 of 25.
    const connection = await page({ last: 30, before: cursorAt(platform, 60) });
    expect(idsOf(connection)).toEqual(seeded.slice(30, 60));
    expect(pageInfoOf(connection)).toEqual({ hasNextPage: true, hasPreviousPage: true, totalCount: 100 });
  });
});

describe('filling a window that moved back past the rows read', () => {
  it('asks for its start again where the list has it after rows left in between', async () => {
    const platform = KeyedPlatform.seeded(100, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const anchor = platform.items[50]!;
    // Three records before the cursor's leave between requests: it is at 47, the window 37..46,
    // and the first call (rows 39..51) lacks 37 and 38.
    platform.remove(...platform.ids(10, 13));
    // Two more leave before the call that reads them, and two before the one after.
    platform.beforeCall(1, () => platform.remove(...platform.ids(0, 2)));
    const connection = await page({ last: 10, before: cursorOf(anchor, 50) });
    const at = platform.position(anchor.id);
    expect(idsOf(connection)).toEqual(platform.ids(at - 10, at));
    expect(outcomes).toEqual(['moved']);
    expect(platform.take()).toEqual([
      { page: 3, size: 13 },
      { page: 9, size: 4 },
      // The join showed the rows two further up: asked there.
      { page: 7, size: 5 },
    ]);
  });

  it('serves the rows it holds right before the cursor when the rows before them cannot be joined', async () => {
    const platform = KeyedPlatform.seeded(100, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    const anchor = platform.items[50]!;
    platform.remove(...platform.ids(40, 43));
    const held = platform.ids(39, 47);
    // The first call reads rows 39..51 (the cursor's record now at 47); a record arrives at the head
    // before the call for 37 and 38, so that call ends one row short of the row it was to be joined at.
    platform.beforeCall(1, () => platform.insert(...newest(1001, 1)));
    const connection = await page({ last: 10, before: cursorOf(anchor, 50) });
    // Fewer edges than asked, not none: the eight records before the cursor's, with a cursor to go on
    // back from (docs/paging.md).
    expect(idsOf(connection)).toEqual(held);
    // The total is the one of the call whose rows the page serves.
    expect(pageInfoOf(connection)).toEqual({ hasNextPage: true, hasPreviousPage: true, totalCount: 97 });
    expect(outcomes).toEqual(['moved']);
    expect(platform.take()).toEqual([
      { page: 3, size: 13 },
      { page: 9, size: 4 },
    ]);
    const back = await page({ last: 3, before: connection.pageInfo.startCursor! });
    expect(idsOf(back)).toEqual(platform.ids(37, 40));
  });
});

describe('the first call of a request', () => {
  it('reads the anchor row with the window only when that adds no call', async () => {
    const platform = KeyedPlatform.seeded(100, ENVELOPE);
    const { page, outcomes } = keyset(platform);
    // Rows 9..19 fit one page of 20 from 0: the anchor's row rides along.
    await page({ first: 10, after: cursorAt(platform, 9) });
    expect(platform.take()).toEqual([{ page: 0, size: 20 }]);
    expect(outcomes.splice(0)).toEqual(['exact']);
    const requests: PageRequest[] = [];
    const connection = await paginate({ first: 10, after: cursorAt(platform, 9) }, { ...keyset(platform).options, order: [] }, (request) => {
      requests.push(request);
      return platform.fetchPage(request);
    });
    // Without an order the cursor carries no anchor worth finding: the window alone is read.
    expect(requests).toEqual([{ page: 1, size: 10 }]);
    expect(idsOf(connection)).toEqual(platform.ids(10, 20));
  });
});

describe('a cursor sealed with another key (another instance without CURSOR_SECRET, a run before a restart)', () => {
  afterEach(() => useCursorSecret(undefined));

  it('is refused with CURSOR_OTHER_KEYS before any platform call, where its own key finds its record', async () => {
    const platform = KeyedPlatform.seeded(30, ENVELOPE);
    const after = cursorAt(platform, 9);
    const ids = platform.ids(0, 30);
    platform.remove(ids[2]!);
    const sameKey = keyset(platform);
    expect(idsOf(await sameKey.page({ first: 5, after }))).toEqual(ids.slice(10, 15));
    expect(sameKey.outcomes).toEqual(['moved']);

    // Keys drawn anew, as another instance or a restart without CURSOR_SECRET draws them.
    useCursorSecret(undefined);
    const calls = platform.requests.length;
    const refused = await keyset(platform).page({ first: 5, after }).catch((error: GraphQLError) => [error.message, error.extensions]);
    expect(refused).toEqual([
      'after cursor was sealed under keys this gateway does not hold (a rotated CURSOR_SECRET, another gateway instance, or an earlier cursor format); restart paging without it',
      { code: 'BAD_USER_INPUT', argumentName: 'after', reason: 'CURSOR_OTHER_KEYS' },
    ]);
    expect(platform.requests.length).toBe(calls);
  });
});

describe("a page's cursors, in the order a query reads them", () => {
  const read = (cursor: string) => {
    const { position, anchor, anchorPosition } = readCursor(cursor, BINDING);
    return { position, id: anchor?.id, anchorPosition };
  };

  it('seals every edge cursor as one page when an edge cursor is read first, startCursor and endCursor among them', async () => {
    const platform = KeyedPlatform.seeded(30, ENVELOPE);
    const connection = await keyset(platform).page({ first: 5, after: cursorAt(platform, 9) });
    const ids = platform.ids();
    expect(connection.edges.map((edge) => read(edge.cursor))).toEqual([
      { position: 10, id: ids[10], anchorPosition: undefined },
      { position: 11, id: ids[10], anchorPosition: 10 },
      { position: 12, id: ids[10], anchorPosition: 10 },
      { position: 13, id: ids[14], anchorPosition: 14 },
      { position: 14, id: ids[14], anchorPosition: undefined },
    ]);
    expect([connection.pageInfo.startCursor, connection.pageInfo.endCursor]).toEqual([connection.edges[0]!.cursor, connection.edges[4]!.cursor]);
  });

  it('seals a page once whichever of its cursors is read first: startCursor and endCursor are its ends\' edges\' cursors', async () => {
    const platform = KeyedPlatform.seeded(30, ENVELOPE);
    const ids = platform.ids();
    for (const ends of [['start'], ['end'], ['start', 'end']] as ('start' | 'end')[][]) {
      const connection = await keyset(platform).page({ first: 5, after: cursorAt(platform, 9) });
      const early = ends.map((end) => (end === 'start' ? connection.pageInfo.startCursor : connection.pageInfo.endCursor)!);
      const cursors = connection.edges.map((edge) => edge.cursor);
      if (ends.includes('start')) expect(cursors[0]).toBe(early[0]);
      if (ends.includes('end')) expect(cursors[4]).toBe(early.at(-1));
      // The same cursors as when an edge's is read first: each placed by the nearer of the page's ends.
      expect([ends, cursors.map(read)]).toEqual([
        ends,
        [
          { position: 10, id: ids[10], anchorPosition: undefined },
          { position: 11, id: ids[10], anchorPosition: 10 },
          { position: 12, id: ids[10], anchorPosition: 10 },
          { position: 13, id: ids[14], anchorPosition: 14 },
          { position: 14, id: ids[14], anchorPosition: undefined },
        ],
      ]);
      // One seal: every cursor of the page carries the same sealed bytes after its own three.
      const seals = new Set(cursors.map((cursor) => Buffer.from(cursor, 'base64url').subarray(3).toString('hex')));
      expect([ends, seals.size]).toEqual([ends, 1]);
    }
  });

  it('gives a connection without an order position cursors, each at its record', async () => {
    const platform = KeyedPlatform.seeded(30, ENVELOPE);
    const connection = await keyset(platform, ENVELOPE, { order: [] }).page({ first: 3 });
    const end = connection.pageInfo.endCursor!;
    expect(connection.edges.map((edge) => readCursor(edge.cursor, BINDING))).toEqual([0, 1, 2].map((position) => ({ position, anchor: null, owner: null })));
    expect(end).toBe(connection.edges[2]!.cursor);
  });
});
