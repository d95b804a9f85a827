import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { exampleTabs } from '../../src/playground/examples.ts';
import { sandboxExampleValues } from '../../src/playground/index.ts';
import type { PlaygroundTab } from '../../src/playground/page-config.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { accountOf, isoInstant, sortRecords } from '../support/expected.ts';

// Every example the playground opens with must answer real data over the sandbox on the first click.

let stack: Stack;
let ba: string;
let tabs: PlaygroundTab[];

beforeAll(async () => {
  stack = await startStack();
  ba = accountOf(stack.sandbox, stack.acme);
  tabs = exampleTabs(sandboxExampleValues(stack.sandbox.examples(ba)), '{}');
});
afterAll(() => stack.close());
beforeEach(() => stack.sandbox.resetRequests());

async function run<T>(index: number): Promise<T> {
  const tab = tabs[index]!;
  const response = await stack.gql<T>(tab.query, JSON.parse(tab.variables) as Record<string, unknown>);
  expect(response.body.errors).toBeUndefined();
  expect(response.status).toBe(200);
  return response.body.data!;
}

const ids = (list: readonly { id: string }[]) => list.map((r) => r.id);

describe('playground examples over the sandbox', () => {
  it('exceptions: the newest open bank-account verifications, with a cursor to continue', async () => {
    const data = await run<{ exceptions: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string }; edges: { cursor: string; node: { id: string; entity: { __typename: string; id: string } } }[] } }>(0);
    const expected = sortRecords(
      stack.sandbox.store.exceptions(ba).filter((e) => (e.status === 'NEW' || e.status === 'IN_PROGRESS') && e.category === 'BANK_ACCOUNT_VERIFICATION'),
      [[(e) => e.createdAt, 'DESC']],
    );
    expect(data.exceptions.totalCount).toBe(expected.length);
    expect(data.exceptions.edges.map((e) => e.node.id)).toEqual(ids(expected.slice(0, 5)));
    expect(data.exceptions.edges.map((e) => e.node.entity)).toEqual(expected.slice(0, 5).map((e) => ({ __typename: 'FinancialAccount', id: e.entityId })));
    expect(data.exceptions.pageInfo.hasNextPage).toBe(true);
    expect(data.exceptions.pageInfo.endCursor).toBe(data.exceptions.edges[4]!.cursor);
  });

  it('LinX batches: the newest batches of the first template version', async () => {
    const data = await run<{ linxBatches: { nodes: { id: string; templateDisplayName: string; templateVersion: number }[] } }>(1);
    const version = stack.sandbox.store.linxTemplates(ba)[0]!.versions[0]!;
    const expected = sortRecords(
      stack.sandbox.store.linxBatches(ba).filter((b) => b.templateVersionId === version.templateVersionId),
      [[(b) => b.createdAt, 'DESC']],
    ).slice(0, 5);
    expect(data.linxBatches.nodes).toEqual(
      expected.map((b) => expect.objectContaining({ id: b.id, templateDisplayName: b.templateDisplayName, templateVersion: b.templateVersion })),
    );
  });

  it('document acceptances: the latest answers for a Financial Account', async () => {
    const data = await run<{ documentAcceptances: { totalCount: number; edges: { node: { id: string; accepted: boolean; respondedAt: string } }[] } }>(2);
    const account = stack.sandbox.store.financialAccounts(ba)[0]!;
    const expected = sortRecords(
      stack.sandbox.store.acceptances(ba).filter((a) => a.scopes.FINANCIAL_ACCOUNT_ID === account),
      [[(a) => a.respondedAt, 'DESC']],
    );
    expect(data.documentAcceptances.totalCount).toBe(expected.length);
    expect(data.documentAcceptances.edges.map((e) => e.node)).toEqual(
      expected.slice(0, 5).map((a) => expect.objectContaining({ id: a.id, accepted: a.accepted, respondedAt: isoInstant(a.respondedAt) })),
    );
  });

  it('document: a scanned document with its download and thumbnail URLs', async () => {
    const data = await run<{ document: { id: string; name: string; status: string; url: { allowed: string; value: string }; thumbnailUrl: { allowed: string } } }>(3);
    const document = stack.sandbox.store.documents(ba).find((d) => d.status === 'SCANNED')!;
    expect(data.document).toMatchObject({ id: document.id, name: document.name, status: 'SCANNED', url: { allowed: 'GET' }, thumbnailUrl: { allowed: 'GET' } });
    expect(data.document.url.value.startsWith(stack.sandbox.documentsUrl)).toBe(true);
  });

  it('updateDocument: succeeds and hands out an upload URL', async () => {
    const passport = stack.sandbox.store.documents(ba).find((d) => d.documentType === 'passport')!;
    const data = await run<{ updateDocument: { userErrors: unknown[]; document: { id: string; name: string }; uploadUrl: { allowed: string; value: string } } }>(4);
    expect(data.updateDocument.userErrors).toEqual([]);
    expect(data.updateDocument.document).toMatchObject({ id: passport.id, name: passport.name });
    expect(data.updateDocument.uploadUrl.allowed).toBe('PUT');
    expect(data.updateDocument.uploadUrl.value.startsWith(stack.sandbox.documentsUrl)).toBe(true);
    expect(stack.platformCalls().map((r) => [r.method, r.route, r.path])).toEqual([['PUT', 'document.put', `/v1/documents/${passport.id}`]]);
  });
});
