import { afterEach, describe, expect, it } from '@jest/globals';
import { testConfig } from '../../src/settings/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway, type Gateway } from '../../src/server.ts';
import { graphqlClient } from '../support/graphql-client.ts';
import { TOKEN, json, startServer, type TestServer } from './support.ts';

// MAX_PLATFORM_CALLS_PER_REQUEST: one small query must not make the gateway call the platform without
// bound. The amplifier: `last` without `before` over LinX, which answers bare arrays (no total), walks
// the list to its end, up to 100 pages per alias; 15 aliases with different orders (so no two share a
// call) over a long list made 1 + 15 × 101 calls.

const LIST_LENGTH = 20_000;
const ORDERS = [
  'ID', 'STATUS', 'TEMPLATE_ID', 'TEMPLATE_VERSION_ID', 'TEMPLATE_VERSION', 'TEMPLATE_DISPLAY_NAME', 'ACTIVE_REQUESTS_COUNT', 'CANCELLED_REQUESTS_COUNT',
  'COMPLETED_REQUESTS_COUNT', 'DECLINED_REQUESTS_COUNT', 'EXPIRED_REQUESTS_COUNT', 'FAILED_REQUESTS_COUNT', 'REJECTED_REQUESTS_COUNT', 'TOTAL_REQUESTS_COUNT', 'CREATED_AT',
];
const QUERY = `{
  document(id: "d0c00000-0000-4000-8000-000000000001") { id name }
  ${ORDERS.map((field, i) => `w${i}: linxBatches(filter: { templateId: "7e000000-0000-4000-8000-000000000001", templateVersionId: "7e000000-0000-4000-8000-0000000000f1" }, last: 1, orderBy: [{ field: ${field}, direction: ASC }]) { nodes { id } }`).join('\n  ')}
}`;

let server: TestServer | undefined;
let gateway: Gateway | undefined;

afterEach(async () => {
  await gateway?.close();
  await server?.close();
  gateway = undefined;
  server = undefined;
});

/** A platform with one document and a LinX list of LIST_LENGTH batches (b0, b1, …), answered as bare arrays. */
async function setup(env: Record<string, string> = {}) {
  server = await startServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://platform');
    if (url.pathname === '/v1/documents/d0c00000-0000-4000-8000-000000000001') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(json({ id: 'd0c00000-0000-4000-8000-000000000001', name: 'Passport', documentType: 'passport' }));
      return;
    }
    // LinX pages are one-based.
    const page = Number(url.searchParams.get('page')) - 1;
    const size = Number(url.searchParams.get('size'));
    const rows = Array.from({ length: Math.max(0, Math.min(size, LIST_LENGTH - page * size)) }, (_, i) => ({ id: `b${page * size + i}` }));
    response.writeHead(200, { 'content-type': 'application/json' }).end(json(rows));
  });
  // MAX_QUERY_COST refuses this document before any call (each walk is priced: docs/security.md); lifted so the walks reach the run-time bound.
  // The deadline too: 1 516 calls take longer than its 8 s on a loaded machine, and the walks' own bounds are what is tested.
  gateway = await startGateway(testConfig({ MAX_QUERY_COST: '1000000', REQUEST_DEADLINE_MS: '120000', ...env }), server.url, { logger: createLogger('silent') });
  return { server, gateway, gql: graphqlClient(`${gateway.url}/graphql`, { authorization: TOKEN, 'x-request-id': 'budget-1' }) };
}

describe('the platform call budget of a request (MAX_PLATFORM_CALLS_PER_REQUEST)', () => {
  it('stops the 15-alias backward walk at 200 calls; the fields past it fail with the limit named, the rest of the query answers', async () => {
    const wire = await setup();

    const { body } = await wire.gql(QUERY);

    expect(wire.server.requests).toHaveLength(200);
    expect(wire.server.requests.filter((r) => r.url === '/v1/documents/d0c00000-0000-4000-8000-000000000001')).toHaveLength(1);
    expect(body.data).toEqual({ document: { id: 'd0c00000-0000-4000-8000-000000000001', name: 'Passport' }, ...Object.fromEntries(ORDERS.map((_, i) => [`w${i}`, null])) });
    // Every walk was under way when the budget ran out: each of them fails, in whatever order.
    expect(body.errors!.map((e) => [e.path, e.message, e.extensions]).sort((a, b) => Number(String(a[0]).slice(1)) - Number(String(b[0]).slice(1)))).toEqual(
      ORDERS.map((_, i) => [
        [`w${i}`],
        'Query needs more than 200 platform calls; at most 200 are allowed per request',
        { code: 'BAD_USER_INPUT', requestId: 'budget-1', limit: 'MAX_PLATFORM_CALLS_PER_REQUEST', max: 200 },
      ]),
    );
  });

  it('is a setting: with 2000 the same walks reach their own limit of 10 000 records instead', async () => {
    const wire = await setup({ MAX_PLATFORM_CALLS_PER_REQUEST: '2000' });

    const { body } = await wire.gql(QUERY);

    expect(wire.server.requests).toHaveLength(1 + 15 * 101);
    expect(body.errors!.map((e) => e.message)).toEqual(
      ORDERS.map(() => 'last without before has to read this list to its end, and it is longer than 10000 records; pass before, or page forwards with first and after'),
    );
  });

  it('counts only calls made: a query well inside it answers in full', async () => {
    const wire = await setup({ MAX_PLATFORM_CALLS_PER_REQUEST: '2' });

    const { body } = await wire.gql('{ document(id: "d0c00000-0000-4000-8000-000000000001") { id } a: document(id: "d0c00000-0000-4000-8000-000000000001") { name } linxBatches(filter: { templateId: "7e000000-0000-4000-8000-000000000001", templateVersionId: "7e000000-0000-4000-8000-0000000000f1" }, first: 2) { nodes { id } } }');

    expect(body).toEqual({ data: { document: { id: 'd0c00000-0000-4000-8000-000000000001' }, a: { name: 'Passport' }, linxBatches: { nodes: [{ id: 'b0' }, { id: 'b1' }] } } });
    expect(wire.server.requests.map((r) => r.url).sort()).toEqual(['/v1/documents/d0c00000-0000-4000-8000-000000000001', '/v2/linx/workflow-batches?page=1&size=3&templateId=7e000000-0000-4000-8000-000000000001&templateVersionId=7e000000-0000-4000-8000-0000000000f1']);
  });
});
