import { describe, expect, it } from '@jest/globals';
import { paginate, type PageRequest, type PagingOptions } from '../../src/connections/index.ts';
import { rows, type Row } from './fake-platform.ts';

const OPTIONS: PagingOptions = { pageBase: 0, defaultSize: 20, maxSize: 100, upstreamMaxPageSize: 100, binding: 'exceptions', totals: 'always' };

describe('what a page answer is taken for', () => {
  it('refuses an answer without a list of items as a programming error', async () => {
    for (const answer of [{}, { items: 'r0', total: 1 }, null]) {
      await expect(paginate({ first: 5 }, OPTIONS, async () => answer as never)).rejects.toThrow(
        new TypeError('fetchPage must resolve to { items: T[], total: number | null }'),
      );
    }
  });

  it.each([-1, 2.5, Number.NaN, '20' as unknown as number, 2 ** 53])('reads totalElements %p as no total', async (total) => {
    const all = rows(20);
    const requests: PageRequest[] = [];
    const connection = await paginate({ first: 5 }, OPTIONS, async (request) => {
      requests.push(request);
      return { items: all.slice(request.page * request.size, (request.page + 1) * request.size), total };
    });
    expect(connection.nodes).toEqual(all.slice(0, 5));
    expect(connection.totalCount).toBeNull();
    // Without a total, only the row after the window tells whether there is a next page.
    expect(connection.pageInfo.hasNextPage).toBe(true);
    expect(requests).toEqual([
      { page: 0, size: 5 },
      { page: 5, size: 1 },
    ]);
  });

  it('takes totalElements 0 as a total', async () => {
    const connection = await paginate({ first: 5 }, OPTIONS, async () => ({ items: [] as Row[], total: 0 }));
    expect([connection.totalCount, connection.pageInfo.hasNextPage]).toEqual([0, false]);
  });
});
