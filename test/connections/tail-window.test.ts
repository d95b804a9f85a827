import { describe, expect, it } from '@jest/globals';
import type { GraphQLError } from 'graphql';
import { ListKnowledge } from '../../src/connections/list-knowledge.ts';
import { orderOf } from '../../src/connections/order.ts';
import { readOptions, type Settings } from '../../src/connections/paging-arguments.ts';
import { tailWindow } from '../../src/connections/tail-window.ts';
import type { FetchPage, PageRequest, PagingOptions } from '../../src/connections/types.ts';
import { FakePlatform, rows, type Row, type Shape } from './fake-platform.ts';

// `last` without `before`: the window that ends where the list ends, learned first.

const ORDER = orderOf(undefined, ['id,ASC']);

function settingsFor(options: Partial<PagingOptions> = {}): Settings {
  return readOptions({ pageBase: 0, defaultSize: 5, maxSize: 50, upstreamMaxPageSize: 10, binding: 'rows', totals: 'always', ...options });
}

function platformOf(count: number, shape: Shape, pageBase: 0 | 1 = 0): FakePlatform {
  return new FakePlatform(rows(count), { pageBase, shape, maxPageSize: 20 });
}

const idsOf = (records: Iterable<Row>) => [...records].map((record) => record.id);
const ids = (from: number, to: number) => idsOf(rows(to).slice(from));

/** The window of `last` records from `start` (after's position + 1), the calls it took, and the rows the list kept. */
async function tail(fetchPage: FetchPage<Row>, requests: () => PageRequest[], settings: Settings, start: number, last: number | null) {
  const list = new ListKnowledge(fetchPage, settings.pageBase, settings.pageSize);
  const window = await tailWindow(list, { start, before: null, first: null, last }, settings);
  return { window, requests: requests(), kept: idsOf(list.records()).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))), total: list.total };
}

const over = (platform: FakePlatform, settings: Settings, start: number, last: number | null) => tail(platform.fetchPage, () => platform.take(), settings, start, last);

/** The error `tailWindow` rejects with: its message and extensions. */
async function refusal(platform: FakePlatform, settings: Settings, start: number, last: number) {
  const list = new ListKnowledge(platform.fetchPage, settings.pageBase, settings.pageSize);
  const error = await tailWindow(list, { start, before: null, first: null, last }, settings).then(
    () => undefined,
    (rejected: GraphQLError) => rejected,
  );
  return [error?.message, error?.extensions];
}

const tooLong = (max: number) => [
  `last without before has to read this list to its end, and it is longer than ${max} records; pass before, or page forwards with first and after`,
  { code: 'BAD_USER_INPUT' },
];

describe('tailWindow on an endpoint that always reports a total', () => {
  const settings = settingsFor();

  it('learns the total from a one-row page, then fetches the window before it in one call', async () => {
    const platform = platformOf(25, 'envelope');
    expect(await over(platform, settings, 0, 5)).toEqual({ window: { start: 20, end: 25 }, requests: [{ page: 0, size: 1 }, { page: 4, size: 5 }], kept: ['r0', ...ids(20, 25)], total: 25 });
  });

  it("keeps the window after the cursor's position, and empty when the position is at or past the end", async () => {
    const platform = platformOf(25, 'envelope');
    expect(await over(platform, settings, 22, 5)).toEqual({ window: { start: 22, end: 25 }, requests: [{ page: 0, size: 1 }, { page: 4, size: 5 }], kept: ['r0', ...ids(20, 25)], total: 25 });
    expect(await over(platform, settings, 25, 5)).toEqual({ window: { start: 25, end: 25 }, requests: [{ page: 0, size: 1 }], kept: ['r0'], total: 25 });
    expect(await over(platform, settings, 30, 5)).toEqual({ window: { start: 30, end: 30 }, requests: [{ page: 0, size: 1 }], kept: ['r0'], total: 25 });
  });

  it('is the whole list when last is longer than it, and empty for last 0 or none', async () => {
    const platform = platformOf(25, 'envelope');
    expect(await over(platform, settings, 0, 40)).toEqual({
      window: { start: 0, end: 25 }, requests: [{ page: 0, size: 1 }, { page: 0, size: 9 }, { page: 1, size: 9 }, { page: 2, size: 9 }], kept: ids(0, 25), total: 25,
    });
    expect(await over(platform, settings, 0, 0)).toEqual({ window: { start: 25, end: 25 }, requests: [{ page: 0, size: 1 }], kept: ['r0'], total: 25 });
    expect(await over(platform, settings, 0, null)).toEqual({ window: { start: 25, end: 25 }, requests: [{ page: 0, size: 1 }], kept: ['r0'], total: 25 });
  });

  it('is empty on an empty list', async () => {
    expect(await over(platformOf(0, 'envelope'), settings, 0, 5)).toEqual({ window: { start: 0, end: 0 }, requests: [{ page: 0, size: 1 }], kept: [], total: 0 });
  });

  it("asks in the endpoint's own page base", async () => {
    const oneBased = settingsFor({ pageBase: 1 });
    expect(await over(platformOf(25, 'envelope', 1), oneBased, 0, 5)).toEqual({ window: { start: 20, end: 25 }, requests: [{ page: 1, size: 1 }, { page: 5, size: 5 }], kept: ['r0', ...ids(20, 25)], total: 25 });
  });

  it('walks to the end all the same when the endpoint answers without a total', async () => {
    expect(await over(platformOf(25, 'bare'), settings, 0, 5)).toEqual({
      window: { start: 20, end: 25 }, requests: [{ page: 0, size: 1 }, { page: 0, size: 10 }, { page: 1, size: 10 }, { page: 2, size: 10 }], kept: ids(20, 25), total: null,
    });
    // An empty one-row page already shows the end.
    expect(await over(platformOf(0, 'bare'), settings, 0, 5)).toEqual({ window: { start: 0, end: 0 }, requests: [{ page: 0, size: 1 }], kept: [], total: null });
  });
});

