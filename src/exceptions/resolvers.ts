import { listConnection } from '../connections/index.ts';
import type { ExceptionCategory, ExceptionStatus, ExceptionType, Resolvers } from '../generated/graphql.ts';
import { sameSpelling } from '../platform/values.ts';
import { exceptionList, exceptionsQuery } from './api.ts';

const categories = sameSpelling<Exclude<ExceptionCategory, 'UNKNOWN'>>(['BANK_ACCOUNT_VERIFICATION', 'CUSTOMER', 'TRANSACTION']);
const types = sameSpelling<Exclude<ExceptionType, 'UNKNOWN'>>([
  'ACH_RETURN',
  'ACH_NOC',
  'BANK_ACCOUNT_VERIFICATION_DECLINED',
  'BANK_ACCOUNT_VERIFICATION_NOC',
  'EARNED_WAGE_ACCESS',
  'RECONCILIATION',
]);
const statuses = sameSpelling<Exclude<ExceptionStatus, 'UNKNOWN'>>(['NEW', 'IN_PROGRESS', 'RESOLVED', 'REOPENED']);

/** Which federated entity an exception is about, by its category. */
const entityTypeByCategory = {
  BANK_ACCOUNT_VERIFICATION: 'FinancialAccount',
  CUSTOMER: 'CustomerAccount',
  TRANSACTION: 'Transaction',
} as const;

export const Query: Resolvers['Query'] = {
  exceptions: (_, { filter, orderBy, ...window }, ctx) => listConnection(ctx, exceptionList, exceptionsQuery(filter, orderBy), window),
};

export const Exception: Resolvers['Exception'] = {
  category: (record) => categories.fromPlatform(record.category, 'UNKNOWN'),
  type: (record) => types.fromPlatform(record.type, 'UNKNOWN'),
  status: (record) => statuses.fromPlatform(record.status, 'UNKNOWN'),
  businessAccount: (record) => (record.businessAccountId ? { id: record.businessAccountId } : null),
  entity: (record) => {
    const category = categories.fromPlatform(record.category, 'UNKNOWN');
    if (!record.entityId || category === null || category === 'UNKNOWN') return null;
    return { __typename: entityTypeByCategory[category], id: record.entityId };
  },
};

export const exceptionResolvers: Resolvers = { Query, Exception };
