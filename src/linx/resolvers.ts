import { listConnection } from '../connections/index.ts';
import type { LinxBatchStatus, Resolvers } from '../generated/graphql.ts';
import { sameSpelling } from '../platform/values.ts';
import { linxBatchList, linxQuery } from './api.ts';

const statuses = sameSpelling<Exclude<LinxBatchStatus, 'UNKNOWN'>>(['NEW', 'QUEUED', 'COMPLETED', 'INVALID', 'CANCELLING', 'FAILED', 'ACTIVE']);

export const Query: Resolvers['Query'] = {
  linxBatches: (_, { filter, orderBy, ...window }, ctx) => listConnection(ctx, linxBatchList, linxQuery(filter, orderBy), window),
};

export const LinxBatch: Resolvers['LinxBatch'] = {
  status: (record) => statuses.fromPlatform(record.status, 'UNKNOWN'),
};

export const linxResolvers: Resolvers = { Query, LinxBatch };
