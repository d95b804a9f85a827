import { describe, expect, it } from '@jest/globals';
import type { GraphQLError } from 'graphql';
import { anchoredCursors, anchoredWindow, locateJoin } from '../../src/connections/anchors.ts';
import type { DecodedCursor } from '../../src/connections/cursor.ts';
import { ListKnowledge } from '../../src/connections/list-knowledge.ts';
import { anchorOf, orderOf } from '../../src/connections/order.ts';
import { readOptions, type ParsedArgs, type Settings } from '../../src/connections/paging-arguments.ts';
import type { AnchorOutcome, FetchPage, PageRequest, PagingOptions } from '../../src/connections/types.ts';

// Finding an anchored cursor's record again (docs/paging.md, "Serving a page after a cursor"), over
// a list ordered by one number (n ASC, then the id tiebreak) whose record k starts at position k
// with n = 10k, so that a record can take a value between two others.

interface Row {
  id: string;
  n: number | null;
  businessAccountId?: string;
}

const ORDER = orderOf(['n,ASC'], []);

const row = (k: number): Row => ({ id: `r${k}`, n: k * 10 });
const rowsUpTo = (count: number): Row[] => Array.from({ length: count }, (_, k) => row(k));
/** Rows before every record: n negative. */
const heads = (count: number): Row[] => Array.from({ length: count }, (_, k) => ({ id: `h${k}`, n: (k - count) * 10 }));

