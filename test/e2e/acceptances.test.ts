import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { AcceptanceRecord } from '../../sandbox/data/records.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { accountOf, actor, isoInstant, sortRecords } from '../support/expected.ts';
import { fetchConnection, walkBackward, walkForward } from '../support/walk.ts';

const PAGE = /* GraphQL */ `
  query Acceptances($financialAccountId: ID!, $first: Int, $after: String, $last: Int, $before: String, $orderBy: [DocumentAcceptanceOrder!]) {
    documentAcceptances(financialAccountId: $financialAccountId, first: $first, after: $after, last: $last, before: $before, orderBy: $orderBy) {
      edges { cursor node { id } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      totalCount
    }
  }
`;

let stack: Stack;
let accounts: readonly string[];
let all: readonly AcceptanceRecord[];
const of = (fa: string) => all.filter((a) => a.scopes.FINANCIAL_ACCOUNT_ID === fa);
const ids = (list: readonly { id: string }[]) => list.map((r) => r.id);

beforeAll(async () => {
  stack = await startStack();
  const ba = accountOf(stack.sandbox, stack.acme);
  accounts = stack.sandbox.store.financialAccounts(ba);
  all = stack.sandbox.store.acceptances(ba);
});
afterAll(() => stack.close());
beforeEach(() => stack.sandbox.resetRequests());

const page = (variables: Record<string, unknown>, token?: string) => fetchConnection(stack.gql, PAGE, 'documentAcceptances', variables, token);

describe('documentAcceptances connection', () => {
  it('has at least three accounts with 60+ acceptances, accepted and rejected', () => {
    expect(accounts.length).toBeGreaterThanOrEqual(3);
    for (const fa of accounts) {
      expect(of(fa).length).toBeGreaterThanOrEqual(60);
      expect(new Set(of(fa).map((a) => a.accepted))).toEqual(new Set([true, false]));
    }
  });

  it('answers every field exactly', async () => {
    const fa = accounts[0]!;
    const response = await stack.gql<{ documentAcceptances: { nodes: unknown[] } }>(
      `query($fa: ID!) { documentAcceptances(financialAccountId: $fa, first: 4) { nodes {
        id documentId documentVersion acceptorType acceptorId businessAccountId scopes financialAccountId metadata accepted
        respondedAt createdBy { id type } createdAt downloadUrl financialAccount { id } businessAccount { id } } } }`,
      { fa },
    );
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data!.documentAcceptances.nodes).toEqual(
      of(fa)
        .slice(0, 4)
        .map((a) => ({
          id: a.id,
          documentId: a.documentId,
          documentVersion: a.documentVersion,
          acceptorType: a.acceptorType,
          acceptorId: a.acceptorId,
          businessAccountId: a.businessAccountId,
          scopes: a.scopes,
          financialAccountId: fa,
          metadata: a.metadata ?? null,
          accepted: a.accepted,
          respondedAt: isoInstant(a.respondedAt),
          createdBy: actor(a.createdBy),
          createdAt: isoInstant(a.createdAt),
          downloadUrl: a.downloadUrl,
          financialAccount: { id: fa },
          businessAccount: { id: a.businessAccountId },
        })),
    );
  });

  it.each([1, 7, 100])('walks every account forwards and backwards with %i', async (n) => {
    for (const fa of accounts) {
      const expected = ids(of(fa));
      const calls = await walkForward((w) => page({ ...w, financialAccountId: fa }), expected, n, expected.length);
      expect(stack.platformCalls()).toHaveLength(calls);
      await walkBackward((w) => page({ ...w, financialAccountId: fa }), expected, n, expected.length);
      stack.sandbox.resetRequests();
    }
  });

  it('orders by accepted, then response time', async () => {
    const fa = accounts[1]!;
    const orderBy = [
      { field: 'ACCEPTED', direction: 'DESC' },
      { field: 'RESPONDED_AT', direction: 'ASC' },
    ];
    const expected = sortRecords(of(fa), [
      [(a) => (a.accepted ? 1 : 0), 'DESC'],
      [(a) => Date.parse(isoInstant(a.respondedAt)!), 'ASC'],
    ]);
    await walkForward((w) => page({ ...w, financialAccountId: fa, orderBy }), ids(expected), 7, expected.length);
    expect(new URLSearchParams(stack.platformCalls()[0]!.query).getAll('sort')).toEqual(['accepted,DESC', 'respondedAt,ASC']);
  });

  it("gives another Business Account nothing of this account's acceptances", async () => {
    const result = await page({ financialAccountId: accounts[0], first: 10 }, stack.globex);
    expect(result).toEqual({ edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null }, totalCount: 0 });
  });
});
