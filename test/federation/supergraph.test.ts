import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { composeServices } from '@apollo/composition';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { parse } from 'graphql';
import type { AcceptanceRecord, DocumentRecord } from '../../sandbox/index.ts';
import { accountOf, sortRecords } from '../support/expected.ts';
import { bearer, postGraphQL } from '../support/graphql-client.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { accountsFromSandbox, ACCOUNTS_TYPE_DEFS, startAccountsSubgraph, type AccountsData } from '../../examples/accounts-subgraph/accounts-subgraph.ts';

// This gateway as one subgraph of a supergraph: its SDL (fetched over HTTP like
// a schema registry would) composed with an accounts subgraph, served by Apollo
// Gateway, queried across both.

interface GatewayContext {
  authorization?: string;
}

interface Response<T> {
  data?: T;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> }[];
}

let stack: Stack;
let accounts: AccountsData;
let accountsSubgraph: Awaited<ReturnType<typeof startAccountsSubgraph>>;
let supergraph: ApolloServer<GatewayContext>;
let supergraphUrl: string;
let ba: string;
let reviewIds: string[];
let compositionHints: string[];

async function query<T>(text: string, variables: Record<string, unknown> = {}, token: string | null = stack.acme): Promise<Response<T>> {
  const answer = await postGraphQL(supergraphUrl, { query: text, variables }, token ? bearer(token) : {});
  expect(answer.status).toBe(200);
  return answer.body as Response<T>;
}

/** The sandbox's default order: newest first, id as the tiebreaker. */
const newestFirst = <T extends { id: string; createdAt: string }>(records: readonly T[]) => sortRecords(records, [[(r) => r.createdAt, 'DESC']]);
const ids = (records: readonly { id: string }[]) => records.map((r) => r.id);

beforeAll(async () => {
  stack = await startStack();
  ba = accountOf(stack.sandbox, stack.acme);
  const documents = stack.sandbox.store.documents(ba);
  reviewIds = [documents[0]!.id, documents[1]!.id, documents[0]!.id, documents[2]!.id, documents[1]!.id, documents[0]!.id];
  accounts = accountsFromSandbox(stack.sandbox, reviewIds);
  accountsSubgraph = await startAccountsSubgraph(accounts);

  const { data } = (await postGraphQL<{ _service: { sdl: string } }>(`${stack.gateway.url}/graphql`, { query: '{ _service { sdl } }' })).body as { data: { _service: { sdl: string } } };
  const composition = composeServices([
    { name: 'platform', typeDefs: parse(data._service.sdl), url: `${stack.gateway.url}/graphql` },
    { name: 'accounts', typeDefs: ACCOUNTS_TYPE_DEFS, url: accountsSubgraph.url },
  ]);
  if (composition.errors) {
    throw new Error(`Composition failed:\n${composition.errors.map((e) => `${String(e.extensions.code)}: ${e.message}`).join('\n')}`);
  }
  compositionHints = composition.hints.map((hint) => hint.toString());

  const gateway = new ApolloGateway({
    supergraphSdl: composition.supergraphSdl,
    buildService: ({ url }) =>
      new RemoteGraphQLDataSource<GatewayContext>({
        url,
        // The caller's token is what scopes platform data: every subgraph gets it.
        willSendRequest({ request, context }) {
          if (context.authorization) request.http?.headers.set('authorization', context.authorization);
        },
      }),
  });
  supergraph = new ApolloServer<GatewayContext>({ gateway });
  ({ url: supergraphUrl } = await startStandaloneServer(supergraph, {
    listen: { port: 0, host: '127.0.0.1' },
    context: async ({ req }) => ({ authorization: req.headers.authorization }),
  }));
}, 60_000);

afterAll(async () => {
  await supergraph?.stop();
  await accountsSubgraph?.stop();
  await stack?.close();
});

beforeEach(() => stack.sandbox.resetRequests());

