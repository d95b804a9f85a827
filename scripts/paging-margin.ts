/**
 * Rows read per page by walks with positional and with anchored cursors (docs/paging.md, "Cost"):
 * `./node_modules/.bin/node scripts/paging-margin.ts`. Counts rows, not time; the benchmark
 * harness measures latency.
 */
import { paginate } from '../src/connections/paginate.ts';
import type { Connection, PageRequest, PagingOptions } from '../src/connections/types.ts';

interface Row {
  id: string;
  key: number;
}

const LENGTH = 300;
const rows: Row[] = Array.from({ length: LENGTH }, (_, index) => ({ id: `r${String(index).padStart(3, '0')}`, key: LENGTH - index }));

async function walk(first: number, anchored: boolean): Promise<{ pages: number; calls: number; rowsPerPage: number }> {
  let read = 0;
  let calls = 0;
  const fetchPage = async ({ page, size }: PageRequest) => {
    calls++;
    const items = rows.slice(page * size, page * size + size);
    read += items.length;
    return { items, total: rows.length };
  };
  const options: PagingOptions = {
    pageBase: 0,
    defaultSize: 20,
    maxSize: 100,
    upstreamMaxPageSize: 100,
    binding: 'margin',
    totals: 'always',
    ...(anchored && { order: [{ field: 'key', descending: true }, { field: 'id', descending: false }] }),
  };
  let after: string | null = null;
  let pages = 0;
  for (;;) {
    const connection: Connection<Row> = await paginate({ first, after }, options, fetchPage);
    pages++;
    if (!connection.pageInfo.hasNextPage) break;
    after = connection.pageInfo.endCursor;
  }
  // The first page has no cursor: only the pages after it show the margin.
  return { pages, calls, rowsPerPage: (read - Math.min(first, LENGTH)) / Math.max(1, pages - 1) };
}

for (const first of [1, 7, 10, 20, 25, 50, 100]) {
  const positional = await walk(first, false);
  const anchored = await walk(first, true);
  console.log(
    `first ${first}: ${positional.pages} pages; calls ${positional.calls} vs ${anchored.calls}; rows per page after a cursor ${positional.rowsPerPage.toFixed(1)} (positional) vs ${anchored.rowsPerPage.toFixed(1)} (anchored)`,
  );
}

// The other cost: building each edge's cursor, on every page, the first one included.
const { anchoredCursorEncoder, cursorEncoder } = await import('../src/connections/cursor.ts');
const { anchorReader } = await import('../src/connections/order.ts');
const records = Array.from({ length: 100 }, (_, index) => ({ id: crypto.randomUUID(), createdAt: `${new Date(Date.UTC(2026, 0, 1) + index * 1000).toISOString().slice(0, 23)}+0000` }));
const order = [{ field: 'createdAt', descending: true }, { field: 'id', descending: false }];
const PAGES = 5000;
const timed = (build: () => void): number => {
  const started = performance.now();
  for (let page = 0; page < PAGES; page++) build();
  return ((performance.now() - started) / PAGES) * 1000;
};
const positionalUs = timed(() => {
  const encode = cursorEncoder('exceptions');
  records.forEach((_, index) => encode(index));
});
const anchoredUs = timed(() => {
  const encode = anchoredCursorEncoder('exceptions');
  const anchorOf = anchorReader(order);
  records.forEach((record, index) => encode(index, anchorOf(record)));
});
console.log(`cursors of a 100-edge page: ${positionalUs.toFixed(0)} µs positional, ${anchoredUs.toFixed(0)} µs anchored`);
