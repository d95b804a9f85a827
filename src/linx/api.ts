import type { ListDescriptor } from '../connections/index.ts';
import { badUserInput } from '../errors.ts';
import type { LinxBatchFilter, LinxBatchOrder } from '../generated/graphql.ts';
import type { Query } from '../platform/client.ts';
import type { ArgumentPaths } from '../platform/argument-errors.ts';
import { uuidArgument } from '../platform/ids.ts';
import { pageFetcher } from '../platform/pages.ts';
import { PLATFORM_DEFAULT_SORT, sortParams } from '../platform/values.ts';
import type { LinxBatchRecord } from './records.ts';

/** Statuses the platform accepts as a filter; ACTIVE only ever appears in answers. */
const FILTERABLE = new Set(['NEW', 'QUEUED', 'COMPLETED', 'INVALID', 'CANCELLING', 'FAILED']);

/** Filter and order → the query of `GET /v2/linx/workflow-batches` (without page and size). */
export function linxQuery(filter: LinxBatchFilter, orderBy: readonly LinxBatchOrder[] | null | undefined): Query {
  if (filter.status != null && !FILTERABLE.has(filter.status)) {
    throw badUserInput(`status ${filter.status} cannot be used as a filter; use one of ${[...FILTERABLE].join(', ')}`, {
      field: ['filter', 'status'],
    });
  }
  const search = filter.search?.trim();
  return {
    templateId: uuidArgument(filter.templateId, ['filter', 'templateId']),
    templateVersionId: uuidArgument(filter.templateVersionId, ['filter', 'templateVersionId']),
    search: search ? search : undefined,
    status: filter.status ?? undefined,
    sort: sortParams(orderBy),
  };
}

/** The argument each query parameter of `linxQuery` comes from, for the platform's field errors. */
const LINX_ARGUMENTS: ArgumentPaths = {
  templateId: ['filter', 'templateId'],
  templateVersionId: ['filter', 'templateVersionId'],
  search: ['filter', 'search'],
  status: ['filter', 'status'],
  sort: ['orderBy'],
};

/** One page of the list, with the envelope fields that reveal a page-size cap. */
const fetchLinxBatches = pageFetcher<LinxBatchRecord>({ route: 'linx.batches', path: '/v2/linx/workflow-batches', bareArrayAllowed: true, argumentPaths: LINX_ARGUMENTS });

/**
 * LinX batch search: one-based pages; the answer may be a bare array without totals, so windows
 * look one row ahead for hasNextPage ('sometimes').
 */
export const linxBatchList: ListDescriptor<LinxBatchRecord> = {
  list: 'linx',
  pageBase: 1,
  totals: 'sometimes',
  defaultSort: PLATFORM_DEFAULT_SORT,
  fetch: fetchLinxBatches,
};
