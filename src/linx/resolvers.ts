import { listConnection } from '../connections/index.ts';
import type { LinxBatchStatus, Resolvers, SubscriptionLinxBatchesChangedArgs } from '../generated/graphql.ts';
import type { PlatformSchema } from '../platform/records.ts';
import { enumMapping } from '../platform/values.ts';
import { linxBatchList, linxQuery } from './api.ts';
import { listFeedField } from '../subscriptions/index.ts';
import { linxBatchFeed, linxBatchFeedQuery } from './feeds.ts';

// Schema value → platform value; `satisfies` makes a missing or extra value a compile error.
// The platform answers ACTIVE besides its filter values (openapi/platform.yaml).
const statuses = enumMapping({
  NEW: 'NEW',
  QUEUED: 'QUEUED',
  COMPLETED: 'COMPLETED',
  INVALID: 'INVALID',
  CANCELLING: 'CANCELLING',
  FAILED: 'FAILED',
  ACTIVE: 'ACTIVE',
} satisfies Record<Exclude<LinxBatchStatus, 'UNKNOWN'>, PlatformSchema['LinxBatchStatusFilter'] | 'ACTIVE'>);

const Query: Resolvers['Query'] = {
  linxBatches: (_, { filter, orderBy, ...window }, ctx) => listConnection(ctx, linxBatchList, linxQuery(filter, orderBy), window),
};

const LinxBatch: Resolvers['LinxBatch'] = {
  status: (record) => statuses.fromPlatform(record.status, 'UNKNOWN'),
};

const Subscription: Resolvers['Subscription'] = {
  linxBatchesChanged: listFeedField(linxBatchFeed, ({ filter }: SubscriptionLinxBatchesChangedArgs) => linxBatchFeedQuery(filter)),
};

export const linxResolvers: Resolvers = { Query, Subscription, LinxBatch };
