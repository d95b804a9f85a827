import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { paginate } from '../../src/connections/index.ts';
import type { AnchorOutcome, Connection, ConnectionArgs, PagingOptions } from '../../src/connections/index.ts';
import { LIVE_ORDER, LiveList, type Change, type LiveRow } from './live-list.ts';

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), at: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), visible: fc.boolean() }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }) }),
  fc.constant({ kind: 'remove-anchor' as const }),
  fc.record({ kind: fc.constant('toggle-status' as const), at: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }) }),
);

interface Scenario {
  length: number;
  size: number;
  /** Changes made before each page request after the first; the walk goes on unchanged once they run out. */
  between: Change[][];
  variant: { pageBase: 0 | 1; totals: boolean };
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  length: fc.integer({ min: 0, max: 200 }),
  size: fc.integer({ min: 1, max: 25 }),
  between: fc.array(fc.array(change, { maxLength: 4 }), { maxLength: 12 }),
  variant: fc.constantFrom({ pageBase: 0 as const, totals: true }, { pageBase: 1 as const, totals: false }),
});

const byOrder = (a: LiveRow, b: LiveRow) => b.key - a.key || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** What a walk returned and what the list held along the way. */
interface Outcome {
  returned: LiveRow[];
  /** Rows in the list at the start that were still in it at every later request. */
  stayed: Set<string>;
  outcomes: AnchorOutcome[];
}

/**
 * Walks the whole list one page at a time in `direction`, applying the scenario's changes between
 * requests, and checks each page against the list as it is at that request: every node is in the
 * list, totalCount is its length, and pageInfo tells exactly whether rows exist before and after.
 */
async function walk({ length, size, between, variant }: Scenario, direction: 'forward' | 'backward'): Promise<Outcome> {
  const live = new LiveList(length);
  const outcomes: AnchorOutcome[] = [];
  const options: PagingOptions = {
    pageBase: variant.pageBase,
    defaultSize: 20,
    maxSize: 100,
    upstreamMaxPageSize: 100,
    binding: 'live?status=NEW',
    totals: variant.totals ? 'always' : 'sometimes',
    order: LIVE_ORDER,
    onAnchor: (outcome) => outcomes.push(outcome),
  };
  const fetchPage = live.fetchPage(variant.pageBase, variant.totals);
  const returned: LiveRow[] = [];
  let cursor: string | null = null;
  for (let step = 0; ; step++) {
    if (step > 0) for (const each of between[step - 1] ?? []) live.apply(each);
    const args: ConnectionArgs = direction === 'forward' ? { first: size, after: cursor } : { last: size, before: cursor };
    const page: Connection<LiveRow> = await paginate(args, options, fetchPage);
    const list = live.visible();
    const ids = list.map((row) => row.id);
    const nodes = page.nodes.map((node) => ({ ...node }));
    for (const node of nodes) expect(ids).toContain(node.id);
    expect(page.totalCount).toBe(variant.totals ? list.length : null);
    if (nodes.length > 0) {
      const first = ids.indexOf(nodes[0]!.id);
      const last = ids.indexOf(nodes.at(-1)!.id);
      // The page is a contiguous run of the list as it is now.
      expect(nodes.map((node) => node.id)).toEqual(ids.slice(first, last + 1));
      expect(page.pageInfo.hasPreviousPage).toBe(first > 0);
      expect(page.pageInfo.hasNextPage).toBe(last < list.length - 1);
    }
    if (direction === 'forward') returned.push(...nodes);
    else returned.unshift(...nodes);
    const more = direction === 'forward' ? page.pageInfo.hasNextPage : page.pageInfo.hasPreviousPage;
    if (!more || nodes.length === 0) break;
    cursor = direction === 'forward' ? page.pageInfo.endCursor : page.pageInfo.startCursor;
    live.anchorId = direction === 'forward' ? nodes.at(-1)!.id : nodes[0]!.id;
    // Changes only ever end: the walk must as well.
    expect(step).toBeLessThan(length + 200);
  }
  return { returned, stayed: live.stayed(), outcomes };
}

