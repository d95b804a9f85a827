import { describe, expect, it } from '@jest/globals';
import { gatewaysOverSandbox } from '../support/gateways-over-sandbox.ts';
import { bearer, postJson } from '../support/graphql-client.ts';

// The production process buffers its log lines (src/logger.ts): they go out in 8 kB pieces or
// within 100 ms. Buffering must not lose a line: neither at a quiet moment nor at a stop.

const gateways = gatewaysOverSandbox();

const COUNT = { operationName: 'Count', query: 'query Count { exceptions(first: 1) { totalCount } }' };

function post(origin: string, requestId: string): Promise<Response> {
  return postJson(`${origin}/graphql`, COUNT, { ...bearer(gateways.sandbox.tokens[0]!.token), 'x-request-id': requestId });
}

/** The request ids of the complete "graphql request" lines printed so far. */
function loggedRequestIds(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.includes('"msg":"graphql request"'))
    .map((line) => (JSON.parse(line) as { requestId: string }).requestId);
}

describe('log output of the production process', () => {
  it('writes a lone request line without waiting for more traffic', async () => {
    const { process, origin } = await gateways.start();
    expect((await post(origin, 'lone-request-0001')).status).toBe(200);
    // Within the flush interval; the generous timeout only keeps a slow machine from failing the test.
    await process.waitFor(/"requestId":"lone-request-0001"[^\n]*"msg":"graphql request"/, 20_000);
    expect(loggedRequestIds(process.stdout())).toEqual(['lone-request-0001']);
  }, 120_000);

  it('writes every pending line before it exits on SIGTERM', async () => {
    const { process, origin } = await gateways.start();
    const ids = Array.from({ length: 40 }, (_, index) => `stop-request-${String(index).padStart(4, '0')}`);
    const statuses = await Promise.all(ids.map(async (id) => (await post(origin, id)).status));
    expect(statuses).toEqual(ids.map(() => 200));
    // At once: at most a few lines have reached an 8 kB write, the rest wait in the buffer.
    process.child.kill('SIGTERM');
    expect(await process.exited).toBe(0);
    expect(loggedRequestIds(process.stdout()).sort()).toEqual(ids);
    expect(process.stdout()).toMatch(/"msg":"stopped"\}\n$/);
  }, 120_000);
});
