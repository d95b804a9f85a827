import { describe, expect, it } from '@jest/globals';
import { fillWindow } from '../../src/connections/fill-window.ts';
import { ListKnowledge } from '../../src/connections/list-knowledge.ts';
import { orderOf } from '../../src/connections/order.ts';
import { readOptions, type Settings } from '../../src/connections/paging-arguments.ts';
import type { FetchPage, PageRequest, PagingOptions } from '../../src/connections/types.ts';

// Completing a window after the first call, over a list ordered by one number (n ASC, then the id
// tiebreak) whose record k starts at position k with n = 10k. The list can change before any call,
// as it can between the calls of one request.

interface Row {
  id: string;
  n: number;
}

const ORDER = orderOf(['n,ASC'], []);

const row = (k: number): Row => ({ id: `r${k}`, n: k * 10 });
const rowsUpTo = (count: number): Row[] => Array.from({ length: count }, (_, k) => row(k));

/** A platform list in ORDER that runs a change just before a given call; it records every request. */
class Platform {
  rows: Row[];
  readonly requests: PageRequest[] = [];
  readonly #pageBase: 0 | 1;
  readonly #totals: boolean;
  readonly #changes = new Map<number, () => void>();
  #heads = 0;

  constructor(rows: Row[], { pageBase = 0, totals = true }: { pageBase?: 0 | 1; totals?: boolean } = {}) {
    this.rows = rows;
    this.#pageBase = pageBase;
    this.#totals = totals;
  }

