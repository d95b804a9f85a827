import { afterAll, describe, expect, it } from '@jest/globals';
import nock from 'nock';
import { acceptanceList, acceptancesQuery } from '../../src/acceptances/api.ts';
import { RequestClient } from '../support/request-client.ts';
import { useNock } from '../platform/nock-guard.ts';
import { PLATFORM_URL, TOKEN, failure, json, observedPlatformHttp } from '../platform/support.ts';

useNock();

describe('acceptancesQuery', () => {
  it('asks for the account, and the order as repeated field,DIRECTION', () => {
    expect(acceptancesQuery('fa1', [{ field: 'CREATED_AT', direction: 'ASC' }])).toEqual({ financialAccountId: 'fa1', sort: ['createdAt,ASC'] });
  });

  it('sends no sort without an order: the platform default order', () => {
    expect(acceptancesQuery('fa1', null)).toEqual({ financialAccountId: 'fa1', sort: undefined });
    expect(acceptancesQuery('fa1', [])).toEqual({ financialAccountId: 'fa1', sort: undefined });
  });
});

describe('acceptanceList', () => {
  const { http } = observedPlatformHttp();
  afterAll(() => http.close());

  it('reads zero-based pages that always carry their totals, newest first by default', () => {
    expect({ ...acceptanceList, fetch: undefined }).toEqual({ list: 'acceptances', pageBase: 0, totals: 'always', defaultSort: ['createdAt,DESC'], fetch: undefined });
  });

  it('asks GET /v1/acceptances, and addresses field errors to the account id and the order', async () => {
    const body = { errors: [{ path: 'financialAccountId', message: 'unknown account', errorCode: 'NOT_FOUND' }, { path: 'sort', message: 'bad', errorCode: 'INVALID' }] };
    const scope = nock(PLATFORM_URL)
      .get('/v1/acceptances')
      .query({ financialAccountId: 'fa1', page: '0', size: '3' })
      .reply(400, json(body), { 'content-type': 'application/json' });
    const error = await failure(acceptanceList.fetch(new RequestClient(http, TOKEN, 'req-acc'), acceptancesQuery('fa1', null), { page: 0, size: 3 }));
    scope.done();
    expect(error.extensions).toMatchObject({
      field: ['financialAccountId'],
      fieldErrors: [
        { field: ['financialAccountId'], message: 'unknown account', code: 'NOT_FOUND' },
        { field: ['orderBy'], message: 'bad', code: 'INVALID' },
      ],
    });
  });
});
