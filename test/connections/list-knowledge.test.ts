import { describe, expect, it } from '@jest/globals';
import { encodeCursor, paginate, type PageRequest, type PagingOptions } from '../../src/connections/index.ts';
import { ListKnowledge } from '../../src/connections/list-knowledge.ts';
import { RequestPageSize } from '../../src/connections/page-cap.ts';
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

describe('what a request keeps of the answers it read', () => {
  it('keeps the total of an earlier page when a later one reports none', async () => {
    const all = rows(40);
    const requests: PageRequest[] = [];
    const connection = await paginate({ first: 30 }, { ...OPTIONS, upstreamMaxPageSize: 20 }, async (request) => {
      requests.push(request);
      const items = all.slice(request.page * request.size, (request.page + 1) * request.size);
      return { items, total: request.page === 0 ? all.length : null };
    });
    expect(connection.nodes).toEqual(all.slice(0, 30));
    expect([connection.totalCount, connection.pageInfo.hasNextPage]).toEqual([40, true]);
    expect(requests).toEqual([
      { page: 0, size: 15 },
      { page: 1, size: 15 },
    ]);
  });

  it('counts the records a walk to the end reads from the page holding the window start', async () => {
    const all = rows(600);
    const requests: PageRequest[] = [];
    const connection = await paginate(
      { last: 5, after: encodeCursor(499, OPTIONS.binding) },
      { ...OPTIONS, totals: 'sometimes', maxWalkRecords: 100 },
      async (request) => {
        requests.push(request);
        return { items: all.slice(request.page * request.size, (request.page + 1) * request.size), total: null };
      },
    );
    expect(connection.nodes).toEqual(all.slice(595));
    expect(requests).toEqual([
      { page: 5, size: 100 },
      { page: 6, size: 100 },
    ]);
  });

  it('stops at an empty first row when an answer that should carry a total does not', async () => {
    const requests: PageRequest[] = [];
    const connection = await paginate({ last: 5 }, OPTIONS, async (request) => {
      requests.push(request);
      return { items: [] as Row[], total: null };
    });
    expect(connection.nodes).toEqual([]);
    expect([connection.pageInfo.hasNextPage, connection.pageInfo.hasPreviousPage, connection.totalCount]).toEqual([false, false, null]);
    expect(requests).toEqual([{ page: 0, size: 1 }]);
  });
});

describe('where the list is known to end', () => {
  const knowledgeOf = (answer: (request: PageRequest) => { items: Row[]; total: number | null }) => new ListKnowledge(async (request) => answer(request), 0, new RequestPageSize(100));

  it('leaves a position as it is while no answer showed an end', async () => {
    const list = knowledgeOf((request) => ({ items: rows(100).slice(request.page * request.size, (request.page + 1) * request.size), total: null }));
    expect(list.clampToEnd(40)).toBe(40);
    await list.fetch([{ page: 0, size: 10 }]);
    expect([list.clampToEnd(40), list.clampToEnd(5)]).toEqual([40, 5]);
  });

  it("brings a position back to a short page's end, or to the reported total, whichever comes first", async () => {
    const short = knowledgeOf((request) => ({ items: rows(13).slice(request.page * request.size, (request.page + 1) * request.size), total: null }));
    await short.fetch([{ page: 1, size: 10 }]);
    expect([short.clampToEnd(40), short.clampToEnd(13), short.clampToEnd(12)]).toEqual([13, 13, 12]);
    const counted = knowledgeOf(() => ({ items: rows(30).slice(0, 10), total: 30 }));
    await counted.fetch([{ page: 0, size: 10 }]);
    expect([counted.clampToEnd(40), counted.clampToEnd(30), counted.clampToEnd(25)]).toEqual([30, 30, 25]);
    // A total above a short page's end does not move the end past the rows that are missing.
    const both = knowledgeOf((request) => ({ items: rows(13).slice(request.page * request.size, (request.page + 1) * request.size), total: 20 }));
    await both.fetch([{ page: 1, size: 10 }]);
    expect(both.clampToEnd(40)).toBe(13);
  });
});
