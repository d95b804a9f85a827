import { capEvidence, type ListDescriptor } from '../connections/index.ts';
import type { DocumentAcceptanceOrder } from '../generated/graphql.ts';
import type { Query } from '../platform/client.ts';
import { readPage } from '../platform/pages.ts';
import { PLATFORM_DEFAULT_SORT, sortParams } from '../platform/values.ts';
import type { AcceptanceRecord } from './records.ts';

/** Account and order → the query of `GET /v1/acceptances` (without page and size). */
export function acceptancesQuery(financialAccountId: string, orderBy: readonly DocumentAcceptanceOrder[] | null | undefined): Query {
  return { financialAccountId, sort: sortParams(orderBy) };
}

/** `GET /v1/acceptances`: zero-based pages, always a page envelope. */
export const acceptanceList: ListDescriptor<AcceptanceRecord> = {
  list: 'acceptances',
  pageBase: 0,
  totals: 'always',
  defaultSort: PLATFORM_DEFAULT_SORT,
  async fetch(client, query, page) {
    const body = await client.get('acceptances.list', '/v1/acceptances', { ...query, page: page.page, size: page.size });
    return { ...readPage<AcceptanceRecord>(body, client.requestId, { bareArrayAllowed: false }), ...capEvidence(body) };
  },
};
