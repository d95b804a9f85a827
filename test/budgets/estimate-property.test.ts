import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { testConfig } from '../../src/settings/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway, type Gateway } from '../../src/server.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { postJson } from '../support/graphql-client.ts';

// A property of the estimate: for documents generated over the schema (lists with and without
// sizes, last, nested connections under a union, fragments, aliases sharing a key, _entities in its
// forms), what the platform received is never more than requestedQueryCost, and actualQueryCost is
// exactly what it received. Against the sandbox, with one gateway in this process.

let sandbox: Sandbox;
let gateway: Gateway;
let acme: string;
let account: string;
let template: { templateId: string; templateVersionId: string };
let documents: string[];

interface Fixtures {
  businessAccounts: { token: string; financialAccounts: string[]; documents: { id: string }[]; linxTemplates: { templateId: string; versions: { templateVersionId: string }[] }[] }[];
}

beforeAll(async () => {
  sandbox = await startSandbox();
  acme = sandbox.tokens.find((t) => t.businessAccountName.toLowerCase().includes('acme'))!.token;
  const fixtures = (await (await fetch(`${sandbox.url}/__sandbox/fixtures`)).json()) as Fixtures;
  const business = fixtures.businessAccounts.find((entry) => entry.token === acme)!;
  account = business.financialAccounts[0]!;
  template = { templateId: business.linxTemplates[0]!.templateId, templateVersionId: business.linxTemplates[0]!.versions[0]!.templateVersionId };
  documents = business.documents.map((document) => document.id);
  gateway = await startGateway(testConfig({ RATE_LIMIT_PER_SECOND: '1000', RATE_LIMIT_BURST: '100000', MAX_QUERY_COST: '100000000', MAX_PLATFORM_CALLS_PER_REQUEST: '10000', COMPILED_QUERY_MIN_USES: '1000' }), sandbox.url, {
    logger: createLogger('silent'),
  });
}, 40_000);
afterAll(async () => {
  await gateway?.close();
  await sandbox?.close();
});

const size = fc.oneof(fc.constant(''), fc.integer({ min: 0, max: 12 }).map((n) => `first: ${n}`), fc.integer({ min: 1, max: 12 }).map((n) => `last: ${n}`));
const args = (extra: string, sized: string) => {
  const list = [extra, sized].filter((part) => part !== '').join(', ');
  return list === '' ? '' : `(${list})`;
};
const connectionBody = (nodes: string) => fc.constantFrom('totalCount', 'pageInfo { hasNextPage hasPreviousPage }', `nodes { ${nodes} }`, `totalCount nodes { ${nodes} } pageInfo { hasNextPage }`);

const acceptances = fc.tuple(size, connectionBody('id accepted')).map(([sized, body]) => `documentAcceptances${args('', sized)} { ${body} }`);
/** What an exception's entity selects: fragments on members of the union, some never applying. */
const entity = fc.tuple(fc.array(acceptances, { minLength: 1, maxLength: 3 }), fc.boolean(), fc.boolean()).map(
  ([lists, named, other]) =>
    `entity { ${named ? '...Account' : `... on FinancialAccount { ${lists.map((list, i) => `f${i}: ${list}`).join(' ')} }`} ${other ? '... on CustomerAccount { id }' : ''} }`,
);
const exceptions = fc.tuple(size, fc.option(entity, { nil: undefined })).map(([sized, inner]) => `exceptions${args('', sized)} { totalCount nodes { id ${inner ?? ''} } }`);
const linx = fc.tuple(size).map(([sized]) => `linxBatches${args('filter: $filter', sized)} { nodes { id } pageInfo { hasNextPage } }`);
const rootAcceptances = fc.tuple(size).map(([sized]) => `documentAcceptances${args('financialAccountId: $account', sized)} { totalCount nodes { id } }`);
const document = fc.constant('document(id: $document) { id name }');
const entities = fc.constantFrom(
  '_entities(representations: $representations) { ... on Document { id } }',
  '_entities(representations: [$a, $b]) { ... on Document { id } ... on FinancialAccount { documentAcceptances(first: 2) { totalCount } } }',
  '_entities(representations: [{ __typename: "FinancialAccount", id: $account }]) { ... on FinancialAccount { documentAcceptances(last: 3) { nodes { id } } } }',
);
/** A root selection: a few fields under aliases, some sharing a key (merged by execution). */
const operation = fc.array(fc.tuple(fc.oneof(exceptions, linx, rootAcceptances, document, entities), fc.integer({ min: 0, max: 3 })), { minLength: 1, maxLength: 4 }).map((fields) => {
  // The same alias twice is valid only for identical fields: those keep their key, the rest get their own.
  const seen = new Map<string, number>();
  return fields
    .map(([field], index) => {
      const key = seen.get(field) ?? index;
      seen.set(field, key);
      return `k${key}: ${field}`;
    })
    .join('\n');
});

const VARIABLE_TYPES = { filter: 'LinxBatchFilter!', account: 'ID!', document: 'ID!', representations: '[_Any!]!', a: '_Any!', b: '_Any!' };

