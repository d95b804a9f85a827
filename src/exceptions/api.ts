import type { ListDescriptor } from '../connections/index.ts';
import { badUserInput } from '../errors.ts';
import type { ExceptionFilter, ExceptionOrder } from '../generated/graphql.ts';
import type { Query } from '../platform/client.ts';
import type { ArgumentPaths } from '../platform/argument-errors.ts';
import { uuidArgument } from '../platform/ids.ts';
import { pageFetcher } from '../platform/pages.ts';
import { PLATFORM_DEFAULT_SORT, sortParams } from '../platform/values.ts';
import type { ExceptionRecord } from './records.ts';
import { isAcceptedTimeZone } from './time-zone.ts';

/** The literal the platform reads as "no assignee" in `assignedTo`. */
const UNASSIGNED = 'UNASSIGNED';

/** Filter and order → the query of `GET /exceptions` (without page and size). */
export function exceptionsQuery(filter: ExceptionFilter | null | undefined, orderBy: readonly ExceptionOrder[] | null | undefined): Query {
  const f = filter ?? {};
  if (f.timeZone != null && !isAcceptedTimeZone(f.timeZone)) {
    throw badUserInput(
      `timeZone "${f.timeZone}" is not accepted: use Z, UTC, GMT, an offset such as +05:30, UTC+2 / GMT-3, or an IANA region id such as Europe/Paris`,
      { field: ['filter', 'timeZone'] },
    );
  }
  for (const key of ['category', 'type'] as const) {
    if (f[key] === 'UNKNOWN') throw badUserInput(`${key} UNKNOWN cannot be used as a filter`, { field: ['filter', key] });
  }
  if (f.status?.includes('UNKNOWN')) throw badUserInput('status UNKNOWN cannot be used as a filter', { field: ['filter', 'status'] });
  // `unassigned` is the schema's way to ask for UNASSIGNED; in `assignedTo` it is not an id.
  const assignedTo = [...(f.assignedTo ?? []).map((id, index) => uuidArgument(id, ['filter', 'assignedTo', index])), ...(f.unassigned ? [UNASSIGNED] : [])];
  return {
    createdDateFrom: f.createdFrom,
    createdDateTo: f.createdTo,
    timeZone: f.timeZone,
    assignedTo: assignedTo.length > 0 ? assignedTo : undefined,
    category: f.category,
    type: f.type,
    status: f.status && f.status.length > 0 ? f.status : undefined,
    sort: sortParams(orderBy),
  };
}

/** The argument each query parameter of `exceptionsQuery` comes from, for the platform's field errors. */
const EXCEPTION_ARGUMENTS: ArgumentPaths = {
  createdDateFrom: ['filter', 'createdFrom'],
  createdDateTo: ['filter', 'createdTo'],
  timeZone: ['filter', 'timeZone'],
  assignedTo: ['filter', 'assignedTo'],
  category: ['filter', 'category'],
  type: ['filter', 'type'],
  status: ['filter', 'status'],
  sort: ['orderBy'],
};

/** One page of the list, with the envelope fields that reveal a page-size cap. */
export const fetchExceptions = pageFetcher<ExceptionRecord>({ route: 'exceptions.list', path: '/exceptions', bareArrayAllowed: false, argumentPaths: EXCEPTION_ARGUMENTS });

/** `GET /exceptions`: zero-based pages, always a page envelope. */
export const exceptionList: ListDescriptor<ExceptionRecord> = {
  list: 'exceptions',
  pageBase: 0,
  totals: 'always',
  defaultSort: PLATFORM_DEFAULT_SORT,
  fetch: fetchExceptions,
};
