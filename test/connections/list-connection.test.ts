import { describe, expect, it } from '@jest/globals';
import { testConfig } from '../../src/settings/config.ts';
import { NO_OWNER } from '../../src/connections/owner-tag.ts';
import { listConnection, PagingFacts, readCursor, type ListDescriptor, type PageResult } from '../../src/connections/index.ts';
import type { Query } from '../../src/platform/client.ts';

interface Payment {
  id: string;
  amount: number;
  createdAt: string;
}

function payment(n: number, amount: number): Payment {
  return { id: `p${String(n).padStart(3, '0')}`, amount, createdAt: `2026-08-01T00:00:${String(n).padStart(2, '0')}.000+0000` };
}

/**
 * A list whose rows are kept in the order the test gives them; serves at most `cap` rows a page,
 * with hasNext and totalPages computed from what it served, as Spring Data does.
 */
function paymentsList(rows: Payment[], cap = 100): ListDescriptor<Payment> {
  return {
    list: 'payments',
    pageBase: 0,
    totals: 'always',
    defaultSort: ['createdAt,DESC'],
    fetch: async (_client, _query, { page, size }): Promise<PageResult<Payment>> => {
      const served = Math.min(size, cap);
      const totalPages = Math.ceil(rows.length / served);
      return { items: rows.slice(page * served, page * served + served), total: rows.length, hasNext: page + 1 < totalPages, totalPages };
    },
  };
}

interface LogCall {
  level: 'info' | 'warn';
  fields: unknown;
  message: string;
}

function context(paging = new PagingFacts()) {
  const logged: LogCall[] = [];
  const logger = {
    info: (fields: unknown, message: string) => logged.push({ level: 'info', fields, message }),
    warn: (fields: unknown, message: string) => logged.push({ level: 'warn', fields, message }),
  };
  return { logged, ctx: { config: testConfig(), logger: logger as never, platform: undefined as never, caller: NO_OWNER, paging } };
}

const BINDING = (query: string) => `payments${query}`;

describe('a list connection', () => {
  const rows = [payment(1, 30), payment(2, 10), payment(3, 20)];

  it('anchors its cursors to a sort given as one string', async () => {
    const { ctx } = context();
    const query: Query = { sort: 'amount,ASC' };
    const connection = await listConnection(ctx, paymentsList(rows), query, { first: 2 });
    expect(connection.nodes.map((row) => row.id)).toEqual(['p001', 'p002']);
    expect(readCursor(connection.pageInfo.endCursor!, BINDING('?sort=amount%2CASC')).anchor).toEqual({ id: 'p002', keys: [10, 'p002'] });
  });

  it('anchors its cursors to a sort given as a list, and to the default sort without one', async () => {
    const { ctx } = context();
    const sorted = await listConnection(ctx, paymentsList(rows), { sort: ['amount,DESC', 'id,ASC'] }, { first: 1 });
    expect(readCursor(sorted.pageInfo.endCursor!, BINDING('?sort=amount%2CDESC&sort=id%2CASC')).anchor).toEqual({ id: 'p001', keys: [30, 'p001'] });
    const unsorted = await listConnection(ctx, paymentsList(rows), { sort: null }, { first: 1 });
    expect(readCursor(unsorted.pageInfo.endCursor!, BINDING('')).anchor).toEqual({ id: 'p001', keys: ['2026-08-01T00:00:01.000+0000', 'p001'] });
  });

  it('logs a cursor record found elsewhere, and not one found where the cursor left it', async () => {
    const { ctx, logged } = context();
    const live = [payment(1, 10), payment(2, 20), payment(3, 30), payment(4, 40)];
    const query: Query = { sort: 'amount,ASC' };
    const first = await listConnection(ctx, paymentsList(live), query, { first: 2 });
    const again = await listConnection(ctx, paymentsList(live), query, { first: 2, after: first.pageInfo.endCursor });
    expect(again.nodes.map((row) => row.id)).toEqual(['p003', 'p004']);
    expect(logged).toEqual([]);

    live.unshift(payment(5, 5));
    const moved = await listConnection(ctx, paymentsList(live), query, { first: 2, after: first.pageInfo.endCursor });
    expect(moved.nodes.map((row) => row.id)).toEqual(['p003', 'p004']);
    expect(logged).toEqual([{ level: 'info', fields: { requestId: undefined, list: 'payments', anchor: 'moved' }, message: 'cursor record was not where the cursor left it' }]);
  });

  it('warns once when the platform serves fewer rows per page than asked', async () => {
    const paging = new PagingFacts();
    const { ctx, logged } = context(paging);
    const many = Array.from({ length: 60 }, (_, index) => payment(index + 1, index));
    const connection = await listConnection(ctx, paymentsList(many, 15), {}, { first: 40 });
    expect(connection.nodes.map((row) => row.id)).toEqual(many.slice(0, 40).map((row) => row.id));
    await listConnection(ctx, paymentsList(many, 15), {}, { first: 40 });
    expect(paging.pageCap('payments')).toBe(15);
    expect(logged).toEqual([
      {
        level: 'warn',
        fields: { requestId: undefined, list: 'payments', pageCap: 15 },
        message: 'the platform serves fewer rows per page than asked; paging with the smaller size from now on',
      },
    ]);
  });

  it('tells anchor outcomes to observers until they unsubscribe', async () => {
    const paging = new PagingFacts();
    const { ctx } = context(paging);
    const seen: unknown[] = [];
    const unsubscribe = paging.observeAnchors((event) => seen.push(event));
    const query: Query = { sort: 'amount,ASC' };
    const first = await listConnection(ctx, paymentsList(rows), query, { first: 1 });
    await listConnection(ctx, paymentsList(rows), query, { first: 1, after: first.pageInfo.endCursor });
    unsubscribe();
    await listConnection(ctx, paymentsList(rows), query, { first: 1, after: first.pageInfo.endCursor });
    expect(seen).toEqual([{ list: 'payments', outcome: 'exact' }]);
  });
});
