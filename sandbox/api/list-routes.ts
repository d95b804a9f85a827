/** The platform's list endpoints: GET /exceptions, GET /v1/acceptances and GET /v2/linx/workflow-batches. */
import { json, validationError } from '../http.ts';
import type { Reply } from '../http.ts';
import { QueryReader, renderArray, renderEnvelope } from './query.ts';
import { EXCEPTION_CATEGORIES, EXCEPTION_STATUSES, EXCEPTION_TYPES, LINX_FILTER_STATUSES } from '../data/records.ts';
import type { ExceptionRecord } from '../data/records.ts';
import { UUID_PATTERN } from '../data/random.ts';
import type { AccountData } from '../data/store.ts';
import { parseDateTimeBound, parseTimestamp, parseZone } from '../data/time.ts';
import type { Zone } from '../data/time.ts';

export interface ListRequest {
  readonly account: AccountData;
  readonly params: URLSearchParams;
  readonly nowMs: number;
  /** Largest page size served (see QueryReader.paging). */
  readonly maxPageSize: number;
}

const UTC: Zone = { kind: 'fixed', offsetMs: 0 };
const UNASSIGNED = 'UNASSIGNED';

const createdAtMs = new WeakMap<ExceptionRecord, number>();

function createdMs(record: ExceptionRecord): number {
  let ms = createdAtMs.get(record);
  if (ms === undefined) {
    ms = parseTimestamp(record.createdAt);
    createdAtMs.set(record, ms);
  }
  return ms;
}

function listExceptions({ account, params, nowMs, maxPageSize }: ListRequest): Reply {
  const q = new QueryReader(params);
  const zoneText = q.single('timeZone');
  let zone = UTC;
  if (zoneText !== undefined) {
    const parsed = parseZone(zoneText);
    if (parsed) zone = parsed;
    else q.fail('timeZone', `"${zoneText}" is not a zone: use Z, UTC, GMT, an offset such as +02:00, UTC+2, GMT-05:00, or an IANA region id such as Europe/Berlin`, 'INVALID_TIME_ZONE');
  }
  const bound = (name: string, which: 'from' | 'to'): number | undefined => {
    const text = q.single(name);
    if (text === undefined) return undefined;
    const instant = parseDateTimeBound(text, which, zone);
    if (instant === undefined) q.fail(name, `"${text}" is not a date (yyyy-mm-dd) or a date-time (yyyy-mm-ddTHH:mm[:ss[.SSS]][offset])`, 'INVALID_FORMAT');
    return instant;
  };
  const from = bound('createdDateFrom', 'from');
  const to = bound('createdDateTo', 'to');

  const assigneeIds = new Set<string>();
  let unassigned = false;
  const assignedTo = q.list('assignedTo');
  for (const value of assignedTo) {
    if (value === UNASSIGNED) unassigned = true;
    else if (UUID_PATTERN.test(value)) assigneeIds.add(value.toLowerCase());
    else q.fail('assignedTo', `"${value}" must be a user id (UUID) or ${UNASSIGNED}`, 'INVALID_FORMAT');
  }
  const category = q.enumValue('category', EXCEPTION_CATEGORIES);
  const type = q.enumValue('type', EXCEPTION_TYPES);
  const statuses = new Set<string>(q.enumList('status', EXCEPTION_STATUSES));
  const paging = q.paging(0, maxPageSize);
  const sort = q.sort(account.exceptions.fields);
  if (q.errors.length > 0) return validationError(q.errors, nowMs);

  const filterAssignee = assignedTo.length > 0;
  const sorted = account.exceptions.sorted(sort);
  const filtering = category !== undefined || type !== undefined || statuses.size > 0 || filterAssignee || from !== undefined || to !== undefined;
  const matched = !filtering ? sorted : sorted.filter((record) => {
    if (category !== undefined && record.category !== category) return false;
    if (type !== undefined && record.type !== type) return false;
    if (statuses.size > 0 && !statuses.has(record.status)) return false;
    if (filterAssignee) {
      const assignee = record.assignedTo;
      if (assignee === undefined ? !unassigned : !assigneeIds.has(assignee.id)) return false;
    }
    if (from !== undefined || to !== undefined) {
      const created = createdMs(record);
      if (from !== undefined && created < from) return false;
      if (to !== undefined && created > to) return false;
    }
    return true;
  });
  return json(200, renderEnvelope(matched, paging, (record) => account.exceptions.json(record)));
}

function listAcceptances({ account, params, nowMs, maxPageSize }: ListRequest): Reply {
  const q = new QueryReader(params);
  const financialAccountId = q.uuid('financialAccountId', true);
  const paging = q.paging(0, maxPageSize);
  const sort = q.sort(account.acceptances.fields);
  if (q.errors.length > 0 || financialAccountId === undefined) return validationError(q.errors, nowMs);
  const matched = account.acceptances.sorted(sort).filter((record) => record.scopes.FINANCIAL_ACCOUNT_ID === financialAccountId);
  return json(200, renderEnvelope(matched, paging, (record) => account.acceptances.json(record)));
}

function listLinxBatches({ account, params, nowMs, maxPageSize }: ListRequest, envelope: boolean): Reply {
  const q = new QueryReader(params);
  const templateId = q.uuid('templateId', true);
  const templateVersionId = q.uuid('templateVersionId', true);
  const status = q.enumValue('status', LINX_FILTER_STATUSES);
  const terms = (q.single('search') ?? '').toLowerCase().split(/\s+/).filter((term) => term !== '');
  const paging = q.paging(1, maxPageSize);
  const sort = q.sort(account.linxBatches.fields);
  if (q.errors.length > 0) return validationError(q.errors, nowMs);

  const matched = account.linxBatches.sorted(sort).filter((record) => {
    if (record.templateId !== templateId || record.templateVersionId !== templateVersionId) return false;
    if (status !== undefined && record.status !== status) return false;
    if (terms.length > 0) {
      const [batchName, templateName] = account.linxSearchText.get(record.id) ?? ['', ''];
      // Each term must occur in one of the two display names.
      if (!terms.every((term) => batchName.includes(term) || templateName.includes(term))) return false;
    }
    return true;
  });
  if (!envelope) return json(200, renderArray(matched, paging, (record) => account.linxBatches.json(record)));
  // The contract answers this search with a bare array; the envelope every other list uses is an opt-in variant.
  return { ...json(200, renderEnvelope(matched, paging, (record) => account.linxBatches.json(record))), offContract: 'LinX search answered with a page envelope (linxEnvelope)' };
}

/** What a list endpoint reads of the sandbox's switches besides the request. */
interface ListSwitches {
  /** Answer LinX searches with the page envelope instead of a bare array. */
  linxEnvelope(): boolean;
}

/**
 * The list endpoints, one line per list area of the gateway: the path, the route name its faults and
 * request log use, and how it answers. The API host routes every GET of a path here to its answer.
 */
export const LIST_ROUTES = [
  { path: '/v1/acceptances', route: 'acceptances', answer: (list: ListRequest) => listAcceptances(list) },
  { path: '/exceptions', route: 'exceptions', answer: (list: ListRequest) => listExceptions(list) },
  { path: '/v2/linx/workflow-batches', route: 'linx', answer: (list: ListRequest, switches: ListSwitches) => listLinxBatches(list, switches.linxEnvelope()) },
] as const;
