import type { LinxBatchFilter } from '../generated/graphql.ts';
import type { Query } from '../platform/client.ts';
import type { ListFeed } from '../subscriptions/index.ts';
import { linxBatchList, linxQuery } from './api.ts';
import type { LinxBatchRecord } from './records.ts';

/** `linxBatchesChanged`: the template version's batches with the filter, newest update first. */
export const linxBatchFeed: ListFeed<LinxBatchRecord> = {
  kind: 'list',
  field: 'linxBatchesChanged',
  time: (record) => record.updatedAt,
  page: async (platform, query, index, size) => (await linxBatchList.fetch(platform, query, { page: linxBatchList.pageBase + index, size })).items,
};

/** The filter → the feed's platform query (refusing a bad filter before any call). */
export function linxBatchFeedQuery(filter: LinxBatchFilter): Query {
  return linxQuery(filter, [{ field: 'UPDATED_AT', direction: 'DESC' }]);
}
