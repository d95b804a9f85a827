import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isNonNullType, type GraphQLField, type GraphQLSchema } from 'graphql';
import { buildSchema } from '../../src/schema/schema.ts';
import { createRandom, type Random } from '../../sandbox/data/random.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { accountOf } from '../support/expected.ts';
import { post, type RawResponse } from './support/http.ts';
import { OperationGenerator, literal, type Pools } from './support/operations.ts';
import { watchUnhandledRejections, type RejectionWatch } from './support/process-probe.ts';

const VALID_OPERATIONS = 250;
const BROKEN_OPERATIONS = 250;
const BODY_LIMIT = 102_400;

/** What a fuzz case sends: a JSON-able body, or raw text sent as is. */
type Body = Record<string, unknown> | unknown[] | string;

interface Outcome {
  name: string;
  status: number;
  codes: string[];
  problems: string[];
}

let stack: Stack;
let schema: GraphQLSchema;
let pools: Pools;
let rejections: RejectionWatch;
let cursor: string;

beforeAll(async () => {
  rejections = watchUnhandledRejections();
  stack = await startStack();
  schema = buildSchema();
  const acme = accountOf(stack.sandbox, stack.acme);
  const globex = accountOf(stack.sandbox, stack.globex);
  const ids = [acme, globex].flatMap((account) => [
    ...stack.sandbox.store.documents(account).slice(0, 5).map((d) => d.id),
    ...stack.sandbox.store.financialAccounts(account),
    ...stack.sandbox.store.linxTemplates(account).flatMap((t) => [t.templateId, ...t.versions.map((v) => v.templateVersionId)]),
    ...stack.sandbox.store.exceptions(account).slice(0, 3).map((e) => e.assignedTo?.id ?? e.id),
  ]);
  pools = { ids, strings: ['payroll', 'Batch', 'UTC', 'GMT-5', 'Europe/Paris', 'bad zone'] };
  const page = await stack.gql<{ exceptions: { pageInfo: { endCursor: string } } }>('{ exceptions(first: 2) { pageInfo { endCursor } } }');
  cursor = page.body.data!.exceptions.pageInfo.endCursor;
});

afterAll(async () => {
  await stack?.close();
  rejections.stop();
});

async function send(body: Body, headers: Record<string, string> = {}): Promise<RawResponse> {
  return post(`${stack.gateway.url}/graphql`, body, { authorization: `Bearer ${stack.acme}`, ...headers });
}

/** The properties every answer must have, whatever was sent. */
function judge(name: string, response: RawResponse): Outcome {
  const problems: string[] = [];
  if (response.status >= 500) problems.push(`HTTP ${response.status}`);
  if (!response.json) problems.push(`not JSON (${response.contentType}): ${response.text.slice(0, 200)}`);
  const errors = response.json?.errors ?? [];
  const codes = errors.map((e) => e.extensions?.code);
  for (const [i, code] of codes.entries()) {
    if (typeof code !== 'string') problems.push(`error without a code: ${errors[i]!.message.slice(0, 200)}`);
    else if (code === 'INTERNAL_SERVER_ERROR') problems.push(`internal error: ${errors[i]!.message.slice(0, 200)}`);
  }
  if (response.status === 200 && response.json && !('data' in response.json)) problems.push('HTTP 200 without data');
  if (response.status === 400 && response.json?.data) problems.push('HTTP 400 with data: a refused request must not have run');
  return { name, status: response.status, codes: codes.map(String), problems };
}

function rootFields(kind: 'query' | 'mutation'): GraphQLField<unknown, unknown>[] {
  const type = kind === 'query' ? schema.getQueryType() : schema.getMutationType();
  return Object.values(type?.getFields() ?? {});
}

