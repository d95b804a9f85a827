import { paginate } from '../connections/index.ts';
import { type GatewayContext, pagingOptions } from '../context.ts';
import type { DocumentAcceptanceOrder, Resolvers } from '../generated/graphql.ts';
import { acceptancesQuery, fetchAcceptances } from './api.ts';
import type { AcceptanceRecord } from './records.ts';

const FINANCIAL_ACCOUNT_SCOPE = 'FINANCIAL_ACCOUNT_ID';

interface AcceptanceArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  orderBy?: readonly DocumentAcceptanceOrder[] | null;
}

/** Shared by `Query.documentAcceptances` and the federated `FinancialAccount.documentAcceptances`. */
export function acceptancesOf(financialAccountId: string, { orderBy, ...window }: AcceptanceArgs, ctx: GatewayContext) {
  const query = acceptancesQuery(financialAccountId, orderBy);
  return paginate(window, pagingOptions(ctx, 'acceptances', query, 0, 'always'), (page) =>
    fetchAcceptances(ctx.platform, query, page),
  );
}

export const Query: Resolvers['Query'] = {
  documentAcceptances: (_, { financialAccountId, ...args }, ctx) => acceptancesOf(financialAccountId, args, ctx),
};

/** The Financial Account an acceptance is scoped to, when it has that scope. */
function scopedAccountId(record: AcceptanceRecord): string | null {
  const id = record.scopes?.[FINANCIAL_ACCOUNT_SCOPE];
  return typeof id === 'string' ? id : null;
}

export const DocumentAcceptance: Resolvers['DocumentAcceptance'] = {
  financialAccountId: scopedAccountId,
  financialAccount: (record) => {
    const id = scopedAccountId(record);
    return id === null ? null : { id };
  },
  businessAccount: (record) => (record.businessAccountId ? { id: record.businessAccountId } : null),
};

export const acceptanceResolvers: Resolvers = { Query, DocumentAcceptance };
