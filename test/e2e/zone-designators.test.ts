import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../support/stack.ts';
import { accountOf, sortRecords } from '../support/expected.ts';

// Queries, cursors and federation against a platform that spells its date-times' zone in each way
// the contract's "zone designator" allows (the sandbox switched with setZoneDesignator): the same
// instants in UTC, the same order, the same pages through the same cursors, and every live change.

/** `+0000` last: the stack is left as every other test finds it. */
const DESIGNATORS = ['Z', '+00:00', '+02:00', '-05:30', '-0800', '+0000'] as const;

let stack: Stack;
let account: string;

beforeAll(async () => {
  stack = await startStack();
  account = accountOf(stack.sandbox, stack.acme);
});
afterAll(() => stack.close());

/** The sandbox stores `+0000`: the instant in UTC ISO form. */
const utc = (stored: string | undefined) => (stored === undefined ? null : `${stored.slice(0, 23)}Z`);

interface Node {
  id: string;
  createdAt: string | null;
  updatedAt?: string | null;
}
interface Page {
  edges: { cursor: string; node: Node }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/** Every node of a connection, read `size` at a time through `after` cursors. */
async function walk(query: string, field: string, variables: Record<string, unknown>, size: number, pages: number): Promise<Node[]> {
  const nodes: Node[] = [];
  let after: string | null = null;
  for (let index = 0; index < pages; index++) {
    const response: { body: { data?: Record<string, Page> | null; errors?: unknown } } = await stack.gql<Record<string, Page>>(query, { ...variables, first: size, after });
    expect(response.body.errors).toBeUndefined();
    const page: Page = response.body.data![field]!;
    nodes.push(...page.edges.map((edge) => edge.node));
    if (!page.pageInfo.hasNextPage) break;
    after = page.pageInfo.endCursor;
  }
  return nodes;
}

const EXCEPTIONS = 'query($first: Int, $after: String) { exceptions(first: $first, after: $after, orderBy: [{ field: UPDATED_AT, direction: DESC }]) { edges { cursor node { id createdAt updatedAt } } pageInfo { hasNextPage endCursor } } }';
const ACCEPTANCES = 'query($account: ID!, $first: Int, $after: String) { documentAcceptances(financialAccountId: $account, first: $first, after: $after, orderBy: [{ field: RESPONDED_AT, direction: ASC }]) { edges { cursor node { id createdAt respondedAt } } pageInfo { hasNextPage endCursor } } }';
const LINX = 'query($filter: LinxBatchFilter!, $first: Int, $after: String) { linxBatches(filter: $filter, first: $first, after: $after, orderBy: [{ field: UPDATED_AT, direction: DESC }]) { edges { cursor node { id createdAt updatedAt } } pageInfo { hasNextPage endCursor } } }';

describe.each(DESIGNATORS)('with date-times written with the zone %s', (designator) => {
  beforeAll(() => stack.sandbox.setZoneDesignator(designator));

  it('pages exceptions by updatedAt through their cursors, each instant in UTC', async () => {
    const expected = sortRecords(stack.sandbox.store.exceptions(account), [[(r) => r.updatedAt, 'DESC']]).slice(0, 45);
    expect(await walk(EXCEPTIONS, 'exceptions', {}, 9, 5)).toEqual(expected.map((r) => ({ id: r.id, createdAt: utc(r.createdAt), updatedAt: utc(r.updatedAt) })));
  });

  it('pages acceptances and LinX batches through their cursors, and answers a document and a federated account', async () => {
    const financialAccount = stack.sandbox.store.financialAccounts(account)[0]!;
    const acceptances = sortRecords(stack.sandbox.store.acceptances(account).filter((r) => r.scopes.FINANCIAL_ACCOUNT_ID === financialAccount), [[(r) => r.respondedAt, 'ASC']]).slice(0, 24);
    const got = await walk(ACCEPTANCES, 'documentAcceptances', { account: financialAccount }, 8, 3);
    expect(got).toEqual(acceptances.map((r) => ({ id: r.id, createdAt: utc(r.createdAt), respondedAt: utc(r.respondedAt) })));

    const template = stack.sandbox.store.linxTemplates(account)[0]!;
    const version = template.versions[0]!;
    const batches = sortRecords(stack.sandbox.store.linxBatches(account).filter((r) => r.templateVersionId === version.templateVersionId), [[(r) => r.updatedAt, 'DESC']]).slice(0, 20);
    const filter = { templateId: template.templateId, templateVersionId: version.templateVersionId };
    expect(await walk(LINX, 'linxBatches', { filter }, 5, 4)).toEqual(batches.map((r) => ({ id: r.id, createdAt: utc(r.createdAt), updatedAt: utc(r.updatedAt) })));

    const document = stack.sandbox.store.documents(account)[0]!;
    const answer = await stack.gql(
      'query($id: ID!, $reps: [_Any!]!) { document(id: $id) { createdAt updatedAt } _entities(representations: $reps) { ... on FinancialAccount { documentAcceptances(first: 1, orderBy: [{ field: RESPONDED_AT, direction: ASC }]) { nodes { respondedAt } } } } }',
      { id: document.id, reps: [{ __typename: 'FinancialAccount', id: financialAccount }] },
    );
    expect(answer.body).toMatchObject({ data: { document: { createdAt: utc(document.createdAt), updatedAt: utc(document.updatedAt) }, _entities: [{ documentAcceptances: { nodes: [{ respondedAt: utc(acceptances[0]!.respondedAt) }] } }] } });
    expect(answer.body.errors).toBeUndefined();
  });

  it('shows every live change at the head of the lists', async () => {
    const changes = stack.sandbox.live.step().filter((change) => change.businessAccountId === account);
    const exceptionIds = changes.filter((change) => change.kind === 'arrived' || change.kind === 'status').map((change) => change.id);
    expect(exceptionIds.length).toBeGreaterThan(0);
    const head = await walk(EXCEPTIONS, 'exceptions', {}, exceptionIds.length, 1);
    const records = new Map(stack.sandbox.store.exceptions(account).map((r) => [r.id, r]));
    expect(head.map((node) => node.id).sort()).toEqual([...exceptionIds].sort());
    expect(head.map((node) => node.updatedAt)).toEqual(head.map((node) => utc(records.get(node.id)!.updatedAt)));
  });
});