function checkWalk({ returned, stayed }: Outcome): void {
  const ids = returned.map((row) => row.id);
  // Nothing twice, everything in the list's order.
  expect(new Set(ids).size).toBe(ids.length);
  expect([...returned].sort(byOrder).map((row) => row.id)).toEqual(ids);
  // Every row that stayed in the list from the start of the walk to its end, exactly once.
  const seen = new Set(ids);
  expect([...stayed].filter((id) => !seen.has(id))).toEqual([]);
}

describe('walking a list that changes between pages', () => {
  it.each(['forward', 'backward'] as const)('returns every row that stays, once and in order, walking %s', async (direction) => {
    const outcomes = new Set<AnchorOutcome>();
    await fc.assert(
      fc.asyncProperty(scenario, async (each) => {
        const result = await walk(each, direction);
        checkWalk(result);
        for (const outcome of result.outcomes) outcomes.add(outcome);
      }),
      { numRuns: 120, seed: direction === 'forward' ? 20261123 : 11232026 },
    );
    // The runs reach every way of finding an anchor again that lists of this size need (an emptied
    // list leaves nothing to find a cursor by, so offset may occur too).
    expect([...outcomes]).toEqual(expect.arrayContaining(['exact', 'moved', 'sort-keys', 'widened']));
    expect(outcomes.has('unverified')).toBe(false);
  });

  it('returns every row exactly once over an unchanging list, each cursor found where it was', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (each) => {
        for (const direction of ['forward', 'backward'] as const) {
          const result = await walk({ ...each, between: [] }, direction);
          expect(result.returned.map((row) => row.id)).toEqual(new LiveList(each.length).visible().map((row) => row.id));
          expect(result.outcomes.every((outcome) => outcome === 'exact')).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('the walks that went wrong with positional cursors', () => {
  const ORDERED = { order: LIVE_ORDER };

  /** Walks `first: 10` forward over 60 rows, making `changes[i]` before page i + 2; returns the ids served. */
  async function walkTen(changes: ((live: LiveList, served: string[]) => void)[], anchored: boolean): Promise<string[]> {
    const live = new LiveList(60);
    const fetchPage = live.fetchPage(0, true);
    const options: PagingOptions = { pageBase: 0, defaultSize: 20, maxSize: 100, upstreamMaxPageSize: 100, binding: 'live', totals: 'always', ...(anchored ? ORDERED : {}) };
    const served: string[] = [];
    let after: string | null = null;
    for (let page = 0; ; page++) {
      if (page > 0) changes[page - 1]?.(live, served);
      const connection: Connection<LiveRow> = await paginate({ first: 10, after }, options, fetchPage);
      served.push(...connection.nodes.map((row) => row.id));
      if (!connection.pageInfo.hasNextPage) return served;
      after = connection.pageInfo.endCursor;
    }
  }

  const arrive = (count: number) => (live: LiveList) => {
    for (let index = 0; index < count; index++) live.apply({ kind: 'insert', at: 0, visible: true });
  };
  // A status change moves a row out of the list (which holds status NEW only): here, the earliest
  // served rows still in it, as operators resolve work items they have seen.
  const resolveServed = (count: number) => (live: LiveList, served: string[]) => {
    const listed = new Set(live.visible().map((row) => row.id));
    for (const id of served.filter((candidate) => listed.has(candidate)).slice(0, count)) {
      const at = live.allIds().indexOf(id);
      live.apply({ kind: 'toggle-status', at: (at + 0.5) / live.allIds().length });
    }
  };
  const seeded = new LiveList(60).visible().map((row) => row.id);

  it('returns no row twice when 3 rows arrive after page 1 and 2 more after page 3', async () => {
    const changes = [arrive(3), undefined, arrive(2)].map((change) => change ?? (() => undefined));
    const positional = await walkTen(changes, false);
    expect(positional.length - new Set(positional).size).toBe(5);
    expect(await walkTen(changes, true)).toEqual(seeded);
  });

  it('misses no row when 2 served rows leave the list after page 1 and 2 more after page 2', async () => {
    const changes = [resolveServed(2), resolveServed(2)];
    const positional = await walkTen(changes, false);
    expect(seeded.filter((id) => !positional.includes(id))).toEqual(['r0010', 'r0011', 'r0022', 'r0023']);
    // Every row once: the resolved ones were served before they left.
    expect(await walkTen(changes, true)).toEqual(seeded);
  });
});

describe("a middle edge's cursor", () => {
  const options: PagingOptions = { pageBase: 0, defaultSize: 20, maxSize: 100, upstreamMaxPageSize: 100, binding: 'live', totals: 'always', order: LIVE_ORDER };

  /** Rows 10..29 of 60 as a page, then `change`, then a page of 3 after or before the page's edge `index`; returns its ids and how its anchor was found. */
  async function pageBy(index: number, side: 'after' | 'before', change: (live: LiveList) => void): Promise<[string[], AnchorOutcome[]]> {
    const live = new LiveList(60);
    const fetchPage = live.fetchPage(0, true);
    const page = await paginate({ first: 20, after: (await paginate({ first: 10 }, options, fetchPage)).pageInfo.endCursor }, options, fetchPage);
    const cursor = page.edges[index]!.cursor;
    change(live);
    const outcomes: AnchorOutcome[] = [];
    const next = await paginate(side === 'after' ? { first: 3, after: cursor } : { last: 3, before: cursor }, { ...options, onAnchor: (outcome) => outcomes.push(outcome) }, fetchPage);
    return [next.nodes.map((row) => row.id), outcomes];
  }
  const arrive = (count: number) => (live: LiveList) => {
    for (let index = 0; index < count; index++) live.apply({ kind: 'insert', at: 0, visible: true });
  };

  it('pages from its own record over an unchanged list', async () => {
    expect(await pageBy(4, 'after', () => undefined)).toEqual([['r0015', 'r0016', 'r0017'], ['exact']]);
    expect(await pageBy(15, 'before', () => undefined)).toEqual([['r0022', 'r0023', 'r0024'], ['exact']]);
  });

  it("follows its page's nearer end where rows arriving at the head moved it", async () => {
    expect(await pageBy(4, 'after', arrive(5))).toEqual([['r0015', 'r0016', 'r0017'], ['moved']]);
    // The page's last row, five rows further than where it was, is not among the rows read around
    // the cursor's place: found by the one wider call.
    expect(await pageBy(15, 'before', arrive(5))).toEqual([['r0022', 'r0023', 'r0024'], ['widened']]);
  });

  it('starts no nearer the head than the list when the rows before it left', async () => {
    // Rows 0..28 leave, edge 10 among them: the page's last row, its anchor, is now the list's
    // first, and edge 10 nine rows before it would be before the list's start.
    const leave = (count: number) => (live: LiveList) => {
      for (const id of live.allIds().slice(0, count)) live.apply({ kind: 'toggle-status', at: (live.allIds().indexOf(id) + 0.5) / live.allIds().length });
    };
    expect(await pageBy(10, 'after', leave(29))).toEqual([['r0029', 'r0030', 'r0031'], ['widened']]);
    expect(await pageBy(10, 'before', leave(29))).toEqual([[], ['widened']]);
    // Rows 0..10 leave, the page's first among them: found by its sort values, one row before the list's start.
    expect(await pageBy(4, 'after', leave(11))).toEqual([['r0015', 'r0016', 'r0017'], ['sort-keys']]);
    expect(await pageBy(2, 'before', leave(11))).toEqual([['r0011', 'r0012'], ['sort-keys']]);
  });
});