function summarize(outcomes: Outcome[]): string {
  const byStatus = new Map<number, number>();
  const byCode = new Map<string, number>();
  for (const outcome of outcomes) {
    byStatus.set(outcome.status, (byStatus.get(outcome.status) ?? 0) + 1);
    for (const code of new Set(outcome.codes)) byCode.set(code, (byCode.get(code) ?? 0) + 1);
  }
  const list = (map: Map<string | number, number>) => [...map.entries()].sort().map(([key, n]) => `${key}×${n}`).join(' ');
  return `statuses ${list(byStatus)}; codes ${list(byCode)}`;
}

describe('operations generated from the schema', () => {
  it(`answers ${VALID_OPERATIONS} type-correct operations with data or typed errors, never a 5xx`, async () => {
    const random = createRandom('fuzz/valid');
    const generator = new OperationGenerator(schema, random, pools);
    const fields = [...rootFields('query').map((f) => ['query', f] as const), ...rootFields('mutation').map((f) => ['mutation', f] as const)];
    const outcomes: Outcome[] = [];
    for (let i = 0; i < VALID_OPERATIONS; i++) {
      const [kind, field] = fields[i % fields.length]!;
      const operation = generator.operation(kind, field, random.int(1, 4));
      const response = await send({ ...operation });
      const outcome = judge(`valid #${i} ${operation.query.slice(0, 160)}`, response);
      // Type-correct operations are executed; only a limit may refuse one (a random selection can be costly).
      if (response.status !== 200 && !response.json?.errors?.every((e) => e.extensions?.limit)) outcome.problems.push(`HTTP ${response.status}: ${response.text.slice(0, 200)}`);
      outcomes.push(outcome);
    }
    console.info(`fuzz, valid operations: ${summarize(outcomes)}`);
    expect(outcomes.filter((o) => o.problems.length > 0)).toEqual([]);
    expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThan(VALID_OPERATIONS * 0.8);
    expect(rejections.reasons).toEqual([]);
  }, 120_000);
});

