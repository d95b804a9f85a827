import { listConnection } from '../connections/index.ts';
import type { GatewayContext } from '../context.ts';
import type { FinancialAccountDocumentAcceptancesArgs, Resolvers, SubscriptionDocumentAcceptancesAddedArgs } from '../generated/graphql.ts';
import { uuidArgument } from '../platform/ids.ts';
import { acceptanceList, acceptancesQuery } from './api.ts';
import type { AcceptanceRecord } from './records.ts';
import { listFeedField } from '../subscriptions/index.ts';
import { acceptanceFeed, acceptanceFeedQuery } from './feeds.ts';

const FINANCIAL_ACCOUNT_SCOPE = 'FINANCIAL_ACCOUNT_ID';

/** Shared by `Query.documentAcceptances` and the federated `FinancialAccount.documentAcceptances`. */
function acceptancesOf(financialAccountId: string, { orderBy, ...window }: FinancialAccountDocumentAcceptancesArgs, ctx: GatewayContext) {
  return listConnection(ctx, acceptanceList, acceptancesQuery(financialAccountId, orderBy), window);
}

const Query: Resolvers['Query'] = {
  documentAcceptances: (_, { financialAccountId, ...args }, ctx) => acceptancesOf(uuidArgument(financialAccountId, ['financialAccountId']), args, ctx),
};

/**
 * The Financial Account entity is owned by another subgraph; this one adds its acceptances, which
 * is what makes it resolvable here. Only its id travels: a representation's was checked with the
 * representations (src/federation/representations.ts), one from a platform record is the platform's.
 */
const FinancialAccount: Resolvers['FinancialAccount'] = {
  __resolveReference: (reference) => ({ id: reference.id }),
  documentAcceptances: (account, args, ctx) => acceptancesOf(account.id, args, ctx),
};

/** The Financial Account an acceptance is scoped to, when it has that scope. */
function scopedAccountId(record: AcceptanceRecord): string | null {
  const id = record.scopes?.[FINANCIAL_ACCOUNT_SCOPE];
  return typeof id === 'string' ? id : null;
}

const DocumentAcceptance: Resolvers['DocumentAcceptance'] = {
  financialAccountId: scopedAccountId,
  financialAccount: (record) => {
    const id = scopedAccountId(record);
    return id === null ? null : { id };
  },
  businessAccount: (record) => (record.businessAccountId ? { id: record.businessAccountId } : null),
};

const Subscription: Resolvers['Subscription'] = {
  documentAcceptancesAdded: listFeedField(acceptanceFeed, ({ financialAccountId }: SubscriptionDocumentAcceptancesAddedArgs) => acceptanceFeedQuery(financialAccountId)),
};

export const acceptanceResolvers: Resolvers = { Query, Subscription, FinancialAccount, DocumentAcceptance };
