import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { ExceptionRecord } from '../../sandbox/data/records.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { accountOf, actor, isoInstant, sortRecords } from '../support/expected.ts';
import { fetchConnection, walkBackward, walkForward } from '../support/walk.ts';

const PAGE = /* GraphQL */ `
  query Exceptions($filter: ExceptionFilter, $first: Int, $after: String, $last: Int, $before: String, $orderBy: [ExceptionOrder!]) {
    exceptions(filter: $filter, first: $first, after: $after, last: $last, before: $before, orderBy: $orderBy) {
      edges { cursor node { id } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      totalCount
    }
  }
`;

let stack: Stack;
let records: readonly ExceptionRecord[];

beforeAll(async () => {
  stack = await startStack();
  records = stack.sandbox.store.exceptions(accountOf(stack.sandbox, stack.acme));
});
afterAll(() => stack.close());
beforeEach(() => stack.sandbox.resetRequests());

const page = (variables: Record<string, unknown>, token?: string) => fetchConnection(stack.gql, PAGE, 'exceptions', variables, token);

const ids = (list: readonly { id: string }[]) => list.map((r) => r.id);

describe('exceptions connection', () => {
  it('answers every field of a record exactly as the platform holds it', async () => {
    const response = await stack.gql<{ exceptions: { nodes: unknown[] } }>(`{
      exceptions(first: 3) { nodes {
        id entityId businessAccountId category type status description createdAt updatedAt
        assignedTo { id firstName lastName email }
        createdBy { id type } updatedBy { id type }
        notes { id entityId entityType title contentText businessAccountId createdAt updatedAt createdBy { id type } updatedBy { id type } }
      } }
    }`);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data!.exceptions.nodes).toEqual(
      records.slice(0, 3).map((r) => ({
        id: r.id,
        entityId: r.entityId,
        businessAccountId: r.businessAccountId,
        category: r.category,
        type: r.type,
        status: r.status,
        description: r.description,
        createdAt: isoInstant(r.createdAt),
        updatedAt: isoInstant(r.updatedAt),
        assignedTo: r.assignedTo ? { id: r.assignedTo.id, firstName: r.assignedTo.firstName, lastName: r.assignedTo.lastName, email: r.assignedTo.email } : null,
        createdBy: actor(r.createdBy),
        updatedBy: actor(r.updatedBy),
        notes: r.notes
          ? {
              id: r.notes.id,
              entityId: r.notes.entityId,
              entityType: r.notes.entityType,
              title: r.notes.title,
              contentText: r.notes.contentText,
              businessAccountId: r.notes.businessAccountId,
              createdAt: isoInstant(r.notes.createdAt),
              updatedAt: isoInstant(r.notes.updatedAt),
              createdBy: actor(r.notes.createdBy),
              updatedBy: actor(r.notes.updatedBy),
            }
          : null,
      })),
    );
  });

  it.each([1, 7, 100])('walks the whole list forwards with first %i, one upstream call per page', async (n) => {
    const calls = await walkForward((w) => page(w), ids(records), n, records.length);
    expect(stack.platformCalls()).toHaveLength(calls);
  });

  it.each([1, 7, 100])('walks the whole list backwards with last %i', async (n) => {
    await walkBackward((w) => page(w), ids(records), n, records.length);
  });

  it('fetches an off-boundary window with one call of the smallest covering page size', async () => {
    const first = await page({ first: 7 });
    stack.sandbox.resetRequests();
    const next = await page({ first: 5, after: first.pageInfo.endCursor });
    expect(ids(next.edges.map((e) => e.node))).toEqual(ids(records.slice(7, 12)));
    const calls = stack.platformCalls();
    expect(calls).toHaveLength(1);
    const query = new URLSearchParams(calls[0]!.query);
    // records 7..11 fit in one page of 6 (page 1 = records 6..11)
    expect([query.get('page'), query.get('size')]).toEqual(['1', '6']);
  });

  it('orders by several keys with repeated sort parameters', async () => {
    const orderBy = [
      { field: 'STATUS', direction: 'ASC' },
      { field: 'CREATED_AT', direction: 'ASC' },
    ];
    const expected = sortRecords(records, [
      [(r) => r.status, 'ASC'],
      [(r) => Date.parse(isoInstant(r.createdAt)!), 'ASC'],
    ]);
    await walkForward((w) => page({ ...w, orderBy }), ids(expected), 100, records.length);
    expect(new URLSearchParams(stack.platformCalls()[0]!.query).getAll('sort')).toEqual(['status,ASC', 'createdAt,ASC']);
  });

  it('filters by status list, category, type, assignee and unassigned', async () => {
    const assignee = records.find((r) => r.assignedTo)!.assignedTo!.id!;
    const cases: [Record<string, unknown>, (r: ExceptionRecord) => boolean][] = [
      [{ status: ['NEW', 'REOPENED'] }, (r) => r.status === 'NEW' || r.status === 'REOPENED'],
      [{ category: 'TRANSACTION' }, (r) => r.category === 'TRANSACTION'],
      [{ type: 'ACH_NOC' }, (r) => r.type === 'ACH_NOC'],
      [{ assignedTo: [assignee] }, (r) => r.assignedTo?.id === assignee],
      [{ unassigned: true }, (r) => !r.assignedTo],
      [{ unassigned: true, assignedTo: [assignee] }, (r) => !r.assignedTo || r.assignedTo.id === assignee],
      [{ category: 'CUSTOMER', status: ['RESOLVED'] }, (r) => r.category === 'CUSTOMER' && r.status === 'RESOLVED'],
    ];
    for (const [filter, keep] of cases) {
      const expected = records.filter(keep);
      expect(expected.length).toBeGreaterThan(0);
      await walkForward((w) => page({ ...w, filter }), ids(expected), 100, expected.length);
    }
  });

  it('sends UNASSIGNED and repeated status values upstream', async () => {
    const assignee = records.find((r) => r.assignedTo)!.assignedTo!.id!;
    await page({ first: 1, filter: { unassigned: true, assignedTo: [assignee], status: ['NEW', 'RESOLVED'] } });
    const query = new URLSearchParams(stack.platformCalls()[0]!.query);
    expect(query.getAll('assignedTo')).toEqual([assignee, 'UNASSIGNED']);
    expect(query.getAll('status')).toEqual(['NEW', 'RESOLVED']);
  });

  it('filters by creation time interpreted in a time zone', async () => {
    const sorted = [...records].sort((a, b) => Date.parse(isoInstant(a.createdAt)!) - Date.parse(isoInstant(b.createdAt)!));
    const from = isoInstant(sorted[40]!.createdAt)!;
    const to = isoInstant(sorted[90]!.createdAt)!;
    const inRange = (r: ExceptionRecord) => {
      const t = Date.parse(isoInstant(r.createdAt)!);
      return t >= Date.parse(from) && t <= Date.parse(to);
    };
    const expected = records.filter(inRange);
    expect(expected).toHaveLength(51);
    await walkForward((w) => page({ ...w, filter: { createdFrom: from, createdTo: to } }), ids(expected), 100, 51);

    // The same instants written as Paris wall-clock time without an offset.
    const paris = (iso: string) => {
      const parts = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(new Date(iso));
      return `${parts.replace(' ', 'T')}.${iso.slice(20, 23)}`;
    };
    await walkForward(
      (w) => page({ ...w, filter: { createdFrom: paris(from), createdTo: paris(to), timeZone: 'Europe/Paris' } }),
      ids(expected),
      100,
      51,
    );
  });

  it('rejects an unknown time zone before calling the platform', async () => {
    for (const timeZone of ['Mars/Olympus', 'UTC+25', 'PST8', '+5:3', '']) {
      const response = await stack.gql(PAGE, { filter: { timeZone } });
      expect(response.body.data).toEqual({ exceptions: null });
      expect(response.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    expect(stack.platformCalls()).toHaveLength(0);
  });

  it('accepts every documented time zone form', async () => {
    for (const timeZone of ['Z', 'UTC', 'GMT', '+5', '-05', '+05:30', 'UTC+2', 'GMT-03:00', 'America/New_York']) {
      const result = await page({ first: 1, filter: { timeZone, createdFrom: '2020-01-01T00:00:00' } });
      expect(result.totalCount).toBe(records.length);
    }
  });

  it('rejects cursors that are garbage or belong to another filter or order', async () => {
    const first = await page({ first: 2 });
    stack.sandbox.resetRequests();
    const attempts = [
      { first: 2, after: 'not-a-cursor' },
      { first: 2, after: first.pageInfo.endCursor, filter: { category: 'CUSTOMER' } },
      { first: 2, after: first.pageInfo.endCursor, orderBy: [{ field: 'ID', direction: 'ASC' }] },
      { first: 2, last: 2 },
      { first: 101 },
      { last: -1 },
    ];
    for (const variables of attempts) {
      const response = await stack.gql(PAGE, variables);
      expect(response.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(response.body.data).toEqual({ exceptions: null });
    }
    expect(stack.platformCalls()).toHaveLength(0);
  });

  it('shows each Business Account only its own exceptions', async () => {
    const globexRecords = stack.sandbox.store.exceptions(accountOf(stack.sandbox, stack.globex));
    const result = await page({ first: 100 }, stack.globex);
    expect(result.edges.map((e) => e.node.id)).toEqual(ids(globexRecords.slice(0, 100)));
    expect(result.totalCount).toBe(globexRecords.length);
    const acmeIds = new Set(ids(records));
    expect(result.edges.some((e) => acmeIds.has(e.node.id))).toBe(false);
  });

  it('requires a bearer token and makes no call without one', async () => {
    for (const headers of [{}, { authorization: 'Basic abc' }] as Record<string, string>[]) {
      const response = await stack.gql(PAGE, { first: 1 }, { token: null, headers });
      expect(response.body.data).toEqual({ exceptions: null });
      expect(response.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
    expect(stack.platformCalls()).toHaveLength(0);
    const unknown = await stack.gql(PAGE, { first: 1 }, { token: 'not-a-real-token' });
    expect(unknown.body.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', upstream: { status: 401 } });
  });
});
