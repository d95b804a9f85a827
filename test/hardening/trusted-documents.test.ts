import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfigError, testConfig } from '../../src/settings/config.ts';
import { setupHardening } from '../../src/hardening/index.ts';
import { createLogger } from '../../src/logger.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { post, sha256 } from './support/http.ts';

const COUNT = 'query ExceptionCount { exceptions(first: 1) { totalCount } }';
const FIRST = 'query FirstException($n: Int) { exceptions(first: $n) { nodes { id } } }';

let dir: string;
let manifestFile: string;
let development: Stack;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trusted-documents-'));
  manifestFile = join(dir, 'manifest.json');
  // Ids as a manifest may give them (not hashes): Apollo clients still reach a document by the SHA-256 of its text.
  await writeFile(manifestFile, JSON.stringify({ 'count-v1': COUNT, 'first-v1': FIRST }));
  development = await startStack({ NODE_ENV: 'development', TRUSTED_DOCUMENTS: manifestFile });
});
afterAll(async () => {
  await development?.close();
  await rm(dir, { recursive: true, force: true });
});

const send = (body: unknown) => post(`${development.gateway.url}/graphql`, body, { authorization: `Bearer ${development.acme}` });
const total = () => development.sandbox.store.exceptions(development.sandbox.tokens[0]!.businessAccountId).length;

describe('trusted documents outside production (TRUSTED_DOCUMENTS set, TRUSTED_DOCUMENTS_ONLY unset)', () => {
  it('serves manifest documents by id and by the SHA-256 of their text', async () => {
    expect((await send({ doc_id: 'count-v1' })).json).toEqual({ data: { exceptions: { totalCount: total() } } });
    expect((await send({ documentId: 'count-v1' })).json).toEqual({ data: { exceptions: { totalCount: total() } } });
    expect((await send({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(COUNT) } } })).json).toEqual({ data: { exceptions: { totalCount: total() } } });
  });

  it('still runs any document sent as text (the playground works) and leaves unknown hashes to automatic persisted queries', async () => {
    expect((await send({ query: '{ exceptions(first: 1) { totalCount } }' })).json).toEqual({ data: { exceptions: { totalCount: total() } } });
    // What the playground sends first.
    expect((await send({ query: '{ __schema { queryType { name } } }' })).json).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
    const unregistered = await send({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ __typename }') } } });
    expect(unregistered.json!.errors![0]!.extensions!.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('refuses an unknown doc_id, a doc_id that is not a string, and a text that is not the id’s document', async () => {
    development.sandbox.resetRequests();
    const unknown = await send({ doc_id: 'count-v2' });
    expect([unknown.status, unknown.json!.errors![0]!.message, unknown.json!.errors![0]!.extensions!.code]).toEqual([400, 'No trusted document has the id "count-v2"', 'PERSISTED_QUERY_NOT_IN_LIST']);
    const notString = await send({ doc_id: 7 });
    expect([notString.status, notString.json!.errors![0]!.extensions!.code]).toEqual([400, 'BAD_REQUEST']);
    const mismatch = await send({ doc_id: 'count-v1', query: FIRST });
    expect([mismatch.status, mismatch.json!.errors![0]!.message, mismatch.json!.errors![0]!.extensions!.code]).toEqual([
      400,
      'The query sent is not the trusted document "count-v1"',
      'PERSISTED_QUERY_MISMATCH',
    ]);
    expect(development.platformCalls()).toEqual([]);
  });
});

describe('a manifest that cannot be used', () => {
  it.each([
    ['missing', undefined, /^Invalid configuration:\n {2}TRUSTED_DOCUMENTS: cannot read .*missing\.json \(ENOENT\); build it with npm run relay$/],
    ['not-json', '{', /TRUSTED_DOCUMENTS: .*not-json\.json is not JSON$/],
    ['array', '[]', /a trusted-documents manifest is a JSON object of id → GraphQL document, or an apollo-persisted-query-manifest$/],
    ['empty', '{}', /the manifest holds no documents$/],
    ['broken', JSON.stringify({ a: '{ exceptions(' }), /document "a" is not valid GraphQL: Syntax Error/],
    ['two-operations', JSON.stringify({ a: 'query A { __typename } query B { __typename }' }), /document "a" holds 2 operations, not one$/],
    ['apollo-version-2', JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 2, operations: [] }), /an apollo-persisted-query-manifest of version 2; this gateway reads version 1$/],
    ['apollo-no-operations', JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1 }), /an apollo-persisted-query-manifest needs an "operations" array$/],
    ['apollo-empty', JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations: [] }), /the manifest holds no documents$/],
    ['apollo-no-id', JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations: [{ name: 'A', type: 'query', body: 'query A { __typename }' }] }), /operations\[0\] is not an object with a string "id" and a GraphQL "body"$/],
    ['apollo-broken', JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: 'x1', name: 'A', type: 'query', body: 'query A {' }] }), /document "x1" is not valid GraphQL: Syntax Error/],
  ])('stops start-up (%s)', async (name, content, message) => {
    const file = join(dir, `${name}.json`);
    if (content !== undefined) await writeFile(file, content);
    const failed = setupHardening(testConfig({ TRUSTED_DOCUMENTS: file }), createLogger('silent'));
    await expect(failed).rejects.toThrow(ConfigError);
    await expect(failed).rejects.toThrow(message);
  });

  it('TRUSTED_DOCUMENTS_ONLY needs a manifest', () => {
    expect(() => testConfig({ TRUSTED_DOCUMENTS_ONLY: 'true' })).toThrow('TRUSTED_DOCUMENTS_ONLY: needs TRUSTED_DOCUMENTS=<manifest file>');
  });
});
