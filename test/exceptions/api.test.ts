import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import nock from 'nock';
import { exceptionList, exceptionsQuery, fetchExceptions } from '../../src/exceptions/api.ts';
import type { PolicyChain } from '../../src/platform/policy-chain.ts';
import { RequestClient } from '../support/request-client.ts';
import { useNock } from '../platform/nock-guard.ts';
import { PLATFORM_URL, TOKEN, json, observedPlatformHttp } from '../platform/support.ts';

useNock();

/** What exceptionsQuery throws, as its message and extensions. */
function refusal(run: () => unknown): { message: string; extensions: unknown } {
  try {
    run();
  } catch (error) {
    const { message, extensions } = error as { message: string; extensions: unknown };
    return { message, extensions };
  }
  throw new Error('exceptionsQuery accepted the filter');
}

describe('exceptionsQuery', () => {
  it('sends no parameter for no filter and no order (the platform default order)', () => {
    expect(exceptionsQuery(null, null)).toEqual({});
    expect(exceptionsQuery({}, [])).toEqual({});
  });

  it('names each parameter as the platform does, the order as repeated field,DIRECTION', () => {
    expect(
      exceptionsQuery(
        { createdFrom: '2026-03-01T00:00:00', createdTo: '2026-03-31T23:59:59', timeZone: 'Europe/Paris', assignedTo: ['a5000000-0000-4000-8000-000000000001', 'a5000000-0000-4000-8000-000000000002'], category: 'CUSTOMER', type: 'ACH_RETURN', status: ['NEW', 'REOPENED'] },
        [
          { field: 'CREATED_AT', direction: 'ASC' },
          { field: 'BUSINESS_ACCOUNT_ID', direction: 'DESC' },
        ],
      ),
    ).toEqual({
      createdDateFrom: '2026-03-01T00:00:00',
      createdDateTo: '2026-03-31T23:59:59',
      timeZone: 'Europe/Paris',
      assignedTo: ['a5000000-0000-4000-8000-000000000001', 'a5000000-0000-4000-8000-000000000002'],
      category: 'CUSTOMER',
      type: 'ACH_RETURN',
      status: ['NEW', 'REOPENED'],
      sort: ['createdAt,ASC', 'businessAccountId,DESC'],
    });
  });

  it('asks for the unassigned with the UNASSIGNED literal, after any assignee', () => {
    expect(exceptionsQuery({ unassigned: true }, null).assignedTo).toEqual(['UNASSIGNED']);
    expect(exceptionsQuery({ unassigned: true, assignedTo: ['a5000000-0000-4000-8000-000000000001'] }, null).assignedTo).toEqual(['a5000000-0000-4000-8000-000000000001', 'UNASSIGNED']);
    expect(exceptionsQuery({ unassigned: false, assignedTo: [] }, null).assignedTo).toBeUndefined();
  });

  it('sends no status for an empty list', () => {
    expect(exceptionsQuery({ status: [] }, null).status).toBeUndefined();
  });

  it('refuses a zone the platform would refuse, on the filter field, before any call', () => {
    expect(refusal(() => exceptionsQuery({ timeZone: 'Mars/Olympus' }, null))).toEqual({
      message: 'timeZone "Mars/Olympus" is not accepted: use Z, UTC, GMT, an offset such as +05:30, UTC+2 / GMT-3, or an IANA region id such as Europe/Paris',
      extensions: { code: 'BAD_USER_INPUT', field: ['filter', 'timeZone'] },
    });
  });

  it('refuses UNKNOWN, which only ever appears in answers, as a category, type or status', () => {
    expect(refusal(() => exceptionsQuery({ category: 'UNKNOWN' }, null))).toEqual({ message: 'category UNKNOWN cannot be used as a filter', extensions: { code: 'BAD_USER_INPUT', field: ['filter', 'category'] } });
    expect(refusal(() => exceptionsQuery({ type: 'UNKNOWN' }, null))).toEqual({ message: 'type UNKNOWN cannot be used as a filter', extensions: { code: 'BAD_USER_INPUT', field: ['filter', 'type'] } });
    expect(refusal(() => exceptionsQuery({ status: ['NEW', 'UNKNOWN'] }, null))).toEqual({ message: 'status UNKNOWN cannot be used as a filter', extensions: { code: 'BAD_USER_INPUT', field: ['filter', 'status'] } });
  });
});

describe('exceptionList', () => {
  it('reads zero-based pages that always carry their totals, newest first by default', () => {
    expect({ ...exceptionList, fetch: undefined }).toEqual({ list: 'exceptions', pageBase: 0, totals: 'always', defaultSort: ['createdAt,DESC'], fetch: undefined });
    expect(exceptionList.fetch).toBe(fetchExceptions);
  });
});

describe('fetchExceptions', () => {
  let http: PolicyChain;
  beforeEach(() => {
    ({ http } = observedPlatformHttp());
  });
  afterEach(() => http.close());

  it('asks GET /exceptions with the query, a repeated parameter for each list item, and the page', async () => {
    const page = { totalElements: 1, totalPages: 1, number: 2, numberOfElements: 1, hasNext: false, content: [{ id: 'e1' }] };
    const scope = nock(PLATFORM_URL)
      .get('/exceptions')
      .query({ status: ['NEW', 'RESOLVED'], assignedTo: 'UNASSIGNED', sort: 'createdAt,ASC', page: '2', size: '5' })
      .reply(200, json(page), { 'content-type': 'application/json' });
    const client = new RequestClient(http, TOKEN, 'req-exc-1');
    const answer = await fetchExceptions(client, exceptionsQuery({ status: ['NEW', 'RESOLVED'], unassigned: true }, [{ field: 'CREATED_AT', direction: 'ASC' }]), { page: 2, size: 5 });
    scope.done();
    expect(answer.items).toEqual([{ id: 'e1' }]);
  });
});