describe('supergraph of this subgraph and an accounts subgraph', () => {
  it('composes without hints', () => {
    expect(compositionHints).toEqual([]);
  });

  it('pages through the acceptances of each Financial Account listed by the accounts subgraph', async () => {
    const PAGE = `query($first: Int, $after: String) {
      financialAccounts { id name documentAcceptances(first: $first, after: $after) {
        totalCount pageInfo { hasNextPage hasPreviousPage endCursor } edges { cursor node { id accepted financialAccountId } } } } }`;
    const acceptancesOf = (fa: string): AcceptanceRecord[] => newestFirst(stack.sandbox.store.acceptances(ba).filter((a) => a.scopes.FINANCIAL_ACCOUNT_ID === fa));
    const financialAccounts = stack.sandbox.store.financialAccounts(ba);
    expect(financialAccounts.length).toBeGreaterThanOrEqual(3);

    type Page = { totalCount: number; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string }; edges: { cursor: string; node: { id: string; accepted: boolean; financialAccountId: string } }[] };
    const first = await query<{ financialAccounts: { id: string; name: string; documentAcceptances: Page }[] }>(PAGE, { first: 3 });
    expect(first.errors).toBeUndefined();
    expect(first.data!.financialAccounts.map((fa) => ({ id: fa.id, name: fa.name, ids: fa.documentAcceptances.edges.map((e) => e.node.id), total: fa.documentAcceptances.totalCount }))).toEqual(
      financialAccounts.map((fa, i) => ({ id: fa, name: `Acme Payroll Inc operating account ${i + 1}`, ids: ids(acceptancesOf(fa).slice(0, 3)), total: acceptancesOf(fa).length })),
    );
    for (const fa of first.data!.financialAccounts) {
      expect(fa.documentAcceptances.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, endCursor: fa.documentAcceptances.edges[2]!.cursor });
      expect(fa.documentAcceptances.edges.map((e) => [e.node.financialAccountId, e.node.accepted])).toEqual(acceptancesOf(fa.id).slice(0, 3).map((a) => [fa.id, a.accepted]));
    }
    // One listing call per account, each with the caller's token.
    expect(stack.platformCalls().map((r) => [r.route, r.authorization])).toEqual(financialAccounts.map(() => ['acceptances', `Bearer ${stack.acme}`]));

    // The next page of the second account, through the accounts subgraph's lookup.
    const second = financialAccounts[1]!;
    const after = first.data!.financialAccounts[1]!.documentAcceptances.pageInfo.endCursor;
    const next = await query<{ financialAccount: { name: string; documentAcceptances: Page } }>(
      `query($id: ID!, $after: String) { financialAccount(id: $id) { name documentAcceptances(first: 4, after: $after) {
        totalCount pageInfo { hasNextPage hasPreviousPage endCursor } edges { cursor node { id accepted financialAccountId } } } } }`,
      { id: second, after },
    );
    expect(next.errors).toBeUndefined();
    expect(next.data!.financialAccount.name).toBe('Acme Payroll Inc operating account 2');
    expect(next.data!.financialAccount.documentAcceptances.edges.map((e) => e.node.id)).toEqual(ids(acceptancesOf(second).slice(3, 7)));
    expect(next.data!.financialAccount.documentAcceptances.pageInfo.hasPreviousPage).toBe(true);
  });

  it('names the entity of each exception from the accounts subgraph', async () => {
    const response = await query<{ exceptions: { nodes: { id: string; category: string; entity: { __typename: string; id: string; name: string } | null }[] } }>(
      `{ exceptions(first: 40) { nodes { id category entity {
          __typename
          ... on FinancialAccount { id name }
          ... on CustomerAccount { id name }
          ... on Transaction { id name } } } } }`,
    );
    expect(response.errors).toBeUndefined();
    const expected = newestFirst(stack.sandbox.store.exceptions(ba)).slice(0, 40);
    const typename = { BANK_ACCOUNT_VERIFICATION: 'FinancialAccount', CUSTOMER: 'CustomerAccount', TRANSACTION: 'Transaction' } as const;
    expect(response.data!.exceptions.nodes).toEqual(
      expected.map((e) => ({
        id: e.id,
        category: e.category,
        entity: { __typename: typename[e.category], id: e.entityId, name: accounts.names[typename[e.category]].get(e.entityId) },
      })),
    );
    expect(new Set(expected.map((e) => e.category))).toEqual(new Set(['BANK_ACCOUNT_VERIFICATION', 'CUSTOMER', 'TRANSACTION']));
  });

  it('resolves a document\'s holder and Business Account names across subgraphs', async () => {
    const documents = stack.sandbox.store.documents(ba);
    const holderOfType = (type: DocumentRecord['holderType']) => documents.find((d) => d.holderType === type)!;
    const picks = [holderOfType('CUSTOMER'), holderOfType('BENEFICIARY'), holderOfType('BUSINESS_ACCOUNT')];
    const response = await query<Record<string, unknown>>(
      `query($a: ID!, $b: ID!, $c: ID!) {
        a: document(id: $a) { ...Names }
        b: document(id: $b) { ...Names }
        c: document(id: $c) { ...Names }
      }
      fragment Names on Document {
        id holderType
        holder { __typename ... on CustomerAccount { id name } ... on BeneficialOwner { id name } ... on BusinessAccount { id name } }
        businessAccount { id name }
      }`,
      { a: picks[0]!.id, b: picks[1]!.id, c: picks[2]!.id },
    );
    expect(response.errors).toBeUndefined();
    const business = { id: ba, name: 'Acme Payroll Inc' };
    expect(response.data).toEqual({
      a: { id: picks[0]!.id, holderType: 'CUSTOMER', holder: { __typename: 'CustomerAccount', id: picks[0]!.holderId, name: accounts.names.CustomerAccount.get(picks[0]!.holderId) }, businessAccount: business },
      b: { id: picks[1]!.id, holderType: 'BENEFICIARY', holder: { __typename: 'BeneficialOwner', id: picks[1]!.holderId, name: accounts.names.BeneficialOwner.get(picks[1]!.holderId) }, businessAccount: business },
      c: { id: picks[2]!.id, holderType: 'BUSINESS_ACCOUNT', holder: { __typename: 'BusinessAccount', ...business }, businessAccount: business },
    });
    expect(stack.platformCalls().map((r) => r.path).sort()).toEqual(picks.map((d) => `/v1/documents/${d.id}`).sort());
  });

  it('resolves documents another subgraph points at with one platform fetch per distinct id', async () => {
    const response = await query<{ documentsToReview: { id: string; name: string; status: string }[] }>('{ documentsToReview { id name status } }');
    expect(response.errors).toBeUndefined();
    const document = (id: string) => stack.sandbox.store.document(id)!;
    expect(response.data!.documentsToReview).toEqual(reviewIds.map((id) => ({ id, name: document(id).name, status: document(id).status })));
    const distinct = [...new Set(reviewIds)];
    expect(stack.platformCalls().map((r) => [r.method, r.path]).sort()).toEqual(distinct.map((id) => ['GET', `/v1/documents/${id}`]).sort());
  });
});

