import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { auditServer, type AuditFail, type AuditResult } from 'graphql-http';
import { postJson } from '../support/graphql-client.ts';
import { startStack, type Stack } from '../support/stack.ts';

// The GraphQL-over-HTTP specification's server audits (graphql-http) against the
// running gateway. Requirements (MUST) may not fail; every recommendation or
// option the gateway does not follow is listed here and explained in
// docs/graphql-over-http.md.

const DOC = readFileSync(new URL('../../docs/graphql-over-http.md', import.meta.url), 'utf8');

/** Apollo answers 400 to invalid requests even when the client accepts only application/json. */
const EXPECTED_WARNINGS = ['572B', 'FDE2', '7B9B'];
/** CSRF prevention blocks GETs that carry neither a preflight header nor an operation-name header. */
const EXPECTED_NOTICES = ['5A70', 'D6D5', '6A70'];

let stack: Stack;
let results: AuditResult[];

beforeAll(async () => {
  stack = await startStack();
  results = await auditServer({ url: `${stack.gateway.url}/graphql` });
  const lines = results
    .filter((r) => r.status !== 'ok')
    .map((r) => `${r.status.toUpperCase()} ${r.id} ${r.name} — ${r.reason}`);
  console.info(`GraphQL over HTTP audit: ${results.filter((r) => r.status === 'ok').length}/${results.length} ok\n${lines.join('\n')}`);
});
afterAll(() => stack.close());

const ids = (status: AuditResult['status']) => results.filter((r) => r.status === status).map((r) => r.id).sort();

describe('GraphQL over HTTP audits', () => {
  it('runs the whole suite', () => {
    expect(results.length).toBeGreaterThanOrEqual(60);
  });

  it('fails no requirement', () => {
    const errors = results.filter((r): r is AuditFail => r.status === 'error').map((r) => `${r.id} ${r.name}: ${r.reason}`);
    expect(errors).toEqual([]);
  });

  it('leaves only the documented warnings and notices', () => {
    expect(ids('warn')).toEqual([...EXPECTED_WARNINGS].sort());
    expect(ids('notice')).toEqual([...EXPECTED_NOTICES].sort());
    for (const id of [...EXPECTED_WARNINGS, ...EXPECTED_NOTICES]) expect(DOC).toContain(`\`${id}\``);
  });
});

describe('behaviour behind the warnings and notices', () => {
  const post = (body: unknown, accept: string) => postJson(`${stack.gateway.url}/graphql`, body, { accept });

  it('answers a document that does not parse with 400 and GRAPHQL_PARSE_FAILED, whatever the client accepts', async () => {
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const response = await post({ query: '{' }, accept);
      const body = (await response.json()) as { errors: { extensions: { code: string } }[] };
      expect([response.status, body.errors.map((e) => e.extensions.code)]).toEqual([400, ['GRAPHQL_PARSE_FAILED']]);
    }
  });

  it('answers an invalid document with 400 and GRAPHQL_VALIDATION_FAILED', async () => {
    const response = await post({ query: '{ noSuchField }' }, 'application/json');
    const body = (await response.json()) as { errors: { extensions: { code: string } }[] };
    expect([response.status, body.errors.map((e) => e.extensions.code)]).toEqual([400, ['GRAPHQL_VALIDATION_FAILED']]);
  });

  it('answers variables that do not coerce with 400 and BAD_USER_INPUT', async () => {
    const response = await post({ query: 'query($id: ID!) { document(id: $id) { id } }', variables: { id: null } }, 'application/json');
    const body = (await response.json()) as { errors: { extensions: { code: string } }[] };
    expect([response.status, body.errors.map((e) => e.extensions.code)]).toEqual([400, ['BAD_USER_INPUT']]);
  });

  it('blocks a simple GET as a possible cross-site request, and executes it with a preflight header', async () => {
    const url = new URL(`${stack.gateway.url}/graphql`);
    url.searchParams.set('query', 'query Type($name: String!) { __type(name: $name) { name } }');
    url.searchParams.set('variables', JSON.stringify({ name: 'Exception' }));
    const blocked = await fetch(url, { headers: { accept: 'application/json' } });
    expect(blocked.status).toBe(400);
    expect(((await blocked.json()) as { errors: { message: string }[] }).errors[0]!.message).toMatch(/Cross-Site Request Forgery/);
    for (const header of ['apollo-require-preflight', 'x-apollo-operation-name']) {
      const allowed = await fetch(url, { headers: { accept: 'application/json', [header]: 'Type' } });
      expect([allowed.status, await allowed.json()]).toEqual([200, { data: { __type: { name: 'Exception' } }, extensions: { cost: { requestedQueryCost: 0, actualQueryCost: 0 } } }]);
    }
  });

  it('never executes a mutation sent with GET', async () => {
    const url = new URL(`${stack.gateway.url}/graphql`);
    url.searchParams.set('query', 'mutation { updateDocument(input: { id: "x", documentType: OTHER, name: "n" }) { userErrors { code } } }');
    const response = await fetch(url, { headers: { accept: 'application/json', 'apollo-require-preflight': 'true', authorization: `Bearer ${stack.acme}` } });
    expect(response.status).toBe(405);
    expect(stack.platformCalls().filter((r) => r.method === 'PUT')).toEqual([]);
  });
});
