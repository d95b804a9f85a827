import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { GraphQLError, parse, type DocumentNode } from 'graphql';
import type { Sandbox } from '../../sandbox/index.ts';

// An example of a second subgraph beside the gateway's (`npm run federation` composes the two
// behind Hive Gateway; the composition tests use it too). It owns the accounts the gateway's
// subgraph only references by id (`resolvable: false` stubs there) and gives them names, and it
// points at the gateway's `Document` entity by id. Its records are built from the sandbox's data,
// so joins across the two subgraphs meet on real ids. It never receives the caller's token: a
// router sends it to the gateway's subgraph only (docs/federation.md).

export const ACCOUNTS_TYPE_DEFS: DocumentNode = parse(/* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"])

  type Query {
    "Financial Accounts of the caller's Business Account."
    financialAccounts: [FinancialAccount!]!
    financialAccount(id: ID!): FinancialAccount
    "Documents someone flagged for review; may name a document more than once."
    documentsToReview: [Document!]!
  }

  type BusinessAccount @key(fields: "id") {
    id: ID!
    name: String!
  }

  type FinancialAccount @key(fields: "id") {
    id: ID!
    name: String!
  }

  type CustomerAccount @key(fields: "id") {
    id: ID!
    name: String!
  }

  type BeneficialOwner @key(fields: "id") {
    id: ID!
    name: String!
  }

  type Transaction @key(fields: "id") {
    id: ID!
    name: String!
  }

  type Document @key(fields: "id", resolvable: false) {
    id: ID!
  }
`);

type AccountKind = 'BusinessAccount' | 'FinancialAccount' | 'CustomerAccount' | 'BeneficialOwner' | 'Transaction';

export interface AccountsData {
  /** Entity names by kind and id. */
  names: Record<AccountKind, Map<string, string>>;
  /** Financial Account ids per Business Account, in the sandbox's order. */
  financialAccountsOf: Map<string, readonly string[]>;
  businessAccountOfToken: Map<string, string>;
  /** Document ids `documentsToReview` answers, duplicates included. */
  documentsToReview: string[];
}

/** Names every entity the sandbox's records point at, per kind, numbered in record order. */
export function accountsFromSandbox(sandbox: Sandbox, documentsToReview: string[]): AccountsData {
  const names: AccountsData['names'] = {
    BusinessAccount: new Map(),
    FinancialAccount: new Map(),
    CustomerAccount: new Map(),
    BeneficialOwner: new Map(),
    Transaction: new Map(),
  };
  const add = (kind: AccountKind, id: string, label: string) => {
    if (!names[kind].has(id)) names[kind].set(id, `${label} ${names[kind].size + 1}`);
  };
  const financialAccountsOf = new Map<string, readonly string[]>();
  for (const { businessAccountId, businessAccountName } of sandbox.tokens) {
    names.BusinessAccount.set(businessAccountId, businessAccountName);
    const accounts = sandbox.store.financialAccounts(businessAccountId);
    financialAccountsOf.set(businessAccountId, accounts);
    for (const id of accounts) add('FinancialAccount', id, `${businessAccountName} operating account`);
    for (const exception of sandbox.store.exceptions(businessAccountId)) {
      if (exception.category === 'CUSTOMER') add('CustomerAccount', exception.entityId, 'Customer');
      if (exception.category === 'TRANSACTION') add('Transaction', exception.entityId, 'Transaction');
    }
    for (const document of sandbox.store.documents(businessAccountId)) {
      if (document.holderType === 'CUSTOMER') add('CustomerAccount', document.holderId, 'Customer');
      if (document.holderType === 'BENEFICIARY') add('BeneficialOwner', document.holderId, 'Beneficial owner');
    }
  }
  const businessAccountOfToken = new Map(sandbox.tokens.map((t) => [t.token, t.businessAccountId]));
  return { names, financialAccountsOf, businessAccountOfToken, documentsToReview };
}

interface AccountsContext {
  businessAccountId: string | undefined;
}

function entity(data: AccountsData, kind: AccountKind) {
  return {
    __resolveReference: ({ id }: { id: string }) => {
      const name = data.names[kind].get(id);
      return name === undefined ? null : { id, name };
    },
  };
}

function accountsSchema(data: AccountsData) {
  const callersAccounts = (ctx: AccountsContext): readonly string[] => {
    if (!ctx.businessAccountId) throw new GraphQLError('Unknown or missing token', { extensions: { code: 'UNAUTHENTICATED' } });
    return data.financialAccountsOf.get(ctx.businessAccountId) ?? [];
  };
  return buildSubgraphSchema([
    {
      typeDefs: ACCOUNTS_TYPE_DEFS,
      resolvers: {
        Query: {
          financialAccounts: (_: unknown, __: unknown, ctx: AccountsContext) =>
            callersAccounts(ctx).map((id) => ({ id, name: data.names.FinancialAccount.get(id) })),
          financialAccount: (_: unknown, { id }: { id: string }, ctx: AccountsContext) =>
            callersAccounts(ctx).includes(id) ? { id, name: data.names.FinancialAccount.get(id) } : null,
          documentsToReview: () => data.documentsToReview.map((id) => ({ id })),
        },
        BusinessAccount: entity(data, 'BusinessAccount'),
        FinancialAccount: entity(data, 'FinancialAccount'),
        CustomerAccount: entity(data, 'CustomerAccount'),
        BeneficialOwner: entity(data, 'BeneficialOwner'),
        Transaction: entity(data, 'Transaction'),
      } as never,
    },
  ]);
}

/** Serves the accounts subgraph on loopback, on `port` (default: a free one). */
export async function startAccountsSubgraph(
  data: AccountsData,
  /** Sees the headers of every request the subgraph receives (the router-recipe tests check what reached it). */
  onRequest?: (headers: Record<string, string | string[] | undefined>) => void,
  port = 0,
): Promise<{ url: string; stop(): Promise<void> }> {
  // Whoever starts it stops it (`stop()`): no signal handlers of Apollo's own, which would re-raise the signal.
  const server = new ApolloServer<AccountsContext>({ schema: accountsSchema(data), plugins: [ApolloServerPluginInlineTraceDisabled()], stopOnTerminationSignals: false });
  const { url } = await startStandaloneServer(server, {
    listen: { port, host: '127.0.0.1' },
    context: async ({ req }) => {
      onRequest?.(req.headers);
      return { businessAccountId: data.businessAccountOfToken.get(req.headers.authorization?.replace(/^Bearer /, '') ?? '') };
    },
  });
  return { url, stop: () => server.stop() };
}
