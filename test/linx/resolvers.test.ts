import { describe, expect, it } from '@jest/globals';
import { testConfig } from '../../src/settings/config.ts';
import { NO_OWNER } from '../../src/connections/owner-tag.ts';
import { PagingFacts, readCursor } from '../../src/connections/index.ts';
import { linxResolvers } from '../../src/linx/resolvers.ts';
import { queryString } from '../../src/platform/client.ts';

type Resolver = (...args: unknown[]) => unknown;
const linxBatches = (linxResolvers.Query as unknown as Record<string, Resolver>).linxBatches!;
const status = (linxResolvers.LinxBatch as unknown as Record<string, Resolver>).status!;

const batch = (id: string, totalRequestsCount: number) => ({ id, status: 'QUEUED', totalRequestsCount, createdAt: '2026-08-01T00:00:00.000+0000' });

/** A context whose platform answers every GET with `body` and notes the arguments it was called with. */
function context(body: unknown) {
  const gets: unknown[][] = [];
  const platform = {
    get: async (...args: unknown[]) => {
      gets.push(args);
      return body;
    },
  };
  const logger = { info: () => undefined, warn: () => undefined };
  return { gets, ctx: { config: testConfig(), logger, platform, caller: NO_OWNER, paging: new PagingFacts() } };
}

describe('Query.linxBatches', () => {
  it('asks the batches of the filter, in the order asked, and answers the connection of the page', async () => {
    const { gets, ctx } = context({ content: [batch('b1', 4), batch('b2', 9)], totalElements: 2, totalPages: 1, number: 0, size: 3 });
    const args = {
      filter: { templateId: '7e000000-0000-4000-8000-000000000001', templateVersionId: '7e000000-0000-4000-8000-0000000000f1', search: ' pay ', status: 'QUEUED' },
      orderBy: [{ field: 'TOTAL_REQUESTS_COUNT', direction: 'ASC' }],
      first: 2,
    };
    const connection = (await linxBatches({}, args, ctx, {})) as { nodes: unknown[]; totalCount: number | null; pageInfo: Record<string, unknown> };
    expect(gets).toEqual([
      ['linx.batches', '/v2/linx/workflow-batches', { templateId: '7e000000-0000-4000-8000-000000000001', templateVersionId: '7e000000-0000-4000-8000-0000000000f1', search: 'pay', status: 'QUEUED', sort: ['totalRequestsCount,ASC'], page: 1, size: 3 }],
    ]);
    expect(connection.nodes).toEqual([batch('b1', 4), batch('b2', 9)]);
    expect(connection.totalCount).toBe(2);
    expect({ ...connection.pageInfo, startCursor: undefined, endCursor: undefined }).toEqual({
      hasNextPage: false,
      hasPreviousPage: false,
      startCursor: undefined,
      endCursor: undefined,
    });
    // Cursors are bound to the list and to the filter and order asked, and anchored to that order.
    const binding = `linx${queryString({ templateId: '7e000000-0000-4000-8000-000000000001', templateVersionId: '7e000000-0000-4000-8000-0000000000f1', search: 'pay', status: 'QUEUED', sort: ['totalRequestsCount,ASC'] })}`;
    expect(readCursor(connection.pageInfo.startCursor as string, binding)).toEqual({ position: 0, anchor: { id: 'b1', keys: [4, 'b1'] }, owner: { account: null, sameCaller: true } });
    expect(readCursor(connection.pageInfo.endCursor as string, binding)).toEqual({ position: 1, anchor: { id: 'b2', keys: [9, 'b2'] }, owner: { account: null, sameCaller: true } });
  });

  it('refuses a status that only answers carry before asking the platform anything', async () => {
    const { gets, ctx } = context([]);
    const args = { filter: { templateId: '7e000000-0000-4000-8000-000000000001', templateVersionId: '7e000000-0000-4000-8000-0000000000f1', status: 'ACTIVE' }, orderBy: null, first: 2 };
    expect(() => linxBatches({}, args, ctx, {})).toThrow('status ACTIVE cannot be used as a filter; use one of NEW, QUEUED, COMPLETED, INVALID, CANCELLING, FAILED');
    expect(gets).toEqual([]);
  });
});

describe('LinxBatch.status', () => {
  it.each(['NEW', 'QUEUED', 'COMPLETED', 'INVALID', 'CANCELLING', 'FAILED', 'ACTIVE'])('reads the platform status %s as the schema value of the same name', (value) => {
    expect(status({ id: 'b1', status: value }, {}, {}, {})).toBe(value);
  });

  it('reads a status the schema does not know as UNKNOWN, and none as null', () => {
    expect([status({ id: 'b1', status: 'ARCHIVED' }, {}, {}, {}), status({ id: 'b1', status: null }, {}, {}, {}), status({ id: 'b1' }, {}, {}, {})]).toEqual(['UNKNOWN', null, null]);
  });
});
