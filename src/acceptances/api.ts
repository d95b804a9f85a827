import type { ListDescriptor } from '../connections/index.ts';
import type { DocumentAcceptanceOrder } from '../generated/graphql.ts';
import type { Query } from '../platform/client.ts';
import type { ArgumentPaths } from '../platform/argument-errors.ts';
import { pageFetcher } from '../platform/pages.ts';
import { PLATFORM_DEFAULT_SORT, sortParams } from '../platform/values.ts';
import type { AcceptanceRecord } from './records.ts';

/** Account and order → the query of `GET /v1/acceptances` (without page and size). */
export function acceptancesQuery(financialAccountId: string, orderBy: readonly DocumentAcceptanceOrder[] | null | undefined): Query {
  return { financialAccountId, sort: sortParams(orderBy) };
}

/**
 * The argument each query parameter of `acceptancesQuery` comes from, for the platform's field errors. On the
 * federated `FinancialAccount.documentAcceptances` the account id is the entity's own id rather than an argument.
 */
const ACCEPTANCE_ARGUMENTS: ArgumentPaths = { financialAccountId: ['financialAccountId'], sort: ['orderBy'] };

/** One page of the list, with the envelope fields that reveal a page-size cap. */
const fetchAcceptances = pageFetcher<AcceptanceRecord>({ route: 'acceptances.list', path: '/v1/acceptances', bareArrayAllowed: false, argumentPaths: ACCEPTANCE_ARGUMENTS });

/** `GET /v1/acceptances`: zero-based pages, always a page envelope. */
export const acceptanceList: ListDescriptor<AcceptanceRecord> = {
  list: 'acceptances',
  pageBase: 0,
  totals: 'always',
  defaultSort: PLATFORM_DEFAULT_SORT,
  fetch: fetchAcceptances,
};
