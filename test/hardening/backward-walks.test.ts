import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { testConfig } from '../../src/settings/config.ts';
import { BACKWARD_WALK_COST, BACKWARD_WALK_RECORDS } from '../../src/hardening/query-cost.ts';
import { paginate } from '../../src/connections/index.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway, type Gateway } from '../../src/server.ts';
import { graphqlClient, type GraphQLAnswer, type GraphQLClient } from '../support/graphql-client.ts';
import { TOKEN, json, startServer, type TestServer } from '../platform/support.ts';

// `last` without `before` over LinX, which may answer bare arrays (no total), reads the list to its end
// to find where the window ends: up to 100 platform calls per alias, whatever `last` is. The static cost
// limit prices each such walk, so a document of many is refused before any call.

const LIST_LENGTH = 9_900;
const FILTER = 'filter: { templateId: "7e000000-0000-4000-8000-000000000001", templateVersionId: "7e000000-0000-4000-8000-0000000000f1" }';
const ORDERS = [
  'ID', 'STATUS', 'TEMPLATE_ID', 'TEMPLATE_VERSION_ID', 'TEMPLATE_VERSION', 'TEMPLATE_DISPLAY_NAME', 'ACTIVE_REQUESTS_COUNT', 'CANCELLED_REQUESTS_COUNT',
  'COMPLETED_REQUESTS_COUNT', 'DECLINED_REQUESTS_COUNT', 'EXPIRED_REQUESTS_COUNT', 'FAILED_REQUESTS_COUNT', 'REJECTED_REQUESTS_COUNT', 'TOTAL_REQUESTS_COUNT', 'CREATED_AT',
];
const WALK_ADVICE = 'for last without before on a list that may not report its length: pass before, or page forwards with first and after';

let server: TestServer;
let gateway: Gateway;
let gql: GraphQLClient;

