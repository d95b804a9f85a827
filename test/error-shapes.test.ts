import { describe, expect, it } from '@jest/globals';
import { gatewaysOverSandbox } from './support/gateways-over-sandbox.ts';

// One place shapes every error an answer carries (shapeError, src/errors.ts): a GraphQL error, a
// refusal of the HTTP request and a refusal of an operation's budget come out alike, in production,
// on the real process: message, place in the document, then extensions with `code` first and the
// request's id last, byte for byte as the client reads them.

const gateways = gatewaysOverSandbox({ LOG_LEVEL: 'warn', MAX_QUERY_DEPTH: '2', ALLOW_BATCHED_REQUESTS: 'true', MAX_BATCH_SIZE: '2', RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '1' });

/** POSTs `body` with a request id; the status and the first error exactly as the client reads its text. */
async function firstError(origin: string, body: unknown, requestId: string): Promise<{ status: number; error: string }> {
  const response = await fetch(`${origin}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const [, error] = /^\{"errors":\[(\{.*?\})[\],]/.exec(text) ?? [];
  return { status: response.status, error: error ?? text };
}

describe('the errors of an answer, in production', () => {
  it('are shaped alike whoever made them: a GraphQL error, an HTTP refusal, a budget refusal', async () => {
    const { origin } = await gateways.start();

    // A GraphQL error (a validation limit, through Apollo's formatError).
    expect(await firstError(origin, { query: '{ exceptions(first: 1) { nodes { assignedTo { id } } } }' }, 'shape-graphql')).toEqual({
      status: 400,
      error: '{"message":"Query depth limit of 2 exceeded, found 4.","extensions":{"code":"GRAPHQL_VALIDATION_FAILED","limit":"MAX_QUERY_DEPTH","max":2,"requestId":"shape-graphql"}}',
    });

    // A refusal of the HTTP request (a batch over MAX_BATCH_SIZE, before GraphQL).
    const batch = Array.from({ length: 3 }, () => ({ query: '{ __typename }' }));
    expect(await firstError(origin, batch, 'shape-http')).toEqual({
      status: 400,
      error: '{"message":"A batch may hold at most 2 operations","extensions":{"code":"BAD_REQUEST","limit":"MAX_BATCH_SIZE","max":2,"requestId":"shape-http"}}',
    });

    // A refusal of the operation's budget (estimated over the whole burst).
    expect(await firstError(origin, { query: '{ a: exceptions(first: 1) { totalCount } b: exceptions(first: 2) { totalCount } }' }, 'shape-budget')).toEqual({
      status: 400,
      error: '{"message":"Query needs about 2 platform calls, more than a caller\'s whole budget of 1: ask for fewer rows or fields","extensions":{"code":"COST_EXCEEDS_BURST","limit":"RATE_LIMIT_BURST","max":1,"requestId":"shape-budget"}}',
    });
  });
});
