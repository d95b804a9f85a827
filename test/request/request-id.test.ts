import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { GraphQLFormattedError } from 'graphql';
import nock from 'nock';
import { ErrorCode } from '../../src/errors.ts';
import { formatError } from '../../src/format-error.ts';
import { createLogger } from '../../src/logger.ts';
import { runWithRequestId } from '../../src/request/scope.ts';
import { PlatformClient } from '../../src/platform/client.ts';
import type { PolicyChain} from '../../src/platform/policy-chain.ts';
import { type UpstreamCallEvent } from '../../src/platform/policy-chain.ts';
import { PlatformError } from '../../src/platform/platform-error.ts';
import { useNock } from '../platform/nock-guard.ts';
import { PLATFORM_URL, TOKEN, failure, observedPlatformHttp } from '../platform/support.ts';

// The request id lives in the request scope only (src/request/scope.ts): a platform
// call and its event take the id of the request they run in, and code running outside a
// request has none, rather than one invented on the spot. Errors carry none of their own:
// formatError stamps the id of the request being answered, the one place an answer gets it.

describe('platform calls and the request scope', () => {
  useNock();

  let http: PolicyChain;
  let events: UpstreamCallEvent[];
  beforeEach(() => {
    ({ http, events } = observedPlatformHttp({ UPSTREAM_RETRY_LIMIT: '2' }));
  });
  afterEach(() => http.close());

  it('a call made in a request carries that request’s id in its header and event; its error carries none', async () => {
    const scope = nock(PLATFORM_URL).get('/v1/documents/d1').matchHeader('x-request-id', 'req-scope-1').reply(404, '');
    const client = new PlatformClient(http, TOKEN);
    const error = await failure(runWithRequestId('req-scope-1', () => client.get('documents.get', '/v1/documents/d1')));
    scope.done();
    expect(error.extensions).toEqual({ code: 'NOT_FOUND', upstream: { status: 404 } });
    expect(events.map((event) => [event.requestId, event.status, event.errorCode])).toEqual([['req-scope-1', 404, 'NOT_FOUND']]);
  });

  it('outside any request: no x-request-id is sent, and neither the event nor the error has an id', async () => {
    const scope = nock(PLATFORM_URL, { badheaders: ['x-request-id'] }).get('/v1/documents/d1').reply(404, '');
    const error = await failure(new PlatformClient(http, TOKEN).get('documents.get', '/v1/documents/d1'));
    scope.done();
    expect(error.extensions).toEqual({ code: 'NOT_FOUND', upstream: { status: 404 } });
    expect(events.map((event) => [event.requestId, event.status, event.errorCode])).toEqual([[undefined, 404, 'NOT_FOUND']]);
  });
});

describe('formatError and the request scope', () => {
  const format = formatError({ production: false, echoChars: 80, logger: createLogger('silent') });
  const formatted = (error: PlatformError): GraphQLFormattedError => ({ message: error.message, extensions: { ...error.extensions } });

  it('answers with the id of the request being answered, once', () => {
    const error = runWithRequestId('req-made', () => new PlatformError(ErrorCode.UPSTREAM_ERROR, 'The platform failed'));
    expect(error.extensions).toEqual({ code: 'UPSTREAM_ERROR' });
    const answer = runWithRequestId('req-answered', () => format(formatted(error), error));
    expect(answer.extensions).toEqual({ code: 'UPSTREAM_ERROR', requestId: 'req-answered' });
    expect(JSON.stringify(answer).match(/req-answered/g)).toEqual(['req-answered']);
  });

  it('an id some other error carried is replaced by the answered request’s, not repeated', () => {
    const error = new PlatformError(ErrorCode.UPSTREAM_ERROR, 'The platform failed');
    const carried: GraphQLFormattedError = { message: error.message, extensions: { ...error.extensions, requestId: 'req-elsewhere' } };
    expect(runWithRequestId('req-answered', () => format(carried, error)).extensions).toEqual({ code: 'UPSTREAM_ERROR', requestId: 'req-answered' });
  });

  it('outside any request, answers without an id', () => {
    const error = runWithRequestId('req-made', () => new PlatformError(ErrorCode.UPSTREAM_ERROR, 'The platform failed'));
    expect(format(formatted(error), error).extensions).toEqual({ code: 'UPSTREAM_ERROR' });
  });
});
