import type { Resolvers } from '../generated/graphql.ts';

// Stub entities owned by other subgraphs need no resolvers here: only their ids travel.
// FinancialAccount's resolvers live with the acceptances it gains (src/acceptances/resolvers.ts).
export const federationResolvers: Resolvers = {
  DocumentHolder: { __resolveType: (holder) => holder.__typename },
  ExceptionEntity: { __resolveType: (entity) => entity.__typename },
};
