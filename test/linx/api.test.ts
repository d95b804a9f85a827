import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import nock from 'nock';
import { linxBatchList, linxQuery } from '../../src/linx/api.ts';
import type { PolicyChain } from '../../src/platform/policy-chain.ts';
import { RequestClient } from '../support/request-client.ts';
import { useNock } from '../platform/nock-guard.ts';
import { PLATFORM_URL, TOKEN, failure, json, observedPlatformHttp } from '../platform/support.ts';

useNock();

const TEMPLATE = { templateId: '7e000000-0000-4000-8000-000000000001', templateVersionId: '7e000000-0000-4000-8000-0000000000f1' };
const JSON_TYPE = { 'content-type': 'application/json' };

describe('linxQuery', () => {
  it('sends the template, and no search, status or sort when none is given', () => {
    expect(linxQuery(TEMPLATE, null)).toEqual({ templateId: '7e000000-0000-4000-8000-000000000001', templateVersionId: '7e000000-0000-4000-8000-0000000000f1', search: undefined, status: undefined, sort: undefined });
  });

  it('trims the search, sends a blank one as none, and the order as repeated field,DIRECTION', () => {
    expect(linxQuery({ ...TEMPLATE, search: '  payroll  ', status: 'QUEUED' }, [{ field: 'TOTAL_REQUESTS_COUNT', direction: 'DESC' }])).toEqual({
      ...TEMPLATE,
      search: 'payroll',
      status: 'QUEUED',
      sort: ['totalRequestsCount,DESC'],
    });
    expect(linxQuery({ ...TEMPLATE, search: ' \t ' }, []).search).toBeUndefined();
  });

  it.each(['NEW', 'QUEUED', 'COMPLETED', 'INVALID', 'CANCELLING', 'FAILED'] as const)('takes %s as a status filter', (status) => {
    expect(linxQuery({ ...TEMPLATE, status }, null).status).toBe(status);
  });

  it.each(['ACTIVE', 'UNKNOWN'] as const)('refuses %s, which only appears in answers, on the filter field', (status) => {
    expect(() => linxQuery({ ...TEMPLATE, status }, null)).toThrow(
      expect.objectContaining({
        message: `status ${status} cannot be used as a filter; use one of NEW, QUEUED, COMPLETED, INVALID, CANCELLING, FAILED`,
        extensions: { code: 'BAD_USER_INPUT', field: ['filter', 'status'] },
      }),
    );
  });
});

describe('linxBatchList', () => {
  it('reads one-based pages that may come without totals, newest first by default', () => {
    expect({ ...linxBatchList, fetch: undefined }).toEqual({ list: 'linx', pageBase: 1, totals: 'sometimes', defaultSort: ['createdAt,DESC'], fetch: undefined });
  });

  describe('its fetch', () => {
    let http: PolicyChain;
    let client: RequestClient;
    beforeEach(() => {
      ({ http } = observedPlatformHttp());
      client = new RequestClient(http, TOKEN, 'req-linx-1');
    });
    afterEach(() => http.close());

    it('asks GET /v2/linx/workflow-batches and takes a bare array as a page without totals', async () => {
      const scope = nock(PLATFORM_URL)
        .get('/v2/linx/workflow-batches')
        .query({ templateId: '7e000000-0000-4000-8000-000000000001', templateVersionId: '7e000000-0000-4000-8000-0000000000f1', search: 'pay', page: '1', size: '2' })
        .reply(200, json([{ id: 'b1' }, { id: 'b2' }]), JSON_TYPE);
      await expect(linxBatchList.fetch(client, linxQuery({ ...TEMPLATE, search: 'pay' }, null), { page: 1, size: 2 })).resolves.toEqual({ items: [{ id: 'b1' }, { id: 'b2' }], total: null });
      scope.done();
    });

    it('addresses the platform’s field errors to the filter and order arguments they came from', async () => {
      const body = {
        message: 'Request validation failed',
        errors: [
          { path: 'templateVersionId', message: 'unknown version', errorCode: 'NOT_FOUND' },
          { path: 'sort[0]', message: 'unknown field', errorCode: 'INVALID_VALUE' },
          { path: 'search', message: 'too long', errorCode: 'TOO_LONG' },
          { path: 'size', message: 'too large', errorCode: 'OUT_OF_RANGE' },
        ],
      };
      const scope = nock(PLATFORM_URL).get('/v2/linx/workflow-batches').query(true).reply(400, json(body), JSON_TYPE);
      const error = await failure(linxBatchList.fetch(client, linxQuery(TEMPLATE, null), { page: 1, size: 500 }));
      scope.done();
      expect(error.extensions).toEqual({
        code: 'BAD_USER_INPUT',
        upstream: { status: 400 },
        field: ['filter', 'templateVersionId'],
        fieldErrors: [
          { field: ['filter', 'templateVersionId'], message: 'unknown version', code: 'NOT_FOUND' },
          { field: ['orderBy'], message: 'unknown field', code: 'INVALID_VALUE' },
          { field: ['filter', 'search'], message: 'too long', code: 'TOO_LONG' },
          { field: null, message: 'too large', code: 'OUT_OF_RANGE' },
        ],
      });
    });
  });
});
