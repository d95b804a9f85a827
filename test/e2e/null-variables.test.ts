import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { bearer, postGraphQL, type GraphQLAnswer } from '../support/graphql-client.ts';

// A nullable variable with a default may stand where a non-null value is expected (an argument,
// an input field, a list item, `@skip`/`@include`): validation accepts the document, and only the
// client's explicit null breaks the rule. The production process must refuse it as graphql-js
// does, before any platform call, as a client mistake (BAD_USER_INPUT, not logged as an error),
// whether documents are compiled or interpreted.

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
});

/** graphql-js' refusal, located at the value it refuses: the first occurrence of `at` in the query. */
const refusal = (message: string, path: string[] | undefined, query: string, at: string, requestId: string) => ({
  message,
  locations: [{ line: 1, column: query.indexOf(at) + 1 }],
  ...(path ? { path } : {}),
  extensions: { code: 'BAD_USER_INPUT', requestId },
});

describe.each([
  ['compiled', 'true'],
  ['interpreted', 'false'],
])('explicit nulls in the production process (%s execution)', (_name, compiled) => {
  let gateway: GatewayProcess;
  let endpoint: string;
  beforeAll(async () => {
    // Compiled on first use, so every request below runs compiled once the compiler has loaded.
    const started = await startProductionGateway({ UPSTREAM_URL: sandbox.url, COMPILED_EXECUTION: compiled, COMPILED_QUERY_MIN_USES: '1', LOG_LEVEL: 'debug' });
    gateway = started.process;
    endpoint = `${started.origin}/graphql`;
    // graphql-jit is loaded when a document first reaches its COMPILED_QUERY_MIN_USES-th use
    // (graphql-js answers until then), and the process says so.
    if (compiled === 'true') {
      expect(await postGraphQL(endpoint, { query: '{ __typename }' })).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
      await gateway.waitFor(/"msg":"graphql-jit loaded/, 20_000);
    }
  }, 120_000);
  afterAll(async () => {
    await gateway.stop();
  });

  it('refuses each as BAD_USER_INPUT with graphql-js messages, makes no platform call, and logs no error', async () => {
    const id = sandbox.examples().documentToUpdate.id;
    const update = (variable: string, input: string) => `mutation(${variable}) { updateDocument(input: {${input}}) { document { id } } }`;
    const cases: Array<[string, Record<string, unknown>, (requestId: string, query: string) => GraphQLAnswer<unknown>['body']]> = [
      [`query($id: ID = "${id}") { document(id: $id) { id } }`, { id: null }, (r, q) => ({ data: { document: null }, errors: [refusal('Argument "id" of non-null type "ID!" must not be null.', ['document'], q, '$id)', r)] })],
      [update(`$id: ID = "${id}"`, 'id: $id, documentType: TAX, name: "n", description: "d"'), { id: null }, (r, q) => ({ data: { updateDocument: null }, errors: [refusal('Argument "input" has invalid value {id: $id, documentType: TAX, name: "n", description: "d"}.', ['updateDocument'], q, '{id:', r)] })],
      [update('$n: String = "x"', `id: "${id}", documentType: TAX, name: $n, description: "d"`), { n: null }, (r, q) => ({ data: { updateDocument: null }, errors: [refusal(`Argument "input" has invalid value {id: "${id}", documentType: TAX, name: $n, description: "d"}.`, ['updateDocument'], q, '{id:', r)] })],
      [update('$t: DocumentType = TAX', `id: "${id}", documentType: $t, name: "n", description: "d"`), { t: null }, (r, q) => ({ data: { updateDocument: null }, errors: [refusal(`Argument "input" has invalid value {id: "${id}", documentType: $t, name: "n", description: "d"}.`, ['updateDocument'], q, '{id:', r)] })],
      ['query($st: ExceptionStatus = NEW) { exceptions(filter: {status: [$st]}) { totalCount } }', { st: null }, (r, q) => ({ data: { exceptions: null }, errors: [refusal('Argument "filter" has invalid value {status: [$st]}.', ['exceptions'], q, '{status', r)] })],
      ['query($v: Boolean = true) { exceptions(first: 1) @include(if: $v) { totalCount } }', { v: null }, (r, q) => ({ data: null, errors: [refusal('Argument "if" of non-null type "Boolean!" must not be null.', undefined, q, '$v)', r)] })],
    ];
    sandbox.resetRequests();
    let n = 0;
    for (const [query, variables, expected] of cases) {
      // Twice: once while the document is new, once from the compiled cache.
      for (let round = 0; round < 2; round += 1) {
        const requestId = `explicit-null-${compiled}-${String((n += 1)).padStart(2, '0')}`;
        const answer = await postGraphQL(endpoint, { query, variables }, { ...bearer(sandbox.tokens[0]!.token), 'x-request-id': requestId });
        expect({ query, status: answer.status, body: answer.body }).toEqual({ query, status: 200, body: expected(requestId, query) });
      }
    }
    expect(sandbox.requests.filter((request) => request.host === 'api')).toEqual([]);
    // Every request has its log line (written within 100 ms), and none is an unexpected error.
    await gateway.waitFor(new RegExp(`"requestId":"explicit-null-${compiled}-${String(n)}"[^\\n]*"msg":"graphql request"`), 20_000);
    const lines = gateway.stdout().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  }, 120_000);
});
