import type { ExceptionFilter } from '../generated/graphql.ts';
import type { Query } from '../platform/client.ts';
import type { ListFeed } from '../subscriptions/index.ts';
import { exceptionList, exceptionsQuery } from './api.ts';
import type { ExceptionRecord } from './records.ts';

/** `exceptionsChanged`: the exceptions list with the filter, newest update first. */
export const exceptionFeed: ListFeed<ExceptionRecord> = {
  kind: 'list',
  field: 'exceptionsChanged',
  time: (record) => record.updatedAt,
  page: async (platform, query, index, size) => (await exceptionList.fetch(platform, query, { page: exceptionList.pageBase + index, size })).items,
};

/** The filter → the feed's platform query (refusing a bad filter before any call). */
export function exceptionFeedQuery(filter: ExceptionFilter | null | undefined): Query {
  return exceptionsQuery(filter, [{ field: 'UPDATED_AT', direction: 'DESC' }]);
}