  /** `count` new records before every other. */
  arrive(count: number): void {
    for (let index = 0; index < count; index++) {
      this.#heads++;
      this.rows.push({ id: `h${this.#heads}`, n: -10 * this.#heads });
    }
  }

  remove(...ids: string[]): void {
    this.rows = this.rows.filter((record) => !ids.includes(record.id));
  }

  /** Runs `change` just before the next call, or before each of the next `calls` calls. */
  beforeNext(change: () => void, calls = 1): void {
    for (let index = 0; index < calls; index++) this.#changes.set(this.requests.length + index, change);
  }

  readonly fetchPage: FetchPage<Row> = async ({ page, size }) => {
    this.#changes.get(this.requests.length)?.();
    this.requests.push({ page, size });
    const from = (page - this.#pageBase) * size;
    const sorted = [...this.rows].sort((a, b) => a.n - b.n || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { items: sorted.slice(from, from + size), total: this.#totals ? sorted.length : null };
  };

  take(): PageRequest[] {
    return this.requests.splice(0);
  }
}

function settingsFor(options: Partial<PagingOptions> = {}): Settings {
  return readOptions({ pageBase: 0, defaultSize: 5, maxSize: 50, upstreamMaxPageSize: 10, binding: 'rows?sort=n%2CASC', totals: 'always', order: ORDER, ...options });
}

/** The list as the request's first call left it: `pages` of the platform. */
async function firstRead(platform: Platform, settings: Settings, pages: PageRequest[]): Promise<ListKnowledge<Row>> {
  const list = new ListKnowledge(platform.fetchPage, settings.pageBase, settings.pageSize);
  await list.fetch(pages);
  platform.take();
  return list;
}

/** Fills `window` of `list`: the calls it made and the window's rows the list then holds (up to the first it lacks). */
async function filled(platform: Platform, settings: Settings, list: ListKnowledge<Row>, window: { start: number; end: number }) {
  await fillWindow(list, window, settings, platform.fetchPage);
  return { requests: platform.take(), rows: list.run(window.start, window.end).map((record) => record.id) };
}

const idsOf = (from: number, to: number) => rowsUpTo(to).slice(from).map((record) => record.id);

describe('fillWindow: nothing to fetch', () => {
  it('calls nothing when the rows read cover the window', async () => {
    const platform = new Platform(rowsUpTo(30));
    const settings = settingsFor();
    const list = await firstRead(platform, settings, [{ page: 0, size: 10 }]);
    expect(await filled(platform, settings, list, { start: 2, end: 10 })).toEqual({ requests: [], rows: idsOf(2, 10) });
    expect(await filled(platform, settings, list, { start: 4, end: 4 })).toEqual({ requests: [], rows: [] });
  });

  it("calls nothing for the part of the window past the list's end, told by a short page or by the total", async () => {
    const settings = settingsFor();
    const bare = new Platform(rowsUpTo(8), { totals: false });
    const short = await firstRead(bare, settings, [{ page: 0, size: 10 }]);
    expect(await filled(bare, settings, short, { start: 5, end: 12 })).toEqual({ requests: [], rows: idsOf(5, 8) });
    expect(await filled(bare, settings, short, { start: 9, end: 12 })).toEqual({ requests: [], rows: [] });
    const envelope = new Platform(rowsUpTo(8));
    const full = await firstRead(envelope, settings, [{ page: 0, size: 8 }]);
    expect(await filled(envelope, settings, full, { start: 5, end: 12 })).toEqual({ requests: [], rows: idsOf(5, 8) });
  });
});

describe('fillWindow without an order', () => {
  const settings = settingsFor({ order: [] });

  it('fetches the rest of the window from the first position it lacks, in as few pages as the page size allows', async () => {
    const platform = new Platform(rowsUpTo(30));
    const list = await firstRead(platform, settings, [{ page: 0, size: 5 }]);
    expect(await filled(platform, settings, list, { start: 0, end: 8 })).toEqual({ requests: [{ page: 1, size: 4 }], rows: idsOf(0, 8) });
    const empty = await firstRead(platform, settings, []);
    expect(await filled(platform, settings, empty, { start: 3, end: 6 })).toEqual({ requests: [{ page: 1, size: 3 }], rows: idsOf(3, 6) });
  });

  it('fetches only up to the total the rows read reported', async () => {
    const platform = new Platform(rowsUpTo(8));
    const list = await firstRead(platform, settings, [{ page: 0, size: 6 }]);
    expect(await filled(platform, settings, list, { start: 0, end: 10 })).toEqual({ requests: [{ page: 3, size: 2 }], rows: idsOf(0, 8) });
  });

  it("asks in the endpoint's own page base", async () => {
    const platform = new Platform(rowsUpTo(30), { pageBase: 1 });
    const oneBased = settingsFor({ order: [], pageBase: 1 });
    const list = await firstRead(platform, oneBased, [{ page: 0, size: 5 }]);
    expect(await filled(platform, oneBased, list, { start: 0, end: 8 })).toEqual({ requests: [{ page: 2, size: 4 }], rows: idsOf(0, 8) });
  });

  it('plans with the page size the request knows the platform takes now, not the configured one', async () => {
    const platform = new Platform(rowsUpTo(30));
    const roomy = settingsFor({ order: [], upstreamMaxPageSize: 20 });
    const list = await firstRead(platform, roomy, [{ page: 0, size: 5 }]);
    expect(await filled(platform, roomy, list, { start: 0, end: 20 })).toEqual({ requests: [{ page: 0, size: 20 }], rows: idsOf(0, 20) });
    const capped = settingsFor({ order: [], upstreamMaxPageSize: 20 });
    capped.pageSize.shown(12);
    const again = await firstRead(platform, capped, [{ page: 0, size: 5 }]);
    expect(await filled(platform, capped, again, { start: 0, end: 20 })).toEqual({ requests: [{ page: 0, size: 10 }, { page: 1, size: 10 }], rows: idsOf(0, 20) });
  });

  it('fetches the rest of the window from its first gap, rows already held after it included, and joins nothing', async () => {
    const platform = new Platform(rowsUpTo(30));
    const list = await firstRead(platform, settings, [{ page: 1, size: 5 }]);
    // Positions are all there is without an order: the rows asked again replace those held.
    platform.arrive(1);
    expect(await filled(platform, settings, list, { start: 3, end: 8 })).toEqual({ requests: [{ page: 0, size: 8 }], rows: ['r2', 'r3', 'r4', 'r5', 'r6'] });
  });
});

describe('fillWindow with an order: the gap after a row held', () => {
  it('reads the new rows with the row before the gap, and places them after it', async () => {
    const platform = new Platform(rowsUpTo(30));
    const settings = settingsFor();
    const list = await firstRead(platform, settings, [{ page: 0, size: 5 }]);
    expect(await filled(platform, settings, list, { start: 0, end: 8 })).toEqual({ requests: [{ page: 1, size: 4 }], rows: idsOf(0, 8) });
  });

  it('joins them where that row is now when rows arrived before it, and asks for the rest there', async () => {
    const platform = new Platform(rowsUpTo(30));
    const settings = settingsFor();
    const list = await firstRead(platform, settings, [{ page: 0, size: 5 }]);
    platform.beforeNext(() => platform.arrive(2));
    // 4..7 now hold r2..r5: r4 is at 6, so r5 follows it; the rest is asked two places further on (7..11).
    expect(await filled(platform, settings, list, { start: 0, end: 8 })).toEqual({ requests: [{ page: 1, size: 4 }, { page: 1, size: 5 }], rows: idsOf(0, 8) });
    expect(list.total).toBe(32);
  });

  it("joins them by the row's values when it left and another arrived before it", async () => {
    const platform = new Platform(rowsUpTo(30));
    const settings = settingsFor();
    const list = await firstRead(platform, settings, [{ page: 0, size: 5 }]);
    platform.beforeNext(() => {
      platform.remove('r4');
      platform.rows.push({ id: 'a', n: 15 });
    });
    expect(await filled(platform, settings, list, { start: 0, end: 8 })).toEqual({ requests: [{ page: 1, size: 4 }], rows: ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7'] });
  });

  it('ends the page before rows it cannot join for certain', async () => {
    const platform = new Platform(rowsUpTo(30));
    const settings = settingsFor();
    const list = await firstRead(platform, settings, [{ page: 0, size: 5 }]);
    platform.beforeNext(() => platform.remove('r1'));
    // 4..7 now hold r5..r8: nothing shows whether a row came between r4 and r5.
    expect(await filled(platform, settings, list, { start: 0, end: 8 })).toEqual({ requests: [{ page: 1, size: 4 }], rows: idsOf(0, 5) });
    expect(list.total).toBe(30);
  });

  it('learns the end of the list from the joined rows, where it is in the list as held', async () => {
    const platform = new Platform(rowsUpTo(7), { totals: false });
    const settings = settingsFor();
    const list = await firstRead(platform, settings, [{ page: 0, size: 5 }]);
    platform.beforeNext(() => platform.arrive(1));
    // 4..7 now hold r3..r6 and end at 8: r4 is at 5, so the list as held ends at 7.
    expect(await filled(platform, settings, list, { start: 0, end: 10 })).toEqual({ requests: [{ page: 0, size: 10 }], rows: idsOf(0, 7) });
    expect([list.firstAbsent, list.total]).toEqual([7, null]);
  });

  it('asks no more than three times, however often the list changes under it, serving only the rows it joined', async () => {
    const platform = new Platform(rowsUpTo(60));
    const settings = settingsFor();
    const list = await firstRead(platform, settings, [{ page: 0, size: 2 }]);
    platform.beforeNext(() => platform.arrive(1), 10);
    // Each call finds the row before the gap one place further on than the last join showed: the third
    // call adds nothing, and r7 is left for the next page.
    expect(await filled(platform, settings, list, { start: 0, end: 8 })).toEqual({ requests: [{ page: 0, size: 8 }, { page: 2, size: 3 }, { page: 4, size: 2 }], rows: idsOf(0, 7) });
  });
});

describe('fillWindow with an order: the gap before a row held', () => {
  it('reads the new rows with the row after the gap, and places them before it', async () => {
    const platform = new Platform(rowsUpTo(30));
    const settings = settingsFor();
    const list = await firstRead(platform, settings, [{ page: 1, size: 5 }]);
    expect(await filled(platform, settings, list, { start: 3, end: 8 })).toEqual({ requests: [{ page: 1, size: 3 }], rows: idsOf(3, 8) });
  });

  it('joins them where that row is now when rows left before it, and asks for the rest there', async () => {
    const platform = new Platform(rowsUpTo(30));
    const settings = settingsFor();
    const list = await firstRead(platform, settings, [{ page: 1, size: 5 }]);
    platform.beforeNext(() => platform.remove('r0'), 2);
    // 3..5 now hold r4..r6: r5 is at 4, so r4 goes before it; the rest is asked one place nearer (2..3).
    expect(await filled(platform, settings, list, { start: 3, end: 8 })).toEqual({ requests: [{ page: 1, size: 3 }, { page: 1, size: 2 }], rows: idsOf(3, 8) });
  });

  it("joins them by the held row's values when it left between the calls, without placing the row after it twice", async () => {
    const platform = new Platform(rowsUpTo(30));
    const settings = settingsFor();
    const list = await firstRead(platform, settings, [{ page: 1, size: 5 }]);
    platform.beforeNext(() => platform.remove('r5'));
    // 3..5 now hold r3, r4 and r6: r6 is the first row after r5's values.
    expect(await filled(platform, settings, list, { start: 3, end: 8 })).toEqual({ requests: [{ page: 1, size: 3 }], rows: idsOf(3, 8) });
  });

  it('fetches the gap alone when the window holds no row next to it, even with one held just past the window', async () => {
    const platform = new Platform(rowsUpTo(30));
    const settings = settingsFor();
    const list = await firstRead(platform, settings, [{ page: 4, size: 2 }]);
    expect(await filled(platform, settings, list, { start: 3, end: 8 })).toEqual({ requests: [{ page: 0, size: 8 }], rows: idsOf(3, 8) });
  });

  it('adopts nothing before the row held when the new rows cannot be joined to it, and keeps the rows held', async () => {
    const platform = new Platform(rowsUpTo(30));
    const settings = settingsFor();
    const list = await firstRead(platform, settings, [{ page: 1, size: 5 }]);
    platform.beforeNext(() => platform.arrive(1));
    // 3..5 now hold r2..r4: nothing after them shows where r5 is.
    await fillWindow(list, { start: 3, end: 8 }, settings, platform.fetchPage);
    expect(platform.take()).toEqual([{ page: 1, size: 3 }]);
    expect([list.at(3), list.at(4), list.run(5, 10).map((record) => record.id)]).toEqual([undefined, undefined, idsOf(5, 10)]);
  });
});
