import { describe, expect, it } from '@jest/globals';
import { paginate, type PagingOptions } from '../../src/connections/index.ts';

const BASE: PagingOptions = { pageBase: 0, defaultSize: 20, maxSize: 100, upstreamMaxPageSize: 100, binding: 'exceptions' };
const noCall = () => Promise.reject(new Error('no call is due'));

describe('paging options, checked before anything else', () => {
  it.each<[string, Partial<PagingOptions>, string]>([
    ['a page base other than 0 or 1', { pageBase: 2 as 0 }, 'pageBase must be 0 or 1, got 2'],
    ['a maximum size below 1', { maxSize: 0 }, 'maxSize must be a positive integer, got 0'],
    ['a fractional maximum size', { maxSize: 1.5 }, 'maxSize must be a positive integer, got 1.5'],
    ['a default size above the maximum', { defaultSize: 101 }, 'defaultSize must be between 1 and maxSize (100), got 101'],
    ['a default size below 1', { defaultSize: 0 }, 'defaultSize must be between 1 and maxSize (100), got 0'],
    ['an upstream page size below 1', { upstreamMaxPageSize: 0 }, 'upstreamMaxPageSize must be a positive integer, got 0'],
    ['a binding that is not text', { binding: 7 as unknown as string }, 'binding must be a string'],
    ['an unknown totals mode', { totals: 'never' as 'always' }, "totals must be 'always' or 'sometimes'"],
    ['a negative walk bound', { maxWalkRecords: -1 }, 'maxWalkRecords must be a non-negative integer'],
  ])('refuses %s', async (_, override, message) => {
    await expect(paginate({}, { ...BASE, ...override }, noCall)).rejects.toThrow(new TypeError(message));
  });

  it('takes the bounds themselves', async () => {
    const calls: unknown[] = [];
    const fetchPage = async (request: { page: number; size: number }) => {
      calls.push(request);
      return { items: [], total: 0 };
    };
    await paginate({}, { ...BASE, pageBase: 1, defaultSize: 100, maxSize: 100, upstreamMaxPageSize: 100, totals: 'always', maxWalkRecords: 0 }, fetchPage);
    await paginate({ first: 0 }, { ...BASE, defaultSize: 1, maxSize: 1 }, fetchPage);
    expect(calls).toEqual([
      { page: 1, size: 100 },
      { page: 0, size: 1 },
    ]);
  });

  it('reads sizes given as null as not given', async () => {
    const calls: unknown[] = [];
    const fetchPage = async (request: { page: number; size: number }) => {
      calls.push(request);
      return { items: [], total: 0 };
    };
    const connection = await paginate({ first: null, last: null, after: null, before: null }, { ...BASE, totals: 'always' }, fetchPage);
    expect(connection.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null });
    expect(calls).toEqual([{ page: 0, size: 20 }]);
  });
});
