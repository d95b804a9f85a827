import { listConnection } from '../connections/index.ts';
import type { ExceptionCategory, ExceptionStatus, ExceptionType, Resolvers, SubscriptionExceptionsChangedArgs } from '../generated/graphql.ts';
import type { PlatformSchema } from '../platform/records.ts';
import { enumMapping } from '../platform/values.ts';
import { exceptionList, exceptionsQuery } from './api.ts';
import { listFeedField } from '../subscriptions/index.ts';
import { exceptionFeed, exceptionFeedQuery } from './feeds.ts';

// Schema value → platform value. `satisfies` makes a value missing on either side, or one
// too many, a compile error; UNKNOWN is the schema's own, for values it does not know yet.
const categories = enumMapping({
  BANK_ACCOUNT_VERIFICATION: 'BANK_ACCOUNT_VERIFICATION',
  CUSTOMER: 'CUSTOMER',
  TRANSACTION: 'TRANSACTION',
} satisfies Record<Exclude<ExceptionCategory, 'UNKNOWN'>, PlatformSchema['ExceptionCategory']>);
const types = enumMapping({
  ACH_RETURN: 'ACH_RETURN',
  ACH_NOC: 'ACH_NOC',
  BANK_ACCOUNT_VERIFICATION_DECLINED: 'BANK_ACCOUNT_VERIFICATION_DECLINED',
  BANK_ACCOUNT_VERIFICATION_NOC: 'BANK_ACCOUNT_VERIFICATION_NOC',
  EARNED_WAGE_ACCESS: 'EARNED_WAGE_ACCESS',
  RECONCILIATION: 'RECONCILIATION',
} satisfies Record<Exclude<ExceptionType, 'UNKNOWN'>, PlatformSchema['ExceptionType']>);
const statuses = enumMapping({
  NEW: 'NEW',
  IN_PROGRESS: 'IN_PROGRESS',
  RESOLVED: 'RESOLVED',
  REOPENED: 'REOPENED',
} satisfies Record<Exclude<ExceptionStatus, 'UNKNOWN'>, PlatformSchema['ExceptionStatus']>);

/** Which federated entity an exception is about, by its category. */
const entityTypeByCategory = {
  BANK_ACCOUNT_VERIFICATION: 'FinancialAccount',
  CUSTOMER: 'CustomerAccount',
  TRANSACTION: 'Transaction',
} as const satisfies Record<Exclude<ExceptionCategory, 'UNKNOWN'>, string>;

const Query: Resolvers['Query'] = {
  exceptions: (_, { filter, orderBy, ...window }, ctx) => listConnection(ctx, exceptionList, exceptionsQuery(filter, orderBy), window),
};

const Exception: Resolvers['Exception'] = {
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

const Subscription: Resolvers['Subscription'] = {
  exceptionsChanged: listFeedField(exceptionFeed, ({ filter }: SubscriptionExceptionsChangedArgs) => exceptionFeedQuery(filter)),
};

export const exceptionResolvers: Resolvers = { Query, Subscription, Exception };