function byOrder(a: Row, b: Row): number {
  if (a.n !== b.n) return a.n === null ? 1 : b.n === null ? -1 : a.n - b.n;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A platform list in ORDER, in pages of its base, with or without totals; it records every request. */
class Platform {
  rows: Row[];
  readonly requests: PageRequest[] = [];
  readonly #pageBase: 0 | 1;
  readonly #totals: boolean;

  constructor(rows: Row[], { pageBase = 0, totals = true }: { pageBase?: 0 | 1; totals?: boolean } = {}) {
    this.rows = rows;
    this.#pageBase = pageBase;
    this.#totals = totals;
  }

  remove(...ids: string[]): void {
    this.rows = this.rows.filter((record) => !ids.includes(record.id));
  }

  insert(...records: Row[]): void {
    this.rows = [...this.rows, ...records];
  }

  /** Gives record `id` the value `n`. */
  change(id: string, n: number | null): void {
    this.rows = this.rows.map((record) => (record.id === id ? { ...record, n } : record));
  }

  readonly fetchPage: FetchPage<Row> = async ({ page, size }) => {
    this.requests.push({ page, size });
    const from = (page - this.#pageBase) * size;
    const sorted = [...this.rows].sort(byOrder);
    return { items: sorted.slice(from, from + size), total: this.#totals ? sorted.length : null };
  };

  take(): PageRequest[] {
    return this.requests.splice(0);
  }
}

function settingsFor(options: Partial<PagingOptions> = {}): { settings: Settings; outcomes: AnchorOutcome[] } {
  const outcomes: AnchorOutcome[] = [];
  const settings = readOptions({
    pageBase: 0, defaultSize: 5, maxSize: 50, upstreamMaxPageSize: 10, binding: 'rows?sort=n%2CASC', totals: 'always', order: ORDER,
    onAnchor: (outcome) => outcomes.push(outcome),
    ...options,
  });
  return { settings, outcomes };
}

/** A cursor issued to the reader's own token: nothing needs to show it is the reader's. */
const OWN = { account: null, sameCaller: true };

/** The anchored cursor of `record`, issued at `position`. */
function cursorOf(position: number, record: Row, more: Partial<DecodedCursor> = {}): DecodedCursor {
  return { position, anchor: anchorOf(record, ORDER), owner: OWN, ...more };
}

function parsed(args: Partial<ParsedArgs>): ParsedArgs {
  return { after: null, before: null, first: null, last: null, ...args };
}

/** What the request read first: `pages` of the platform, as the list's first call. */
async function firstRead(platform: Platform, settings: Settings, pages: PageRequest[]): Promise<ListKnowledge<Row>> {
  const list = new ListKnowledge(platform.fetchPage, settings.pageBase, settings.pageSize);
  await list.fetch(pages);
  platform.take();
  return list;
}

const ids = (records: readonly Row[]) => records.map((record) => record.id);

/** The window the cursors of `args` place over `first`, with what it cost and where its rows come from. */
async function placed(platform: Platform, settings: Settings, first: ListKnowledge<Row>, args: Partial<ParsedArgs>) {
  const request = parsed(args);
  const { list, window } = await anchoredWindow(first, request, anchoredCursors(request, settings), settings, platform.fetchPage);
  return { window, requests: platform.take(), fromFirst: list === first, rows: ids(list.run(window.start, window.end)) };
}

/** The refusal `anchoredWindow` rejects with: its message and extensions. */
async function refusal(platform: Platform, settings: Settings, first: ListKnowledge<Row>, args: Partial<ParsedArgs>) {
  const request = parsed(args);
  const error = await anchoredWindow(first, request, anchoredCursors(request, settings), settings, platform.fetchPage).then(
    () => undefined,
    (rejected: GraphQLError) => rejected,
  );
  return [error?.message, error?.extensions];
}

describe('anchoredCursors', () => {
  const { settings } = settingsFor();

  it('is every cursor of the request that carries an anchor, after first, each at its own record (offset 0)', () => {
    const after = cursorOf(9, row(9));
    const before = cursorOf(20, row(20), { owner: { account: 'acme', sameCaller: false } });
    expect(anchoredCursors(parsed({ after, before, first: 3 }), settings)).toEqual([
      { side: 'after', cursor: { position: 9, anchor: { id: 'r9', keys: [90, 'r9'] }, owner: OWN }, offset: 0 },
      { side: 'before', cursor: { position: 20, anchor: { id: 'r20', keys: [200, 'r20'] }, owner: { account: 'acme', sameCaller: false } }, offset: 0 },
    ]);
    expect(anchoredCursors(parsed({ before, last: 3 }), settings)).toEqual([
      { side: 'before', cursor: { position: 20, anchor: { id: 'r20', keys: [200, 'r20'] }, owner: { account: 'acme', sameCaller: false } }, offset: 0 },
    ]);
  });

  it("places a middle edge's cursor at its anchor's position, with its distance from it as the offset, before or after it", () => {
    const later = cursorOf(7, row(5), { anchorPosition: 5 });
    const earlier = cursorOf(2, row(5), { anchorPosition: 5 });
    expect(anchoredCursors(parsed({ after: later, before: earlier }), settings)).toEqual([
      { side: 'after', cursor: { position: 5, anchor: { id: 'r5', keys: [50, 'r5'] }, owner: OWN }, offset: 2 },
      { side: 'before', cursor: { position: 5, anchor: { id: 'r5', keys: [50, 'r5'] }, owner: OWN }, offset: -3 },
    ]);
  });

  it('is empty without cursors, for position cursors, and for any cursor when the connection has no order', () => {
    const position: DecodedCursor = { position: 4, anchor: null, owner: null };
    expect(anchoredCursors(parsed({ first: 3 }), settings)).toEqual([]);
    expect(anchoredCursors(parsed({ after: position, before: position }), settings)).toEqual([]);
    expect(anchoredCursors(parsed({ after: position, before: cursorOf(9, row(9)) }), settings)).toEqual([
      { side: 'before', cursor: { position: 9, anchor: { id: 'r9', keys: [90, 'r9'] }, owner: OWN }, offset: 0 },
    ]);
    const unordered = settingsFor({ order: [] }).settings;
    expect(anchoredCursors(parsed({ after: cursorOf(9, row(9)), before: cursorOf(12, row(12)) }), unordered)).toEqual([]);
  });
});

describe('anchoredWindow: the cursor found in the rows read first', () => {
  it("serves after the anchor's record where the cursor left it (exact), from the first call's rows", async () => {
    const platform = new Platform(rowsUpTo(30));
    const { settings, outcomes } = settingsFor();
    const first = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    expect(await placed(platform, settings, first, { after: cursorOf(9, row(9)), first: 3 })).toEqual({
      window: { start: 10, end: 13 }, requests: [], fromFirst: true, rows: ['r10', 'r11', 'r12'],
    });
    expect(await placed(platform, settings, first, { before: cursorOf(9, row(9)), last: 3 })).toEqual({
      window: { start: 6, end: 9 }, requests: [], fromFirst: true, rows: ['r6', 'r7', 'r8'],
    });
    expect(outcomes).toEqual(['exact', 'exact']);
  });

  it('serves from where the record moved to when rows left or arrived before it (moved)', async () => {
    const platform = new Platform(rowsUpTo(30));
    const { settings, outcomes } = settingsFor();
    platform.remove('r3', 'r4');
    const shrunk = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    expect(await placed(platform, settings, shrunk, { after: cursorOf(9, row(9)), first: 3 })).toEqual({
      window: { start: 8, end: 11 }, requests: [], fromFirst: true, rows: ['r10', 'r11', 'r12'],
    });
    platform.insert({ id: 'a', n: 5 }, { id: 'b', n: 15 }, { id: 'c', n: 25 }, { id: 'd', n: 35 });
    const grown = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    expect(await placed(platform, settings, grown, { before: cursorOf(9, row(9)), last: 3 })).toEqual({
      window: { start: 8, end: 11 }, requests: [], fromFirst: true, rows: ['r6', 'r7', 'r8'],
    });
    expect(outcomes).toEqual(['moved', 'moved']);
  });

  it("serves from the first row after the cursor's values when its record is gone and the rows read bracket them (sort-keys)", async () => {
    const platform = new Platform(rowsUpTo(30));
    const { settings, outcomes } = settingsFor();
    platform.remove('r9');
    const first = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    expect(await placed(platform, settings, first, { after: cursorOf(9, row(9)), first: 3 })).toEqual({
      window: { start: 9, end: 12 }, requests: [], fromFirst: true, rows: ['r10', 'r11', 'r12'],
    });
    expect(await placed(platform, settings, first, { before: cursorOf(9, row(9)), last: 3 })).toEqual({
      window: { start: 6, end: 9 }, requests: [], fromFirst: true, rows: ['r6', 'r7', 'r8'],
    });
    expect(outcomes).toEqual(['sort-keys', 'sort-keys']);
  });

  it("places by the cursor's values a record whose values changed, where it stayed or moved (keyset semantics)", async () => {
    const platform = new Platform(rowsUpTo(30));
    const { settings, outcomes } = settingsFor();
    platform.change('r9', 95);
    const stayed = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    expect((await placed(platform, settings, stayed, { after: cursorOf(9, row(9)), first: 3 })).rows).toEqual(['r9', 'r10', 'r11']);
    platform.change('r9', 125);
    const moved = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    expect(await placed(platform, settings, moved, { after: cursorOf(9, row(9)), first: 5 })).toEqual({
      window: { start: 9, end: 14 }, requests: [], fromFirst: true, rows: ['r10', 'r11', 'r12', 'r9', 'r13'],
    });
    expect(await placed(platform, settings, moved, { before: cursorOf(9, row(9)), last: 2 })).toEqual({
      window: { start: 7, end: 9 }, requests: [], fromFirst: true, rows: ['r7', 'r8'],
    });
    expect(outcomes).toEqual(['sort-keys', 'sort-keys', 'sort-keys']);
  });

  it("takes the list's end for the row after the cursor's values when a short page proved it (sort-keys)", async () => {
    const platform = new Platform(rowsUpTo(10), { totals: false });
    const { settings, outcomes } = settingsFor();
    const first = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    expect(await placed(platform, settings, first, { after: cursorOf(12, row(12)), first: 3 })).toEqual({
      window: { start: 10, end: 13 }, requests: [], fromFirst: true, rows: [],
    });
    expect(await placed(platform, settings, first, { before: cursorOf(12, row(12)), last: 3 })).toEqual({
      window: { start: 7, end: 10 }, requests: [], fromFirst: true, rows: ['r7', 'r8', 'r9'],
    });
    // The cursor's record was the last one, at the position the short page proved empty.
    expect(await placed(platform, settings, first, { after: cursorOf(10, row(10)), first: 3 })).toEqual({
      window: { start: 10, end: 13 }, requests: [], fromFirst: true, rows: [],
    });
    expect(outcomes).toEqual(['sort-keys', 'sort-keys', 'sort-keys']);
  });

  it("takes the list's start for the row after the cursor's values when every row read is after them", async () => {
    const platform = new Platform(rowsUpTo(10).slice(3));
    const { settings, outcomes } = settingsFor();
    const first = await firstRead(platform, settings, [{ page: 0, size: 5 }]);
    expect(await placed(platform, settings, first, { after: cursorOf(1, row(1)), first: 2 })).toEqual({
      window: { start: 0, end: 2 }, requests: [], fromFirst: true, rows: ['r3', 'r4'],
    });
    expect(await placed(platform, settings, first, { before: cursorOf(1, row(1)), last: 2 })).toEqual({
      window: { start: 0, end: 0 }, requests: [], fromFirst: true, rows: [],
    });
    expect(outcomes).toEqual(['sort-keys', 'sort-keys']);
  });

  it("places a middle edge's cursor at its distance from its anchor, never before the list's first row", async () => {
    const platform = new Platform(rowsUpTo(30));
    const { settings, outcomes } = settingsFor();
    platform.remove('r0', 'r1', 'r2', 'r3');
    const first = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    // Issued at 2, three rows before its page's last record r5, which is now at 1.
    expect(await placed(platform, settings, first, { after: cursorOf(2, row(5), { anchorPosition: 5 }), first: 3 })).toEqual({
      window: { start: 0, end: 3 }, requests: [], fromFirst: true, rows: ['r4', 'r5', 'r6'],
    });
    // Issued at 7, two rows after its page's first record r5.
    expect(await placed(platform, settings, first, { after: cursorOf(7, row(5), { anchorPosition: 5 }), first: 3 })).toEqual({
      window: { start: 4, end: 7 }, requests: [], fromFirst: true, rows: ['r8', 'r9', 'r10'],
    });
    expect(await placed(platform, settings, first, { before: cursorOf(7, row(5), { anchorPosition: 5 }), last: 3 })).toEqual({
      window: { start: 0, end: 3 }, requests: [], fromFirst: true, rows: ['r4', 'r5', 'r6'],
    });
    expect(outcomes).toEqual(['moved', 'moved', 'moved']);
  });

  it('finds an anchor without values by its id alone, wherever its record is, whatever its values now', async () => {
    const platform = new Platform(rowsUpTo(30));
    const { settings, outcomes } = settingsFor();
    platform.change('r9', 125);
    const first = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    const bare = cursorOf(9, row(9), { anchor: { id: 'r9', keys: null } });
    expect(await placed(platform, settings, first, { after: bare, first: 2 })).toEqual({
      window: { start: 13, end: 15 }, requests: [], fromFirst: true, rows: ['r13', 'r14'],
    });
    expect(outcomes).toEqual(['moved']);
  });
});

describe("anchoredWindow: a cursor whose row could not share the first call", () => {
  it('keeps its position when the rows read do not contradict it (unverified), with no further call', async () => {
    const platform = new Platform(rowsUpTo(30));
    const { settings, outcomes } = settingsFor();
    const later = await firstRead(platform, settings, [{ page: 1, size: 10 }]);
    expect(await placed(platform, settings, later, { after: cursorOf(9, row(9)), first: 3 })).toEqual({
      window: { start: 10, end: 13 }, requests: [], fromFirst: true, rows: ['r10', 'r11', 'r12'],
    });
    const earlier = await firstRead(platform, settings, [{ page: 0, size: 10 }]);
    expect(await placed(platform, settings, earlier, { before: cursorOf(10, row(10)), last: 3 })).toEqual({
      window: { start: 7, end: 10 }, requests: [], fromFirst: true, rows: ['r7', 'r8', 'r9'],
    });
    // Its record gone before it: not seen, as the row after it still comes after its values (docs/paging.md, Limits).
    platform.remove('r9');
    const departed = await firstRead(platform, settings, [{ page: 1, size: 10 }]);
    expect((await placed(platform, settings, departed, { after: cursorOf(9, row(9)), first: 3 })).rows).toEqual(['r11', 'r12', 'r13']);
    expect(outcomes).toEqual(['unverified', 'unverified', 'unverified']);
  });

  it('keeps the position of an anchor without values next to any row, having nothing to compare', async () => {
    const platform = new Platform([...heads(3), ...rowsUpTo(30)]);
    const { settings, outcomes } = settingsFor();
    const first = await firstRead(platform, settings, [{ page: 5, size: 2 }]);
    const bare = cursorOf(9, row(9), { anchor: { id: 'r9', keys: null } });
    expect(await placed(platform, settings, first, { after: bare, first: 2 })).toEqual({
      window: { start: 10, end: 12 }, requests: [], fromFirst: true, rows: ['r7', 'r8'],
    });
    expect(outcomes).toEqual(['unverified']);
  });

  it("does not take a position the total puts past the end for a cursor's unread row: the wider call finds the end", async () => {
    const platform = new Platform(rowsUpTo(10));
    const { settings, outcomes } = settingsFor();
    // A full page and a total of 10: no short page shows where the list ends.
    const first = await firstRead(platform, settings, [{ page: 0, size: 10 }]);
    expect(await placed(platform, settings, first, { before: cursorOf(10, row(10)), last: 3 })).toEqual({
      window: { start: 7, end: 10 }, requests: [{ page: 1, size: 7 }], fromFirst: false, rows: ['r7', 'r8', 'r9'],
    });
    expect(outcomes).toEqual(['sort-keys']);
  });

  it('finds it by id in one wider call centred on its position when the next row read comes before it (widened)', async () => {
    const platform = new Platform([...heads(3), ...rowsUpTo(30)]);
    const { settings, outcomes } = settingsFor();
    // Rows 10 and 11 are r7 and r8: three rows arrived before the cursor's record.
    const first = await firstRead(platform, settings, [{ page: 5, size: 2 }]);
    expect(await placed(platform, settings, first, { after: cursorOf(9, row(9)), first: 3 })).toEqual({
      // The page of the largest size up to 10 whose rows reach furthest on both sides of 9: 7..13.
      window: { start: 13, end: 16 }, requests: [{ page: 1, size: 7 }], fromFirst: false, rows: ['r10'],
    });
    expect(outcomes).toEqual(['widened']);
  });

  it('asks the wider page in the endpoint\'s own page base', async () => {
    const platform = new Platform([...heads(3), ...rowsUpTo(30)], { pageBase: 1 });
    const { settings, outcomes } = settingsFor({ pageBase: 1 });
    const first = await firstRead(platform, settings, [{ page: 5, size: 2 }]);
    expect(await placed(platform, settings, first, { after: cursorOf(9, row(9)), first: 3 })).toEqual({
      window: { start: 13, end: 16 }, requests: [{ page: 2, size: 7 }], fromFirst: false, rows: ['r10'],
    });
    expect(outcomes).toEqual(['widened']);
  });

  it('centres the wider call as well as the page size allows, among sizes from the largest down to half of it', async () => {
    const { settings, outcomes } = settingsFor({ upstreamMaxPageSize: 40 });
    const reach = async (arrived: number, position: number, pages: PageRequest[]) => {
      const platform = new Platform([...heads(arrived), ...rowsUpTo(100)]);
      const first = await firstRead(platform, settings, pages);
      return (await placed(platform, settings, first, { after: cursorOf(position, row(position)), first: 2 })).requests;
    };
    // From 9: page 0 of 40 reaches furthest, as nothing is before it.
    expect(await reach(3, 9, [{ page: 5, size: 2 }])).toEqual([{ page: 0, size: 40 }]);
    // From 30: page 0 of 40 reaches 9 rows ahead; pages 1 of 21 and of 20 reach 9 rows too, no further.
    expect(await reach(3, 30, [{ page: 15, size: 2 }])).toEqual([{ page: 0, size: 40 }]);
    // From 49: page 1 of 33 holds 33..65, 16 rows on each side.
    expect(await reach(30, 49, [{ page: 25, size: 2 }])).toEqual([{ page: 1, size: 33 }]);
    expect(outcomes).toEqual(['widened', 'widened', 'offset']);
  });

  it("serves after the first row past the cursor's values when the wider call shows its record gone (sort-keys)", async () => {
    const platform = new Platform([...heads(3), ...rowsUpTo(30)]);
    const { settings, outcomes } = settingsFor();
    platform.remove('r9');
    const first = await firstRead(platform, settings, [{ page: 5, size: 2 }]);
    expect(await placed(platform, settings, first, { after: cursorOf(9, row(9)), first: 3 })).toEqual({
      window: { start: 12, end: 15 }, requests: [{ page: 1, size: 7 }], fromFirst: false, rows: ['r10', 'r11'],
    });
    expect(outcomes).toEqual(['sort-keys']);
  });

  it('calls a before cursor contradicted by a row at or after its values before it, and widens', async () => {
    const platform = new Platform(rowsUpTo(30));
    const { settings, outcomes } = settingsFor();
    platform.remove('r2', 'r10');
    const first = await firstRead(platform, settings, [{ page: 0, size: 10 }]);
    expect(await placed(platform, settings, first, { before: cursorOf(10, row(10)), last: 3 })).toEqual({
      window: { start: 6, end: 9 }, requests: [{ page: 1, size: 7 }], fromFirst: false, rows: [],
    });
    expect(outcomes).toEqual(['sort-keys']);
  });

  it("falls back on the first call's rows when the wider call tells nothing: by the cursor's values (sort-keys), else its position (offset)", async () => {
    const platform = new Platform([...heads(6), ...rowsUpTo(30)]);
    const { settings, outcomes } = settingsFor();
    platform.remove('r9');
    // 10..19 hold r4..r8 and r10..r14; the wider call (7..13), r1..r7 only.
    const bracketing = await firstRead(platform, settings, [{ page: 1, size: 10 }]);
    expect(await placed(platform, settings, bracketing, { after: cursorOf(9, row(9)), first: 3 })).toEqual({
      window: { start: 15, end: 18 }, requests: [{ page: 1, size: 7 }], fromFirst: true, rows: ['r10', 'r11', 'r12'],
    });
    platform.insert(...heads(20).map((record) => ({ ...record, id: `g${record.id}`, n: (record.n as number) - 1000 })));
    const headsOnly = await firstRead(platform, settings, [{ page: 5, size: 2 }]);
    expect(await placed(platform, settings, headsOnly, { after: cursorOf(9, row(9)), first: 3 })).toEqual({
      window: { start: 10, end: 13 }, requests: [{ page: 1, size: 7 }], fromFirst: true, rows: ['gh10', 'gh11'],
    });
    expect(outcomes).toEqual(['sort-keys', 'offset']);
  });

  it('widens for an anchor without values whose record is gone from rows read around it, and keeps its position (offset)', async () => {
    const platform = new Platform(rowsUpTo(30));
    const { settings, outcomes } = settingsFor();
    platform.remove('r9');
    const first = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    const bare = cursorOf(9, row(9), { anchor: { id: 'r9', keys: null } });
    expect(await placed(platform, settings, first, { after: bare, first: 2 })).toEqual({
      window: { start: 10, end: 12 }, requests: [{ page: 1, size: 7 }], fromFirst: true, rows: ['r11', 'r12'],
    });
    expect(outcomes).toEqual(['offset']);
  });
});

describe('anchoredWindow: two cursors', () => {
  it('serves the rows between them, each found where it is', async () => {
    const platform = new Platform(rowsUpTo(30));
    const { settings, outcomes } = settingsFor();
    platform.remove('r6');
    const first = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    expect(await placed(platform, settings, first, { after: cursorOf(5, row(5)), before: cursorOf(9, row(9)) })).toEqual({
      window: { start: 6, end: 8 }, requests: [], fromFirst: true, rows: ['r7', 'r8'],
    });
    expect(outcomes).toEqual(['exact', 'moved']);
  });

  it('places a position cursor at its position beside an anchored one', async () => {
    const platform = new Platform(rowsUpTo(30));
    const { settings, outcomes } = settingsFor();
    const first = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    const position: DecodedCursor = { position: 5, anchor: null, owner: null };
    expect(await placed(platform, settings, first, { after: position, before: cursorOf(8, row(8)) })).toEqual({
      window: { start: 6, end: 8 }, requests: [], fromFirst: true, rows: ['r6', 'r7'],
    });
    expect(outcomes).toEqual(['exact']);
  });

  it("serves from the wider call's rows when one cursor needed it, the other looked up again there by id", async () => {
    const platform = new Platform(rowsUpTo(50));
    const { settings, outcomes } = settingsFor({ upstreamMaxPageSize: 40 });
    platform.remove('r1', 'r2', 'r3', 'r4', 'r5', 'r6');
    // 25..29 hold r31..r35: the after cursor's row is not read, the before cursor's row is gone from before 30.
    const first = await firstRead(platform, settings, [{ page: 5, size: 5 }]);
    expect(await placed(platform, settings, first, { after: cursorOf(9, row(9)), before: cursorOf(30, row(30)), first: 40 })).toEqual({
      window: { start: 4, end: 24 }, requests: [{ page: 0, size: 40 }], fromFirst: false, rows: rowsUpTo(30).slice(10).map((record) => record.id),
    });
    expect(outcomes).toEqual(['unverified', 'widened']);
  });

  it("looks the other cursor up again by its values when its record is gone from the wider call's rows", async () => {
    const platform = new Platform(rowsUpTo(50));
    const { settings, outcomes } = settingsFor({ upstreamMaxPageSize: 40 });
    platform.remove('r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r9');
    const first = await firstRead(platform, settings, [{ page: 5, size: 5 }]);
    expect(await placed(platform, settings, first, { after: cursorOf(9, row(9)), before: cursorOf(30, row(30)), first: 40 })).toEqual({
      window: { start: 3, end: 23 }, requests: [{ page: 0, size: 40 }], fromFirst: false, rows: rowsUpTo(30).slice(10).map((record) => record.id),
    });
    expect(outcomes).toEqual(['unverified', 'widened']);
  });

  it("keeps a cursor's place from the first call when the wider call's rows tell nothing of it", async () => {
    const platform = new Platform(rowsUpTo(60));
    const { settings, outcomes } = settingsFor({ upstreamMaxPageSize: 20 });
    platform.remove('r15', 'r16', 'r17', 'r18', 'r19', 'r20');
    // 0..9 hold r0..r9; 25..29, r31..r35: the before cursor's record r30 left them for 24.
    const first = await firstRead(platform, settings, [{ page: 0, size: 10 }, { page: 5, size: 5 }]);
    // The wider call (20..39) starts after r9's values: r9 stays at 9.
    expect(await placed(platform, settings, first, { after: cursorOf(9, row(9)), before: cursorOf(30, row(30)), first: 20 })).toEqual({
      window: { start: 10, end: 24 }, requests: [{ page: 1, size: 20 }], fromFirst: false, rows: [],
    });
    expect(outcomes).toEqual(['exact', 'widened']);
  });
});

describe("anchoredWindow: whose cursor it is", () => {
  const ACME = 'acme';
  const GLOBEX = 'globex';
  const ofAccount = (account: string | undefined, records: Row[]) => records.map((record) => ({ ...record, ...(account === undefined ? {} : { businessAccountId: account }) }));
  const otherCaller = (side: string) => [`${side} cursor belongs to another account's list; restart paging without it`, { code: 'BAD_USER_INPUT', argumentName: side, reason: 'CURSOR_OTHER_CALLER' }];

  it("refuses another account's cursor as soon as the rows read name another account, placing nothing and calling no more", async () => {
    const platform = new Platform(ofAccount(GLOBEX, rowsUpTo(30)));
    const { settings, outcomes } = settingsFor();
    const first = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    const acme = { account: ACME, sameCaller: false };
    expect(await refusal(platform, settings, first, { after: cursorOf(9, row(9), { owner: acme }), first: 3 })).toEqual(otherCaller('after'));
    // Its record gone and the rows read all after its values: no wider call on its behalf.
    platform.remove('r10', 'r11', 'r12', 'r13', 'r14');
    const gone = await firstRead(platform, settings, [{ page: 2, size: 5 }]);
    expect(await refusal(platform, settings, gone, { before: cursorOf(12, row(12), { owner: acme }), last: 3 })).toEqual(otherCaller('before'));
    // The second cursor of a request, after the first was placed.
    expect(await refusal(platform, settings, first, { after: cursorOf(5, row(5)), before: cursorOf(9, row(9), { owner: acme }) })).toEqual(otherCaller('before'));
    expect([platform.take(), outcomes]).toEqual([[], ['exact']]);
  });

  it('takes a cursor of the account the rows name, and one issued to the reading token whatever the rows name', async () => {
    const platform = new Platform(ofAccount(ACME, rowsUpTo(30)));
    const { settings, outcomes } = settingsFor();
    const first = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    expect((await placed(platform, settings, first, { after: cursorOf(9, row(9), { owner: { account: ACME, sameCaller: false } }), first: 2 })).rows).toEqual(['r10', 'r11']);
    expect((await placed(platform, settings, first, { after: cursorOf(9, row(9), { owner: { account: GLOBEX, sameCaller: true } }), first: 2 })).rows).toEqual(['r10', 'r11']);
    expect(outcomes).toEqual(['exact', 'exact']);
  });

  it("takes a cursor of rows that name no account only once its own record is among the rows read, the wider call's included", async () => {
    const platform = new Platform([...heads(3), ...rowsUpTo(30)]);
    const { settings, outcomes } = settingsFor();
    const nobody = { account: null, sameCaller: false };
    const first = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    expect((await placed(platform, settings, first, { after: cursorOf(12, row(9), { owner: nobody }), first: 2 })).rows).toEqual(['r10', 'r11']);
    const apart = await firstRead(platform, settings, [{ page: 5, size: 2 }]);
    expect(await placed(platform, settings, apart, { after: cursorOf(9, row(9), { owner: nobody }), first: 2 })).toEqual({
      window: { start: 13, end: 15 }, requests: [{ page: 1, size: 7 }], fromFirst: false, rows: ['r10'],
    });
    // Its record gone: its values could be another account's.
    platform.remove('r9');
    const gone = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    expect(await refusal(platform, settings, gone, { after: cursorOf(12, row(9), { owner: nobody }), first: 2 })).toEqual(otherCaller('after'));
    // Not read at all, and nothing contradicts its place: still nothing vouches for it.
    const unread = await firstRead(platform, settings, [{ page: 1, size: 10 }]);
    expect(await refusal(platform, settings, unread, { after: cursorOf(5, row(5), { owner: nobody }), first: 2 })).toEqual(otherCaller('after'));
    expect(platform.take()).toEqual([]);
    expect(outcomes).toEqual(['exact', 'widened']);
  });

  it("refuses a cursor of an account no row read names, after the wider call that could have shown one", async () => {
    const platform = new Platform(ofAccount(GLOBEX, rowsUpTo(5)));
    const { settings, outcomes } = settingsFor();
    const first = await firstRead(platform, settings, [{ page: 2, size: 10 }]);
    expect(await refusal(platform, settings, first, { after: cursorOf(20, row(20), { owner: { account: ACME, sameCaller: false } }), first: 2 })).toEqual(otherCaller('after'));
    expect([platform.take(), outcomes]).toEqual([[{ page: 2, size: 8 }], []]);
  });
});

describe('anchoredWindow without anchors', () => {
  it('is the window of the cursors\' positions, read from the first call, telling no outcome', async () => {
    const platform = new Platform(rowsUpTo(30));
    const { settings, outcomes } = settingsFor({ order: [] });
    const first = await firstRead(platform, settings, [{ page: 0, size: 20 }]);
    const at = (position: number): DecodedCursor => ({ position, anchor: null, owner: null });
    expect(await placed(platform, settings, first, { after: at(3), before: at(6) })).toEqual({ window: { start: 4, end: 6 }, requests: [], fromFirst: true, rows: ['r4', 'r5'] });
    expect(await placed(platform, settings, first, { first: 2 })).toEqual({ window: { start: 0, end: 2 }, requests: [], fromFirst: true, rows: ['r0', 'r1'] });
    expect(outcomes).toEqual([]);
  });
});

describe('locateJoin', () => {
  /** What `pages` of `records` (no totals) show. */
  async function fresh(records: Row[], pages: PageRequest[]): Promise<ListKnowledge<Row>> {
    const platform = new Platform(records, { totals: false });
    return firstRead(platform, settingsFor().settings, pages);
  }

  it('is where the record is now by its id, wherever it was and whichever side it bounds', async () => {
    const list = await fresh(rowsUpTo(30), [{ page: 0, size: 20 }]);
    expect(locateJoin(list, row(7), 7, 'after', ORDER)).toBe(7);
    expect(locateJoin(list, row(7), 15, 'before', ORDER)).toBe(7);
    // By id even when its values changed: it is the same record.
    expect(locateJoin(list, { id: 'r7', n: 999 }, 3, 'after', ORDER)).toBe(7);
  });

  it("is, for a record gone, the row before the first row after its values (after), or that row (before)", async () => {
    const records = rowsUpTo(30).filter((record) => record.id !== 'r7');
    const list = await fresh(records, [{ page: 0, size: 20 }]);
    expect(locateJoin(list, row(7), 7, 'after', ORDER)).toBe(6);
    expect(locateJoin(list, row(7), 7, 'before', ORDER)).toBe(7);
    // A record tied with r4 on n comes after it by the id tiebreak ('r4' < 'r4x'), before r5.
    expect(locateJoin(list, { id: 'r4x', n: 40 }, 4, 'after', ORDER)).toBe(4);
    expect(locateJoin(list, { id: 'r3x', n: 40 }, 4, 'before', ORDER)).toBe(4);
  });

  it("is the list's start and end when the rows read reach them, and null when the rows read do not bracket the values", async () => {
    const list = await fresh(rowsUpTo(10).slice(2), [{ page: 0, size: 20 }]);
    expect(locateJoin(list, row(1), 0, 'after', ORDER)).toBe(-1);
    expect(locateJoin(list, row(1), 0, 'before', ORDER)).toBe(0);
    expect(locateJoin(list, row(20), 9, 'after', ORDER)).toBe(7);
    expect(locateJoin(list, row(20), 9, 'before', ORDER)).toBe(8);
    // Nulls sort last: a record without a value is after every value.
    expect(locateJoin(list, { id: 'z', n: null }, 9, 'before', ORDER)).toBe(8);
    const middle = await fresh(rowsUpTo(30), [{ page: 1, size: 10 }]);
    expect(locateJoin(middle, { id: 'x', n: 15 }, 9, 'after', ORDER)).toBeNull();
    expect(locateJoin(middle, { id: 'x', n: 195 }, 19, 'after', ORDER)).toBeNull();
    expect(locateJoin(middle, { id: 'x', n: 145 }, 14, 'after', ORDER)).toBe(14);
  });

  it('is null at a gap in the rows read, even one that starts where a short page ended', async () => {
    // Two answers of a list that grew between them: page 0 of 10 came back with 7 rows, page 2 of 5 full.
    const platform = new Platform(rowsUpTo(7), { totals: false });
    const settings = settingsFor().settings;
    const list = new ListKnowledge(platform.fetchPage, 0, settings.pageSize);
    await list.fetch([{ page: 0, size: 10 }]);
    platform.insert(...rowsUpTo(20).slice(7));
    await list.fetch([{ page: 2, size: 5 }]);
    expect([list.firstAbsent, list.run(10, 15).length]).toEqual([7, 5]);
    expect(locateJoin(list, { id: 'x', n: 75 }, 7, 'after', ORDER)).toBeNull();
    expect(locateJoin(list, { id: 'x', n: 75 }, 8, 'before', ORDER)).toBeNull();
  });

  it('is null when nothing was read', async () => {
    const list = await fresh(rowsUpTo(3), [{ page: 5, size: 10 }]);
    expect(locateJoin(list, row(7), 7, 'after', ORDER)).toBeNull();
  });

  it('looks in the run of rows read around its old position, the nearest end of the rows read when it is outside them', async () => {
    const list = await fresh(rowsUpTo(30), [{ page: 0, size: 5 }, { page: 2, size: 5 }]);
    // 0..4 and 10..14 were read: a value between them is bracketed by neither run.
    expect(locateJoin(list, { id: 'x', n: 75 }, 3, 'after', ORDER)).toBeNull();
    expect(locateJoin(list, { id: 'x', n: 75 }, 12, 'after', ORDER)).toBeNull();
    expect(locateJoin(list, { id: 'x', n: 115 }, 12, 'after', ORDER)).toBe(11);
    expect(locateJoin(list, { id: 'x', n: 115 }, 100, 'after', ORDER)).toBe(11);
    expect(locateJoin(list, { id: 'x', n: 25 }, 3, 'before', ORDER)).toBe(3);
    expect(locateJoin(list, { id: 'x', n: 25 }, -5, 'before', ORDER)).toBe(3);
    expect(locateJoin(list, { id: 'x', n: 25 }, 12, 'before', ORDER)).toBeNull();
  });
});