/** Hand-shaped abuse, each generator drawing its details from the seeded source. */
function brokenCases(random: Random, generator: OperationGenerator): [string, () => Body][] {
  const unicode = ['\u202E', '\u200B', '\u200D', '\uFEFF', '\u0301', '😀', '\u0000', '\uFFFF'];
  const oddString = () => Array.from({ length: random.int(1, 12) }, () => random.pick([...unicode, 'a', 'é', 'ش', 'ж'])).join('');
  const wrongValue = () => random.pick<unknown>(['ten', 1.5, true, { a: 1 }, [1, 2], -2_147_483_649, 'null', '', 9e300]);
  const field = () => random.pick(rootFields('query').filter((f) => !f.name.startsWith('_')));
  const deep = (levels: number) => {
    let selection = '{ id }';
    for (let i = 0; i < levels; i++) selection = `{ nodes { financialAccount { documentAcceptances ${selection} } } }`;
    return `query($a: ID!) { documentAcceptances(financialAccountId: $a) ${selection} }`;
  };
  return [
    ['wrong variable type', () => {
      const f = field();
      const arg = random.pick(f.args);
      return { query: `query($v: ${String(arg.type)}) { ${f.name}(${arg.name}: $v) { __typename } }`, variables: { v: wrongValue() } };
    }],
    ['wrong literal type', () => {
      const f = field();
      const arg = random.pick(f.args);
      return { query: `{ ${f.name}(${arg.name}: ${random.pick(['"ten"', '1.5', 'true', '{ a: 1 }', '[[1]]', 'NOT_AN_ENUM', '$undefined'])}) { __typename } }` };
    }],
    ['huge string variable near the body limit', () => {
      const f = random.pick(rootFields('query').filter((x) => x.args.some((a) => String(a.type).startsWith('ID') || String(a.type).startsWith('String'))));
      const arg = f.args.find((a) => String(a.type).startsWith('ID') || String(a.type).startsWith('String'))!;
      const others = f.args.filter((a) => a !== arg && isNonNullType(a.type)).map((a) => `${a.name}: ${literal(a.type, generator.value(a.type))}`);
      return { query: `query($v: ${String(arg.type)}) { ${f.name}(${[`${arg.name}: $v`, ...others].join(', ')}) { __typename } }`, variables: { v: 'x'.repeat(BODY_LIMIT - 2_000 - random.int(0, 2_000)) } };
    }],
    ['huge string literal near the body limit', () => ({ query: `{ document(id: "${'9'.repeat(BODY_LIMIT - 1_000)}") { id } }` })],
    ['body over the limit', () => ({ query: '{ __typename }', variables: { pad: 'x'.repeat(BODY_LIMIT + random.int(1, 50_000)) } })],
    ['odd unicode in variables', () => ({
      query: 'query($id: ID!, $zone: String) { document(id: $id) { id } exceptions(filter: { timeZone: $zone }) { totalCount } }',
      variables: { id: oddString(), zone: oddString() },
    })],
    ['odd unicode in the document', () => ({ query: `{ exceptions(filter: { timeZone: "${oddString()}" }) { totalCount } ${random.pick(['', '\u200B', '\u202E'])}}` })],
    ['lone surrogates in JSON escapes (variables)', () => `{"query":"query($id: ID!) { document(id: $id) { id } }","variables":{"id":"${random.pick(['\\ud800', '\\udfff', 'a\\ud83d', '\\udc00\\ud800'])}"}}`],
    ['lone surrogates in JSON escapes (document)', () => `{"query":"{ exceptions(filter: { timeZone: \\"${random.pick(['\\ud800', '\\udfff'])}\\" }) { totalCount } }"}`],
    ['lone surrogate as a field name', () => '{"query":"{ \\ud800 }"}'],
    ['negative or enormous page sizes', () => {
      const size = random.pick<unknown>([-1, -100, -2_147_483_648, 0, 2_147_483_647, 2_147_483_648, 1e20, 1.5, '5']);
      const direction = random.pick(['first', 'last']);
      return { query: `query($n: Int) { exceptions(${direction}: $n) { totalCount nodes { id } } }`, variables: { n: size } };
    }],
    ['negative or enormous page-size literals', () => ({ query: `{ linxBatches(filter: { templateId: "t", templateVersionId: "v" }, first: ${random.pick(['-1', '2147483648', '99999999999999999999', '-0'])}) { totalCount } }` })],
    ['garbage cursors', () => {
      const garbage = random.pick([
        '', 'null', '0', 'YWJj', Buffer.from(JSON.stringify({ v: 9, o: -1 })).toString('base64'), Buffer.from('{"v":1,"o":1e309}').toString('base64'),
        'x'.repeat(5_000), oddString(), cursor, `${cursor}==`, Buffer.from(random.hex(64)).toString('base64url'),
      ]);
      const target = random.pick([
        `exceptions(after: $c) { totalCount }`,
        `exceptions(last: 3, before: $c) { totalCount }`,
        `documentAcceptances(financialAccountId: "${random.pick(pools.ids)}", after: $c) { totalCount }`,
        `linxBatches(filter: { templateId: "${random.pick(pools.ids)}", templateVersionId: "${random.pick(pools.ids)}" }, before: $c, last: 2) { totalCount }`,
      ]);
      return { query: `query($c: String) { ${target} }`, variables: { c: garbage } };
    }],
    ['deeply nested selections', () => ({ query: deep(random.int(3, 12)), variables: { a: random.pick(pools.ids) } })],
    ['unbalanced braces', () => ({ query: '{'.repeat(random.int(100, 20_000)) })],
    ['deeply nested variable values', () => {
      let value: unknown = 'NEW';
      for (let i = 0; i < random.int(50, 3_000); i++) value = [value];
      return { query: 'query($s: [ExceptionStatus!]) { exceptions(filter: { status: $s }) { totalCount } }', variables: { s: value } };
    }],
    ['deeply nested JSON object', () => {
      let value: unknown = 'leaf';
      for (let i = 0; i < random.int(50, 2_000); i++) value = { k: value };
      return { query: 'mutation($m: JSONObject) { updateDocument(input: { id: "x", documentType: OTHER, name: "n", description: "d", metadata: $m }) { userErrors { code } } }', variables: { m: value } };
    }],
    ['unknown fields, arguments, types and directives', () => ({
      query: random.pick([
        '{ nope }', '{ exceptions { nodes { nope } } }', '{ exceptions(nope: 1) { totalCount } }', 'query($x: Nope) { __typename }',
        '{ __typename @nope }', '{ exceptions { totalCount @include } }', '{ document { id } }', '{ exceptions }', '{ __typename { id } }',
      ]),
    })],
    ['fragment trouble', () => ({
      query: random.pick([
        '{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }',
        '{ ...Missing }',
        '{ ...A } fragment A on Nope { id }',
        '{ exceptions { nodes { ... on LinxBatch { id } } } }',
        '{ __typename } fragment Unused on Query { __typename }',
      ]),
    })],
    ['operation selection trouble', () => random.pick<Record<string, unknown>>([
      { query: 'query A { __typename } query B { __typename }' },
      { query: 'query A { __typename } query A { __typename }', operationName: 'A' },
      { query: 'query A { __typename }', operationName: 'B' },
      { query: 'subscription { __typename }' },
      { query: '# only a comment' },
      { query: '' },
      { query: null },
      { query: 42 },
      { query: ['{ __typename }'] },
      { query: '{ __typename }', variables: 'not an object' },
      { query: '{ __typename }', variables: [1, 2] },
      { query: '{ __typename }', operationName: 7 },
      { query: '{ __typename }', extensions: 'x' },
      { query: '{ __typename }', extensions: { persistedQuery: { version: 2, sha256Hash: 'abc' } } },
      { extensions: { persistedQuery: { version: 1, sha256Hash: random.hex(64) } } },
      {},
    ])],
    ['bodies that are not operations', () => random.pick<Body>(['"just a string"', '42', 'null', 'true', '[]', '[1, 2, 3]', '{', '{"query": "{ __typename }"', '\u0000\u0001', 'query { __typename }'])],
    ['batch while batching is off', () => [{ query: '{ __typename }' }, { query: '{ exceptions { totalCount } }' }]],
  ];
}

