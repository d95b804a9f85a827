import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from '../support/stack.ts';

// docs/web-clients.md's table of the ways to send a trusted document by id, checked against a
// gateway with a manifest: what it says about GET is what a client gets.

const DOC = readFileSync(new URL('../../docs/web-clients.md', import.meta.url), 'utf8');
const COUNT = 'query ExceptionCount { exceptions(first: 1) { totalCount } }';

let dir: string;
let stack: Stack;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'web-clients-'));
  const manifest = join(dir, 'manifest.json');
  await writeFile(manifest, JSON.stringify({ 'count-v1': COUNT }));
  stack = await startStack({ NODE_ENV: 'development', TRUSTED_DOCUMENTS: manifest });
});
afterAll(async () => {
  await stack?.close();
  await rm(dir, { recursive: true, force: true });
});

const get = async (search: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${stack.gateway.url}/graphql?${search}`, { headers: { authorization: `Bearer ${stack.acme}`, ...headers } });
  return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: { extensions?: { code?: string } }[] } };
};

describe('docs/web-clients.md: a trusted document by id over GET', () => {
  it('names the header a GET needs in the Relay row', () => {
    const relay = DOC.split('\n').find((line) => line.startsWith('| Relay |'))!;
    expect(relay).toContain('GET parameters');
    expect(relay).toContain('`Apollo-Require-Preflight: true`');
  });

  it('runs a GET by doc_id that carries Apollo-Require-Preflight', async () => {
    const total = stack.sandbox.store.exceptions(stack.sandbox.tokens[0]!.businessAccountId).length;
    expect(await get('doc_id=count-v1', { 'apollo-require-preflight': 'true' })).toEqual({ status: 200, body: { data: { exceptions: { totalCount: total } }, extensions: { cost: { requestedQueryCost: 1, actualQueryCost: 1 } } } });
    expect(await get('documentId=count-v1', { 'apollo-require-preflight': 'true' })).toEqual({ status: 200, body: { data: { exceptions: { totalCount: total } }, extensions: { cost: { requestedQueryCost: 1, actualQueryCost: 1 } } } });
  });

  it('refuses a GET by doc_id without it as CSRF, before any platform call', async () => {
    stack.sandbox.resetRequests();
    const refused = await get('doc_id=count-v1');
    expect([refused.status, refused.body.data, refused.body.errors?.[0]?.extensions?.code]).toEqual([400, undefined, 'BAD_REQUEST']);
    expect(stack.platformCalls()).toEqual([]);
  });
});