describe('tailWindow when the list changes between the call that told its length and the window', () => {
  /** The platform, `change` run just before its second call. */
  function changing(change: (records: Row[]) => Row[]) {
    const platform = platformOf(25, 'envelope');
    const fetchPage: FetchPage<Row> = (request) => {
      if (platform.requests.length === 1) platform.records = change(platform.records);
      return platform.fetchPage(request);
    };
    return { fetchPage, requests: () => platform.take() };
  }
  const grown = (records: Row[]) => [...records, { id: 'r25' }, { id: 'r26' }];
  const shrunk = (records: Row[]) => records.slice(0, 22);

  it('ends the window where the list ends now, with an order', async () => {
    const settings = settingsFor({ order: ORDER });
    const longer = changing(grown);
    expect(await tail(longer.fetchPage, longer.requests, settings, 0, 5)).toEqual({ window: { start: 22, end: 27 }, requests: [{ page: 0, size: 1 }, { page: 4, size: 5 }], kept: ['r0', ...ids(20, 25)], total: 27 });
    const shorter = changing(shrunk);
    expect(await tail(shorter.fetchPage, shorter.requests, settings, 0, 5)).toEqual({ window: { start: 17, end: 22 }, requests: [{ page: 0, size: 1 }, { page: 4, size: 5 }], kept: ['r0', 'r20', 'r21'], total: 22 });
    // Never before the cursor's position.
    const past = changing(shrunk);
    expect(await tail(past.fetchPage, past.requests, settings, 24, 5)).toEqual({ window: { start: 24, end: 24 }, requests: [{ page: 0, size: 1 }, { page: 24, size: 1 }], kept: ['r0'], total: 22 });
  });

  it('keeps the window it fetched without an order: positions are all a cursor has', async () => {
    const settings = settingsFor();
    const longer = changing(grown);
    expect(await tail(longer.fetchPage, longer.requests, settings, 0, 5)).toEqual({ window: { start: 20, end: 25 }, requests: [{ page: 0, size: 1 }, { page: 4, size: 5 }], kept: ['r0', ...ids(20, 25)], total: 27 });
  });
});

