import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { LinxBatchRecord } from '../../sandbox/data/records.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { accountOf, actor, isoInstant } from '../support/expected.ts';
import { fetchConnection, walkBackward, walkForward } from '../support/walk.ts';

const PAGE = /* GraphQL */ `
  query Linx($filter: LinxBatchFilter!, $first: Int, $after: String, $last: Int, $before: String, $orderBy: [LinxBatchOrder!]) {
    linxBatches(filter: $filter, first: $first, after: $after, last: $last, before: $before, orderBy: $orderBy) {
      edges { cursor node { id } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      totalCount
    }
  }
`;

let stack: Stack;
let batches: readonly LinxBatchRecord[];
let filter: { templateId: string; templateVersionId: string };
let ofVersion: LinxBatchRecord[];

beforeAll(async () => {
  stack = await startStack();
  const ba = accountOf(stack.sandbox, stack.acme);
  batches = stack.sandbox.store.linxBatches(ba);
  const template = stack.sandbox.store.linxTemplates(ba)[0]!;
  filter = { templateId: template.templateId, templateVersionId: template.versions[1]!.templateVersionId };
  ofVersion = batches.filter((b) => b.templateVersionId === filter.templateVersionId);
});
afterAll(() => stack.close());
beforeEach(() => {
  stack.sandbox.resetRequests();
  stack.sandbox.setLinxEnvelope(false);
});

const page = (variables: Record<string, unknown>) => fetchConnection(stack.gql, PAGE, 'linxBatches', { filter, ...variables });

const ids = (list: readonly { id: string }[]) => list.map((r) => r.id);

describe('LinX batches connection', () => {
  it('has enough data to page through', () => {
    expect(ofVersion.length).toBeGreaterThanOrEqual(20);
  });

  it('answers every field exactly, with statuses the schema knows', async () => {
    const response = await stack.gql<{ linxBatches: { nodes: unknown[] } }>(
      `query($filter: LinxBatchFilter!) { linxBatches(filter: $filter, first: 5) { nodes {
        id status templateId templateVersionId templateVersion templateDisplayName activeRequestsCount cancelledRequestsCount
        completedRequestsCount declinedRequestsCount expiredRequestsCount failedRequestsCount rejectedRequestsCount totalRequestsCount
        createdBy { id type } createdAt updatedBy { id type } updatedAt } } }`,
      { filter },
    );
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data!.linxBatches.nodes).toEqual(
      ofVersion.slice(0, 5).map((b) => ({
        id: b.id,
        status: b.status,
        templateId: b.templateId,
        templateVersionId: b.templateVersionId,
        templateVersion: b.templateVersion,
        templateDisplayName: b.templateDisplayName,
        activeRequestsCount: b.activeRequestsCount,
        cancelledRequestsCount: b.cancelledRequestsCount,
        completedRequestsCount: b.completedRequestsCount,
        declinedRequestsCount: b.declinedRequestsCount,
        expiredRequestsCount: b.expiredRequestsCount,
        failedRequestsCount: b.failedRequestsCount,
        rejectedRequestsCount: b.rejectedRequestsCount,
        totalRequestsCount: b.totalRequestsCount,
        createdBy: actor(b.createdBy),
        createdAt: isoInstant(b.createdAt),
        updatedBy: actor(b.updatedBy),
        updatedAt: isoInstant(b.updatedAt),
      })),
    );
  });

  it.each([1, 7, 100])('walks forwards with first %i over a bare-array platform answer (no totals), one call per page', async (n) => {
    const calls = await walkForward((w) => page(w), ids(ofVersion), n, null);
    // A window of n plus the look-ahead row fits one page up to the upstream page-size cap (100); above it,
    // two of 51, the second asked only when the first came back full (a short one shows the list's end).
    const pages = n + 1 <= 100 ? calls : calls + Math.floor(ids(ofVersion).length / 51);
    expect(stack.platformCalls()).toHaveLength(pages);
    // one-based pages upstream
    expect(stack.platformCalls().every((c) => Number(new URLSearchParams(c.query).get('page')) >= 1)).toBe(true);
  });

  it.each([1, 7, 100])('walks backwards with last %i over a bare-array answer', async (n) => {
    await walkBackward((w) => page(w), ids(ofVersion), n, null);
  });

  it.each([1, 7, 100])('walks both ways with %i when the platform answers an envelope, with totals', async (n) => {
    stack.sandbox.setLinxEnvelope(true);
    await walkForward((w) => page(w), ids(ofVersion), n, ofVersion.length);
    await walkBackward((w) => page(w), ids(ofVersion), n, ofVersion.length);
  });

  it('searches batch and template names, ANDed with the status filter', async () => {
    const name = stack.sandbox.store.linxBatchName(ofVersion[0]!.id)!;
    const term = name.split(/\s+/)[0]!.toLowerCase();
    const matches = ofVersion.filter((b) => {
      const text = `${stack.sandbox.store.linxBatchName(b.id)} ${b.templateDisplayName}`.toLowerCase();
      return text.includes(term);
    });
    expect(matches.length).toBeGreaterThan(0);
    await walkForward((w) => page({ ...w, filter: { ...filter, search: term.toUpperCase() } }), ids(matches), 100, null);

    const status = ofVersion.find((b) => b.status !== 'ACTIVE')!.status;
    const both = matches.filter((b) => b.status === status);
    await walkForward((w) => page({ ...w, filter: { ...filter, search: term, status } }), ids(both), 100, null);
    const query = new URLSearchParams(stack.platformCalls().at(-1)!.query);
    expect([query.get('search'), query.get('status'), query.get('templateId'), query.get('templateVersionId')]).toEqual([
      term,
      status,
      filter.templateId,
      filter.templateVersionId,
    ]);
  });

  it('orders by template version and total requests', async () => {
    const orderBy = [{ field: 'TOTAL_REQUESTS_COUNT', direction: 'DESC' }];
    const expected = [...ofVersion].sort((a, b) => b.totalRequestsCount - a.totalRequestsCount || (a.id < b.id ? -1 : 1));
    await walkForward((w) => page({ ...w, orderBy }), ids(expected), 7, null);
    expect(new URLSearchParams(stack.platformCalls()[0]!.query).getAll('sort')).toEqual(['totalRequestsCount,DESC']);
  });

  it('rejects statuses the platform cannot filter on, without calling it', async () => {
    for (const status of ['ACTIVE', 'UNKNOWN']) {
      const response = await stack.gql(PAGE, { filter: { ...filter, status } });
      expect(response.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    expect(stack.platformCalls()).toHaveLength(0);
  });
});
