import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import nock from 'nock';
import { RequestClient } from '../support/request-client.ts';
import type { PolicyChain} from '../../src/platform/policy-chain.ts';
import { type UpstreamCallEvent } from '../../src/platform/policy-chain.ts';
import { useNock } from './nock-guard.ts';
import { PLATFORM_URL, TOKEN, eventsOf, failure, json, observedPlatformHttp } from './support.ts';

// PlatformClient on its own: the call budget, the credentials it accepts, the body it reads.

useNock();

const REQUEST_ID = 'req-budget-1';
let http: PolicyChain;
let events: UpstreamCallEvent[];

beforeEach(() => {
  ({ http, events } = observedPlatformHttp());
});

afterEach(() => http.close());

describe('the call budget (maxCalls)', () => {
  it('sends as many calls as allowed, refuses the next GET or PUT unsent, and still answers a GET it already made', async () => {
    const scope = nock(PLATFORM_URL).get('/v1/documents/a').reply(200, json({ id: 'a' })).get('/v1/documents/b').reply(200, json({ id: 'b' }));
    const client = new RequestClient(http, TOKEN, REQUEST_ID, undefined, { maxCalls: 2 });

    expect(await client.get('documents.get', '/v1/documents/a')).toEqual({ id: 'a' });
    expect(await client.get('documents.get', '/v1/documents/b')).toEqual({ id: 'b' });
    for (const refused of [client.get('documents.get', '/v1/documents/c'), client.put('documents.update', '/v1/documents/a', { name: 'A' })]) {
      const error = await failure(refused);
      expect(error.message).toBe('Query needs more than 2 platform calls; at most 2 are allowed per request');
      expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', limit: 'MAX_PLATFORM_CALLS_PER_REQUEST', max: 2 });
    }
    expect(await client.get('documents.get', '/v1/documents/a')).toEqual({ id: 'a' });

    scope.done();
    expect(client.calls).toBe(2);
    expect(eventsOf(events)).toEqual([
      { route: 'documents.get', method: 'GET', status: 200, retries: 0, requestId: REQUEST_ID, errorCode: undefined },
      { route: 'documents.get', method: 'GET', status: 200, retries: 0, requestId: REQUEST_ID, errorCode: undefined },
    ]);
  });

  it('a budget of one allows exactly one call', async () => {
    const scope = nock(PLATFORM_URL).put('/v1/documents/a', { name: 'A' }).reply(200, json({ id: 'a' }));
    const client = new RequestClient(http, TOKEN, REQUEST_ID, undefined, { maxCalls: 1 });
    expect(await client.put('documents.update', '/v1/documents/a', { name: 'A' })).toEqual({ id: 'a' });
    expect((await failure(client.get('exceptions.list', '/exceptions'))).extensions.max).toBe(1);
    scope.done();
    expect(client.calls).toBe(1);
  });

  it('without a budget, calls are not limited', async () => {
    const scope = nock(PLATFORM_URL).get('/exceptions').query(true).times(3).reply(200, json([]));
    const client = new RequestClient(http, TOKEN, REQUEST_ID);
    for (const page of [0, 1, 2]) await client.get('exceptions.list', '/exceptions', { page });
    scope.done();
    expect(client.calls).toBe(3);
  });
});

describe('credentials and bodies', () => {
  it('"Bearer" must open the header: a scheme that only contains it is refused', async () => {
    const client = new RequestClient(http, 'Basic Bearer abc', REQUEST_ID);
    expect((await failure(client.get('exceptions.list', '/exceptions'))).extensions).toEqual({ code: 'UNAUTHENTICATED' });
    expect(events).toEqual([]);
  });

  it('a 200 whose body is only blanks is an empty body, for a GET and a PUT', async () => {
    const scope = nock(PLATFORM_URL).get('/v1/documents/a').reply(200, ' \n\t ').put('/v1/documents/a').reply(200, '  ');
    const client = new RequestClient(http, TOKEN, REQUEST_ID);
    for (const call of [client.get('documents.get', '/v1/documents/a'), client.put('documents.update', '/v1/documents/a', {})]) {
      const error = await failure(call);
      expect(error.message).toBe('The platform answered with an unusable body (empty body)');
      expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR' });
    }
    scope.done();
  });

  it('a PUT body reaches the platform as JSON, and its JSON answer is returned parsed', async () => {
    const scope = nock(PLATFORM_URL, { reqheaders: { 'x-request-id': REQUEST_ID } })
      .put('/v1/documents/tax', { name: 'Tax', metadata: { a: '1' } })
      .reply(200, json({ id: 'tax', version: 3 }));
    const client = new RequestClient(http, TOKEN, REQUEST_ID);
    expect(await client.put('documents.update', '/v1/documents/tax', { name: 'Tax', metadata: { a: '1' } })).toEqual({ id: 'tax', version: 3 });
    scope.done();
    expect(eventsOf(events)).toEqual([{ route: 'documents.update', method: 'PUT', status: 200, retries: 0, requestId: REQUEST_ID, errorCode: undefined }]);
  });
});