describe('entity resolution in this subgraph', () => {
  it('answers _entities for many Document representations, duplicates included, with one GET per distinct id', async () => {
    const documents = stack.sandbox.store.documents(ba);
    const distinct = documents.slice(0, 12).map((d) => d.id);
    const representations = [...distinct, ...distinct.slice(0, 5), distinct[0]!, distinct[7]!].map((id) => ({ __typename: 'Document', id }));
    const response = await stack.gql<{ _entities: { id: string; name: string; documentType: string }[] }>(
      `query($representations: [_Any!]!) { _entities(representations: $representations) { ... on Document { id name documentType } } }`,
      { representations },
    );
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data!._entities.map((e) => [e.id, e.name])).toEqual(representations.map((r) => [r.id, stack.sandbox.store.document(r.id)!.name]));
    const gets = stack.platformCalls().filter((r) => r.route === 'document.get');
    expect(gets.map((r) => r.path).sort()).toEqual(distinct.map((id) => `/v1/documents/${id}`).sort());
    expect(stack.platformCalls()).toHaveLength(distinct.length);
  });

  it('answers a FinancialAccount representation with its acceptances, without asking the platform for the account', async () => {
    const fa = stack.sandbox.store.financialAccounts(ba)[2]!;
    const response = await stack.gql<{ _entities: { id: string; documentAcceptances: { totalCount: number } }[] }>(
      `query($representations: [_Any!]!) { _entities(representations: $representations) { ... on FinancialAccount { id documentAcceptances(first: 1) { totalCount } } } }`,
      { representations: [{ __typename: 'FinancialAccount', id: fa }] },
    );
    expect(response.body.errors).toBeUndefined();
    const total = stack.sandbox.store.acceptances(ba).filter((a) => a.scopes.FINANCIAL_ACCOUNT_ID === fa).length;
    expect(response.body.data!._entities).toEqual([{ id: fa, documentAcceptances: { totalCount: total } }]);
    expect(stack.platformCalls().map((r) => r.route)).toEqual(['acceptances']);
  });
});
