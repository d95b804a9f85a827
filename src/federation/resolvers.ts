import { acceptancesOf } from '../acceptances/resolvers.ts';
import type { Resolvers } from '../generated/graphql.ts';

// Stub entities owned by other subgraphs need no resolvers here: only their ids travel.
// FinancialAccount is resolvable because this subgraph adds a field to it.
export const federationResolvers: Resolvers = {
  FinancialAccount: {
    __resolveReference: (reference) => ({ id: reference.id }),
    documentAcceptances: (account, args, ctx) => acceptancesOf(account.id, args, ctx),
  },
  DocumentHolder: { __resolveType: (holder) => holder.__typename },
  ExceptionEntity: { __resolveType: (entity) => entity.__typename },
};
