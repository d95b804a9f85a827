import { paginate } from '../connections/index.ts';
import { pagingOptions } from '../context.ts';
import type { LinxBatchStatus, Resolvers } from '../generated/graphql.ts';
import { sameSpelling } from '../platform/values.ts';
import { fetchLinxBatches, linxQuery } from './api.ts';

const statuses = sameSpelling<Exclude<LinxBatchStatus, 'UNKNOWN'>>(['NEW', 'QUEUED', 'COMPLETED', 'INVALID', 'CANCELLING', 'FAILED', 'ACTIVE']);

export const Query: Resolvers['Query'] = {
  linxBatches: (_, { filter, orderBy, ...window }, ctx) => {
    const query = linxQuery(filter, orderBy);
    // 'sometimes': the platform may answer a bare array, so windows look one row ahead for hasNextPage.
    return paginate(window, pagingOptions(ctx, 'linx', query, 1, 'sometimes'), (page) =>
      fetchLinxBatches(ctx.platform, query, page),
    );
  },
};

export const LinxBatch: Resolvers['LinxBatch'] = {
  status: (record) => statuses.fromPlatform(record.status, 'UNKNOWN'),
};

export const linxResolvers: Resolvers = { Query, LinxBatch };
