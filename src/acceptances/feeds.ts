import type { Query } from '../platform/client.ts';
import type { ListFeed } from '../subscriptions/index.ts';
import { uuidArgument } from '../platform/ids.ts';
import { acceptanceList, acceptancesQuery } from './api.ts';
import type { AcceptanceRecord } from './records.ts';

/** `documentAcceptancesAdded`: the Financial Account's acceptances, newest first (acceptances are never updated). */
export const acceptanceFeed: ListFeed<AcceptanceRecord> = {
  kind: 'list',
  field: 'documentAcceptancesAdded',
  time: (record) => record.createdAt,
  page: async (platform, query, index, size) => (await acceptanceList.fetch(platform, query, { page: acceptanceList.pageBase + index, size })).items,
};

export function acceptanceFeedQuery(financialAccountId: string): Query {
  return acceptancesQuery(uuidArgument(financialAccountId, ['financialAccountId']), [{ field: 'CREATED_AT', direction: 'DESC' }]);
}