describe('the estimate', () => {
  it('is never below the calls the platform receives, and actualQueryCost is exactly those calls', async () => {
    await fc.assert(
      fc.asyncProperty(operation, async (selection) => {
        // Only the variables and the fragment the selection uses: an unused one is a validation error.
        const declared = Object.entries(VARIABLE_TYPES).filter(([name]) => new RegExp(`\\$${name}\\b`).test(selection));
        const head = declared.length === 0 ? 'query Generated' : `query Generated(${declared.map(([name, type]) => `$${name}: ${type}`).join(', ')})`;
        const fragment = selection.includes('...Account') ? '\nfragment Account on FinancialAccount { x: documentAcceptances(first: 1) { totalCount } x: documentAcceptances(first: 1) { totalCount nodes { id } } }' : '';
        const query = `${head} {\n${selection}\n}${fragment}`;
        const variables = {
          filter: template,
          account,
          document: documents[0],
          representations: documents.slice(0, 3).map((id) => ({ __typename: 'Document', id })),
          a: { __typename: 'Document', id: documents[1] },
          b: { __typename: 'FinancialAccount', id: account },
        };
        await (await fetch(`${sandbox.url}/__sandbox/requests`, { method: 'DELETE' })).arrayBuffer();
        const response = await postJson(`${gateway.url}/graphql`, { query, variables }, { authorization: `Bearer ${acme}` });
        const body = (await response.json()) as { errors?: { message: string }[]; extensions?: { cost?: { requestedQueryCost: number; actualQueryCost: number } } };
        const calls = ((await (await fetch(`${sandbox.url}/__sandbox/requests`)).json()) as { total: number }).total;
        expect({ query, errors: body.errors, status: response.status }).toEqual({ query, errors: undefined, status: 200 });
        const cost = body.extensions!.cost!;
        expect({ query, actual: cost.actualQueryCost, bounded: cost.requestedQueryCost >= calls }).toEqual({ query, actual: calls, bounded: true });
      }),
      { numRuns: 60, seed: 20261127 },
    );
  }, 120_000);
});

/** A sandbox serving at most `cap` rows a page, silently (as Spring Data does), and the fixtures its documents read. */
async function cappedPlatform(cap: number) {
  const platform = await startSandbox({ maxPageSize: cap });
  const token = platform.tokens.find((t) => t.businessAccountName.toLowerCase().includes('acme'))!.token;
  const fixtures = (await (await fetch(`${platform.url}/__sandbox/fixtures`)).json()) as Fixtures;
  const business = fixtures.businessAccounts.find((entry) => entry.token === token)!;
  const variables = {
    filter: { templateId: business.linxTemplates[0]!.templateId, templateVersionId: business.linxTemplates[0]!.versions[0]!.templateVersionId },
    account: business.financialAccounts[0]!,
    document: business.documents[0]!.id,
    representations: business.documents.slice(0, 3).map(({ id }) => ({ __typename: 'Document', id })),
    a: { __typename: 'Document', id: business.documents[1]!.id },
    b: { __typename: 'FinancialAccount', id: business.financialAccounts[0]! },
  };
  return { platform, token, variables };
}

const BUDGETED = { RATE_LIMIT_PER_SECOND: '1000', RATE_LIMIT_BURST: '100000', MAX_QUERY_COST: '100000000', MAX_PLATFORM_CALLS_PER_REQUEST: '10000', COMPILED_QUERY_MIN_USES: '1000' };

function documentOf(selection: string): string {
  const declared = Object.entries(VARIABLE_TYPES).filter(([name]) => new RegExp(`\\$${name}\\b`).test(selection));
  const head = declared.length === 0 ? 'query Generated' : `query Generated(${declared.map(([name, type]) => `$${name}: ${type}`).join(', ')})`;
  const fragment = selection.includes('...Account') ? '\nfragment Account on FinancialAccount { x: documentAcceptances(first: 1) { totalCount } x: documentAcceptances(first: 1) { totalCount nodes { id } } }' : '';
  return `${head} {\n${selection}\n}${fragment}`;
}

describe.each([7, 25])('the estimate on a platform capping pages at %i rows', (cap) => {
  let capped: Awaited<ReturnType<typeof cappedPlatform>>;
  beforeAll(async () => {
    capped = await cappedPlatform(cap);
  }, 40_000);
  afterAll(async () => {
    await capped?.platform.close();
  });

  /** Runs the document on `over` and returns its cost beside the calls the platform received. */
  async function run(over: Gateway, selection: string) {
    const query = documentOf(selection);
    capped.platform.resetRequests();
    const response = await postJson(`${over.url}/graphql`, { query, variables: capped.variables }, { authorization: `Bearer ${capped.token}` });
    const body = (await response.json()) as { errors?: { message: string }[]; extensions?: { cost?: { requestedQueryCost: number; actualQueryCost: number } } };
    const calls = capped.platform.requests.filter((request) => request.host === 'api').length;
    expect({ query, errors: body.errors, status: response.status }).toEqual({ query, errors: undefined, status: 200 });
    const cost = body.extensions!.cost!;
    expect({ query, actual: cost.actualQueryCost, bounded: cost.requestedQueryCost >= calls }).toEqual({ query, actual: calls, bounded: true });
  }

  it('is never below the calls made once the cap is learned', async () => {
    const over = await startGateway(testConfig(BUDGETED), capped.platform.url, { logger: createLogger('silent') });
    try {
      // Every list shows its cap to a first request.
      for (const selection of ['exceptions(first: 100) { nodes { id } }', 'documentAcceptances(financialAccountId: $account, first: 100) { nodes { id } }', 'linxBatches(filter: $filter, first: 100) { nodes { id } }']) {
        await run(over, selection);
      }
      await fc.assert(
        fc.asyncProperty(operation, (selection) => run(over, selection)),
        { numRuns: 80, seed: 20261128 + cap },
      );
    } finally {
      await over.close();
    }
  }, 120_000);

  it('is never below the calls made by the request that learns it', async () => {
    await fc.assert(
      fc.asyncProperty(operation, async (selection) => {
        // A gateway that has learned nothing yet: this document's answers show the cap.
        const fresh = await startGateway(testConfig(BUDGETED), capped.platform.url, { logger: createLogger('silent') });
        try {
          await run(fresh, selection);
        } finally {
          await fresh.close();
        }
      }),
      { numRuns: 30, seed: 20261129 + cap },
    );
  }, 120_000);
});