describe('broken and hostile requests', () => {
  it(`answers ${BROKEN_OPERATIONS} of them with a typed error (or data), never a 5xx`, async () => {
    const random = createRandom('fuzz/broken');
    const generator = new OperationGenerator(schema, random, pools);
    const cases = brokenCases(random, generator);
    const outcomes: Outcome[] = [];
    for (let i = 0; i < BROKEN_OPERATIONS; i++) {
      const [name, make] = cases[i % cases.length]!;
      const body = make();
      outcomes.push(judge(`broken #${i} ${name}: ${(typeof body === 'string' ? body : JSON.stringify(body)).slice(0, 160)}`, await send(body)));
    }
    console.info(`fuzz, broken requests: ${summarize(outcomes)}`);
    expect(outcomes.filter((o) => o.problems.length > 0)).toEqual([]);
    expect(rejections.reasons).toEqual([]);
  }, 120_000);

  it('answers a mutation over GET with 405, and the gateway is still healthy afterwards', async () => {
    const url = `${stack.gateway.url}/graphql?query=${encodeURIComponent('mutation { updateDocument(input: { id: "x", documentType: OTHER, name: "n" }) { userErrors { code } } }')}`;
    const response = await fetch(url, { headers: { authorization: `Bearer ${stack.acme}`, 'apollo-require-preflight': 'true' } });
    expect(response.status).toBe(405);
    expect(((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('BAD_REQUEST');
    expect((await fetch(`${stack.gateway.url}/healthz`)).status).toBe(200);
    const clean = await stack.gql<{ exceptions: { totalCount: number } }>('{ exceptions { totalCount } }');
    expect(clean.body.data!.exceptions.totalCount).toBe(stack.sandbox.store.exceptions(accountOf(stack.sandbox, stack.acme)).length);
  });
});
