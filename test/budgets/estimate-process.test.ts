import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { postJson } from '../support/graphql-client.ts';

// The estimate is an upper bound and actualQueryCost is exact, on the real process over the sandbox,
// whose request log counts what the platform received: every document shape that used to be
// undercounted, with requestedQueryCost ≥ calls made and actualQueryCost = calls made.

let sandbox: Sandbox;
let acme: string;
let documents: string[];
let origin: string;
let gateway: GatewayProcess;

interface Fixtures {
  businessAccounts: { token: string; documents: { id: string }[] }[];
}

beforeAll(async () => {
  sandbox = await startSandbox();
  acme = sandbox.tokens.find((t) => t.businessAccountName.toLowerCase().includes('acme'))!.token;
  const fixtures = (await (await fetch(`${sandbox.url}/__sandbox/fixtures`)).json()) as Fixtures;
  documents = fixtures.businessAccounts.find((business) => business.token === acme)!.documents.map((document) => document.id);
  // A burst no document here reaches: the budget never refuses, and the cost is still measured.
  ({ origin, process: gateway } = await startProductionGateway({ UPSTREAM_URL: sandbox.url, LOG_LEVEL: 'warn', ADMIN_PORT: '0', RATE_LIMIT_PER_SECOND: '1000', RATE_LIMIT_BURST: '100000' }));
}, 40_000);
afterAll(async () => {
  await gateway?.stop();
  await sandbox?.close();
});

interface Body {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
  extensions: { cost: { requestedQueryCost: number; actualQueryCost: number } };
}

async function platformCalls(): Promise<number> {
  return ((await (await fetch(`${sandbox.url}/__sandbox/requests`)).json()) as { total: number }).total;
}

/** Runs the document alone and returns its cost beside the calls the platform received for it. */
async function measured(query: string, variables: Record<string, unknown> = {}): Promise<{ requested: number; actual: number; calls: number; body: Body }> {
  await (await fetch(`${sandbox.url}/__sandbox/requests`, { method: 'DELETE' })).arrayBuffer();
  const response = await postJson(`${origin}/graphql`, { query, variables }, { authorization: `Bearer ${acme}` });
  const body = (await response.json()) as Body;
  expect(response.status).toBe(200);
  return { requested: body.extensions.cost.requestedQueryCost, actual: body.extensions.cost.actualQueryCost, calls: await platformCalls(), body };
}

const UNION = `{ exceptions(first: 30) { nodes { entity { ... on FinancialAccount {
  a1: documentAcceptances(first: 1) { totalCount } a2: documentAcceptances(first: 2) { totalCount } a3: documentAcceptances(first: 3) { totalCount }
} } } } }`;

describe('the estimate is an upper bound, actualQueryCost exact', () => {
  it('a union priced at its most expensive member', async () => {
    const { requested, actual, calls, body } = await measured(UNION);
    expect(body.errors).toBeUndefined();
    expect(calls).toBeGreaterThan(1);
    // The list, and three acceptance reads for each of the 30 rows that may be a FinancialAccount.
    expect(requested).toBe(1 + 30 * 3);
    expect(actual).toBe(calls);
  });

  it('_entities with a list literal of variables, and with variables nested in object literals', async () => {
    const [a, b, c] = documents;
    const list = await measured('query($a: _Any!, $b: _Any!, $c: _Any!) { _entities(representations: [$a, $b, $c]) { ... on Document { id } } }', {
      a: { __typename: 'Document', id: a },
      b: { __typename: 'Document', id: b },
      c: { __typename: 'Document', id: c },
    });
    expect(list.body.errors).toBeUndefined();
    expect([list.requested >= list.calls, list.actual, list.calls]).toEqual([true, list.calls, 3]);
    const nested = await measured('query($t: String!, $a: ID!, $b: ID!) { _entities(representations: [{ __typename: $t, id: $a }, { __typename: $t, id: $b }]) { ... on Document { id } } }', { t: 'Document', a, b });
    expect([nested.requested >= nested.calls, nested.actual, nested.calls]).toEqual([true, nested.calls, 2]);
  });

  it('one response key spread from two fragments merges into one field with both selections; a fragment that cannot apply is not visited', async () => {
    const query = `{ exceptions(first: 5) { nodes { entity { ...One ...Two ... on CustomerAccount { id } } } } }
      fragment One on FinancialAccount { x: documentAcceptances(first: 1) { totalCount } }
      fragment Two on FinancialAccount { x: documentAcceptances(first: 1) { totalCount } y: documentAcceptances(first: 2) { totalCount } }`;
    const { requested, actual, calls } = await measured(query);
    // The list, and for each of its 5 rows x and y (x once: its two spreads are one field).
    expect(requested).toBe(1 + 5 * 2);
    expect(requested).toBeGreaterThanOrEqual(calls);
    expect(actual).toBe(calls);
  });

  it('last, and a window at an offset, priced as the pages they fetch', async () => {
    const last = await measured('{ exceptions(last: 3) { totalCount nodes { id } } }');
    expect([last.requested >= last.calls, last.actual]).toEqual([true, last.calls]);
    const start = await measured('{ exceptions(first: 50) { pageInfo { endCursor } } }');
    const cursor = (start.body.data!.exceptions as { pageInfo: { endCursor: string } }).pageInfo.endCursor;
    const offset = await measured('query($after: String) { exceptions(first: 100, after: $after) { nodes { id } } }', { after: cursor });
    expect(offset.body.errors).toBeUndefined();
    expect([offset.requested >= offset.calls, offset.actual, offset.calls]).toEqual([true, offset.calls, 2]);
  });
});