describe('tailWindow on an endpoint that may answer without a total: the walk to the end', () => {
  const settings = settingsFor({ totals: 'sometimes' });

  it('reads pages of the configured size until one comes back short, keeping only the rows the window may need', async () => {
    expect(await over(platformOf(25, 'bare'), settings, 0, 5)).toEqual({ window: { start: 20, end: 25 }, requests: [{ page: 0, size: 10 }, { page: 1, size: 10 }, { page: 2, size: 10 }], kept: ids(20, 25), total: null });
    // A list that ends with a full page: one more, empty, page shows the end.
    expect(await over(platformOf(20, 'bare'), settings, 0, 5)).toEqual({ window: { start: 15, end: 20 }, requests: [{ page: 0, size: 10 }, { page: 1, size: 10 }, { page: 2, size: 10 }], kept: ids(15, 20), total: null });
    expect(await over(platformOf(0, 'bare'), settings, 0, 5)).toEqual({ window: { start: 0, end: 0 }, requests: [{ page: 0, size: 10 }], kept: [], total: null });
  });

  it('keeps every row of a window longer than a page, and nothing for last 0', async () => {
    expect(await over(platformOf(35, 'bare'), settings, 0, 12)).toEqual({ window: { start: 23, end: 35 }, requests: [0, 1, 2, 3].map((page) => ({ page, size: 10 })), kept: ids(23, 35), total: null });
    expect(await over(platformOf(25, 'bare'), settings, 0, 0)).toEqual({ window: { start: 25, end: 25 }, requests: [0, 1, 2].map((page) => ({ page, size: 10 })), kept: [], total: null });
  });

  it('starts from the page holding the cursor\'s position', async () => {
    expect(await over(platformOf(45, 'bare'), settings, 25, 5)).toEqual({ window: { start: 40, end: 45 }, requests: [2, 3, 4].map((page) => ({ page, size: 10 })), kept: ids(40, 45), total: null });
    expect(await over(platformOf(45, 'bare'), settings, 43, 5)).toEqual({ window: { start: 43, end: 45 }, requests: [{ page: 4, size: 10 }], kept: ids(40, 45), total: null });
    const oneBased = settingsFor({ totals: 'sometimes', pageBase: 1 });
    expect(await over(platformOf(45, 'bare', 1), oneBased, 25, 5)).toEqual({ window: { start: 40, end: 45 }, requests: [3, 4, 5].map((page) => ({ page, size: 10 })), kept: ids(40, 45), total: null });
  });

  it('stops as soon as an answer reports a total, and fetches the window before it', async () => {
    expect(await over(platformOf(30, 'envelope'), settings, 0, 5)).toEqual({ window: { start: 25, end: 30 }, requests: [{ page: 0, size: 10 }, { page: 5, size: 5 }], kept: [...ids(5, 10), ...ids(25, 30)], total: 30 });
    // A total only from the second answer on.
    const platform = platformOf(30, 'envelope');
    const fetchPage: FetchPage<Row> = async (request) => {
      const result = await platform.fetchPage(request);
      return platform.requests.length === 1 ? { ...result, total: null } : result;
    };
    expect(await tail(fetchPage, () => platform.take(), settings, 0, 5)).toEqual({
      window: { start: 25, end: 30 }, requests: [{ page: 0, size: 10 }, { page: 1, size: 10 }, { page: 5, size: 5 }], kept: [...ids(15, 20), ...ids(25, 30)], total: 30,
    });
  });

  it('walks in pages of the configured size and fetches the window with the size the request now plans with', async () => {
    const roomy = settingsFor({ totals: 'sometimes', upstreamMaxPageSize: 20 });
    expect((await over(platformOf(40, 'envelope'), roomy, 0, 15)).requests).toEqual([{ page: 0, size: 20 }, { page: 1, size: 20 }]);
    const capped = settingsFor({ totals: 'sometimes', upstreamMaxPageSize: 20 });
    capped.pageSize.shown(12);
    expect((await over(platformOf(40, 'envelope'), capped, 0, 15)).requests).toEqual([{ page: 0, size: 20 }, { page: 3, size: 8 }, { page: 4, size: 8 }]);
  });

  it('refuses a list longer than maxWalkRecords once it has read that many records and more remain', async () => {
    const settings20 = settingsFor({ totals: 'sometimes', maxWalkRecords: 20 });
    const within = platformOf(25, 'bare');
    expect((await over(within, settings20, 0, 5)).window).toEqual({ start: 20, end: 25 });
    const longer = platformOf(30, 'bare');
    expect(await refusal(longer, settings20, 0, 5)).toEqual(tooLong(20));
    expect(longer.take()).toEqual([0, 1, 2].map((page) => ({ page, size: 10 })));
    // Counted from the page holding the cursor's position.
    const far = platformOf(100, 'bare');
    expect(await refusal(far, settings20, 25, 5)).toEqual(tooLong(20));
    expect(far.take()).toEqual([2, 3, 4].map((page) => ({ page, size: 10 })));
    // With none allowed, one page is still read.
    const none = settingsFor({ totals: 'sometimes', maxWalkRecords: 0 });
    expect((await over(platformOf(5, 'bare'), none, 0, 5)).window).toEqual({ start: 0, end: 5 });
    const full = platformOf(10, 'bare');
    expect(await refusal(full, none, 0, 5)).toEqual(tooLong(0));
    expect(full.take()).toEqual([{ page: 0, size: 10 }]);
  });
});