/** A platform whose LinX search answers bare arrays of LIST_LENGTH batches (b0, b1, …), in one-based pages, whatever the order. */
beforeAll(async () => {
  server = await startServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://platform');
    const page = Number(url.searchParams.get('page')) - 1;
    const size = Number(url.searchParams.get('size'));
    const rows = Array.from({ length: Math.max(0, Math.min(size, LIST_LENGTH - page * size)) }, (_, i) => ({ id: `b${page * size + i}` }));
    response.writeHead(200, { 'content-type': 'application/json' }).end(json(rows));
  });
  gateway = await startGateway(testConfig(), server.url, { logger: createLogger('silent') });
  gql = graphqlClient(`${gateway.url}/graphql`, { authorization: TOKEN, 'x-request-id': 'walks-1' });
});
afterAll(async () => {
  await gateway.close();
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

/** HTTP 400 with the cost limit named, and not a single platform call. */
function expectCostRefusal(answer: GraphQLAnswer, found: string, walks: number) {
  expect(answer).toEqual({
    status: 400,
    body: {
      errors: [
        {
          message: `Query cost limit of 50000 exceeded, found ${found} (of which ${walks} × 20000 ${WALK_ADVICE}).`,
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED', limit: 'MAX_QUERY_COST', max: 50_000, requestId: 'walks-1' },
        },
      ],
    },
  });
  expect(server.requests).toEqual([]);
}

const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => ({ id: `b${from + i}` }));

describe('the cost of last without before over a list that may not report its length', () => {
  it('refuses 15 aliases of last: 1, each with its own order, before any platform call', async () => {
    const query = `{ ${ORDERS.map((field, i) => `w${i}: linxBatches(${FILTER}, last: 1, orderBy: [{ field: ${field}, direction: ASC }]) { nodes { id } }`).join(' ')} }`;
    // armor's 7.25 per alias for one row of ids, plus 20 000 per walk.
    expectCostRefusal(await gql(query), '300108.75', 15);
  });

  it('answers one alias of last: 10, reading the list to its end', async () => {
    const answer = await gql(`{ linxBatches(${FILTER}, last: 10, orderBy: [{ field: STATUS, direction: ASC }]) { nodes { id } pageInfo { hasNextPage hasPreviousPage } totalCount } }`);

    expect(answer).toEqual({
      status: 200,
      body: { data: { linxBatches: { nodes: rows(9_890, 9_900), pageInfo: { hasNextPage: false, hasPreviousPage: true }, totalCount: null } } },
    });
    // 99 full pages of 100 and the empty page that shows the end.
    expect(server.requests).toHaveLength(100);
    expect(server.requests.at(-1)!.url).toBe('/v2/linx/workflow-batches?page=100&size=100&sort=status%2CASC&templateId=7e000000-0000-4000-8000-000000000001&templateVersionId=7e000000-0000-4000-8000-0000000000f1');
  });

  it('counts a walk whose last comes from a variable or its default, once per response key', async () => {
    const three = (args: string) => `${['a', 'b', 'c'].map((alias, i) => `${alias}: linxBatches(${FILTER}, ${args}, orderBy: [{ field: ${ORDERS[i]}, direction: DESC }]) { nodes { id } }`).join(' ')}`;
    expectCostRefusal(await gql(`query($n: Int) { ${three('last: $n')} }`, { n: 1 }), '60021.75', 3);
    expectCostRefusal(await gql(`query($n: Int = 1) { ${three('last: $n')} }`), '60021.75', 3);
    // Spread three times, a fragment's fields still resolve once per response key (armor counts the spreads thrice).
    expectCostRefusal(await gql(`{ ...W ...W ... on Query { ...W } } fragment W on Query { ${three('last: 2')} }`), '60274', 3);
  });

  it('does not count last with before, and keeps the verdicts of a cursor and of a null apart', async () => {
    const first = await gql(`{ linxBatches(${FILTER}, last: 10) { pageInfo { startCursor } } }`);
    const cursor = (first.body.data!.linxBatches as { pageInfo: { startCursor: string } }).pageInfo.startCursor;
    const query = `query($b: String) { ${[1, 2, 3].map((n) => `l${n}: linxBatches(${FILTER}, last: ${n}, before: $b) { nodes { id } }`).join(' ')} }`;
    server.requests.length = 0;

    const paged = await gql(query, { b: cursor });

    expect(paged).toEqual({ status: 200, body: { data: { l1: { nodes: rows(9_889, 9_890) }, l2: { nodes: rows(9_888, 9_890) }, l3: { nodes: rows(9_887, 9_890) } } } });
    server.requests.length = 0;
    // armor's 7.25 per row of ids: 7.25 × (1 + 2 + 3) = 43.5.
    expectCostRefusal(await gql(query, { b: null }), '60043.5', 3);
    expectCostRefusal(await gql(query), '60043.5', 3);
  });

  it('answers a walk next to other connections', async () => {
    // 20 000 + 725 for the walk's page of ids, 725 for the forward page.
    const answer = await gql(`{ tail: linxBatches(${FILTER}, last: 100) { nodes { id } } head: linxBatches(${FILTER}, first: 100) { nodes { id } } }`);
    expect(answer).toEqual({ status: 200, body: { data: { tail: { nodes: rows(9_800, 9_900) }, head: { nodes: rows(0, 100) } } } });
  });

  it('prices the records the connection reads before it gives up on a walk, at 2 each', async () => {
    expect(BACKWARD_WALK_COST).toBe(2 * BACKWARD_WALK_RECORDS);
    const endless = async () => ({ items: rows(0, 100), total: null });
    const walk = paginate({ last: 1 }, { pageBase: 1, defaultSize: 20, maxSize: 100, upstreamMaxPageSize: 100, binding: 'linx' }, endless);
    await expect(walk).rejects.toThrow(`longer than ${BACKWARD_WALK_RECORDS} records`);
  });
});
