import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sha256 } from '../hardening/support/http.ts';
import { compileRelay, RELAY_CONFIG, type RelayCompilation } from '../../scripts/compile-relay.ts';
import { accountOf, sortRecords } from '../support/expected.ts';
import { startProductionGateway, type GatewayProcess } from '../support/gateway-process.ts';
import { bearer, postGraphQL, type GraphQLBody } from '../support/graphql-client.ts';
import { startStack, type Stack } from '../support/stack.ts';

const ARTIFACTS = [
  'exceptionsList_query.graphql.ts',
  'exceptionsListQuery.graphql.ts',
  'exceptionsListPaginationQuery.graphql.ts',
  'linxBatchesList_query.graphql.ts',
  'linxBatchesListQuery.graphql.ts',
  'linxBatchesListPaginationQuery.graphql.ts',
];

/** The operation text the compiler generated, as a Relay client would send it. */
async function operationText(compilation: RelayCompilation, name: string): Promise<string> {
  const artifact = await readFile(join(compilation.artifactDirectory, `${name}.graphql.ts`), 'utf8');
  const match = /"text": ("(?:[^"\\]|\\.)*")/.exec(artifact);
  if (!match) throw new Error(`${name} carries no operation text`);
  return JSON.parse(match[1]!) as string;
}

interface Connection {
  totalCount: number | null;
  edges: { cursor: string; node: { id: string; __typename: string } }[];
  pageInfo: { endCursor: string | null; hasNextPage: boolean };
}

let compilation: RelayCompilation;
let stack: Stack;

beforeAll(async () => {
  const config = JSON.parse(await readFile(RELAY_CONFIG, 'utf8')) as { artifactDirectory: string };
  // Start from nothing, so the artifacts checked below are this run's.
  await rm(join(RELAY_CONFIG, '..', config.artifactDirectory), { recursive: true, force: true });
  [compilation, stack] = await Promise.all([compileRelay(), startStack()]);
}, 60_000);
afterAll(() => stack?.close());

/** The manifest the compiler wrote: Relay's persisted-query output. */
async function manifest(): Promise<Record<string, string>> {
  return JSON.parse(await readFile(compilation.manifestFile, 'utf8')) as Record<string, string>;
}

/** The persisted id Relay gave an operation (what a Relay app sends as doc_id). */
async function operationId(name: string): Promise<string> {
  const artifact = await readFile(join(compilation.artifactDirectory, `${name}.graphql.ts`), 'utf8');
  const match = /"id": "([0-9a-f]{64})"/.exec(artifact);
  if (!match) throw new Error(`${name} carries no persisted id`);
  return match[1]!;
}

describe('Relay client operations', () => {
  it('compile against the API schema without errors', () => {
    expect(compilation.output).not.toMatch(/error|panic/i);
    expect(compilation.exitCode).toBe(0);
    for (const file of ARTIFACTS) expect(existsSync(join(compilation.artifactDirectory, file))).toBe(true);
  });

  it('generate pagination queries that page through exceptions on the gateway', async () => {
    const text = await operationText(compilation, 'exceptionsListPaginationQuery');
    expect(text).toMatch(/^query exceptionsListPaginationQuery\(/);
    const filter = { status: ['NEW', 'REOPENED'] };
    const expected = sortRecords(
      stack.sandbox.store.exceptions(accountOf(stack.sandbox, stack.acme)).filter((e) => filter.status.includes(e.status)),
      [[(e) => e.createdAt, 'DESC']],
    );
    const page = async (cursor: string | null) => {
      const response = await stack.gql<{ exceptions: Connection }>(text, { count: 4, cursor, filter });
      expect(response.body.errors).toBeUndefined();
      return response.body.data!.exceptions;
    };
    const first = await page(null);
    expect(first.totalCount).toBe(expected.length);
    expect(first.edges.map((e) => [e.node.__typename, e.node.id])).toEqual(expected.slice(0, 4).map((e) => ['Exception', e.id]));
    expect(first.pageInfo).toEqual({ endCursor: first.edges[3]!.cursor, hasNextPage: true });
    const second = await page(first.pageInfo.endCursor);
    expect(second.edges.map((e) => e.node.id)).toEqual(expected.slice(4, 8).map((e) => e.id));
  });

  it('generate pagination queries that page through LinX batches on the gateway', async () => {
    const text = await operationText(compilation, 'linxBatchesListPaginationQuery');
    const ba = accountOf(stack.sandbox, stack.acme);
    const template = stack.sandbox.store.linxTemplates(ba)[1]!;
    const filter = { templateId: template.templateId, templateVersionId: template.versions[1]!.templateVersionId };
    const expected = sortRecords(
      stack.sandbox.store.linxBatches(ba).filter((b) => b.templateVersionId === filter.templateVersionId),
      [[(b) => b.createdAt, 'DESC']],
    );
    const first = await stack.gql<{ linxBatches: Connection }>(text, { count: 5, cursor: null, filter });
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data!.linxBatches.edges.map((e) => e.node.id)).toEqual(expected.slice(0, 5).map((b) => b.id));
    const second = await stack.gql<{ linxBatches: Connection }>(text, { count: 5, cursor: first.body.data!.linxBatches.pageInfo.endCursor, filter });
    expect(second.body.data!.linxBatches.edges.map((e) => e.node.id)).toEqual(expected.slice(5, 10).map((b) => b.id));
  });

  it('write the trusted-documents manifest: the SHA-256 of each operation text → the text, one entry per operation', async () => {
    const documents = await manifest();
    const names = ['exceptionsListQuery', 'exceptionsListPaginationQuery', 'linxBatchesListQuery', 'linxBatchesListPaginationQuery'];
    const ids = await Promise.all(names.map(operationId));
    expect(Object.keys(documents).sort()).toEqual([...ids].sort());
    for (const [index, name] of names.entries()) {
      const text = documents[ids[index]!]!;
      expect(text).toBe(await operationText(compilation, name));
      expect(sha256(text)).toBe(ids[index]);
    }
  });

  it('fail the compilation when an operation does not match the schema', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'relay-invalid-'));
    try {
      await mkdir(join(dir, 'src'));
      await writeFile(
        join(dir, 'src', 'broken-list.ts'),
        "import { graphql } from 'react-relay';\nexport const q = graphql`query brokenListQuery { exceptions(first: 1) { edges { node { noSuchField } } } }`;\n",
      );
      await writeFile(join(dir, 'relay.config.json'), JSON.stringify({ src: './src', schema: './schema.graphql', artifactDirectory: './__generated__', language: 'typescript', noSourceControl: true }));
      const broken = await compileRelay(join(dir, 'relay.config.json'));
      expect(broken.exitCode).not.toBe(0);
      expect(broken.output).toContain("The type `Exception` has no field `noSuchField`");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('trusted documents in production (node dist/main.js, NODE_ENV=production, TRUSTED_DOCUMENTS=<Relay manifest>)', () => {
  let gateway: GatewayProcess;
  let url: string;
  type ExceptionPages = Record<string, { edges: { node: { id: string } }[] }>;
  const post = (body: unknown) => postGraphQL<ExceptionPages>(`${url}/graphql`, body, bearer(stack.acme));
  const expectedExceptions = () =>
    sortRecords(stack.sandbox.store.exceptions(accountOf(stack.sandbox, stack.acme)), [[(e) => e.createdAt, 'DESC']]).slice(0, 3).map((e) => e.id);
  const ids = (body: GraphQLBody<ExceptionPages>) => body.data!.exceptions!.edges.map((e) => e.node.id);

  beforeAll(async () => {
    ({ process: gateway, origin: url } = await startProductionGateway({ UPSTREAM_URL: stack.sandbox.url, LOG_LEVEL: 'warn', TRUSTED_DOCUMENTS: compilation.manifestFile }, 20_000));
  }, 30_000);
  afterAll(() => gateway?.stop());

  it('serves a known document by Relay doc_id', async () => {
    const response = await post({ doc_id: await operationId('exceptionsListPaginationQuery'), variables: { count: 3, cursor: null } });
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    expect(ids(response.body)).toEqual(expectedExceptions());
  });

  it('serves a known document by Apollo extensions.persistedQuery, and over GET', async () => {
    const id = await operationId('exceptionsListPaginationQuery');
    const byHash = await post({ extensions: { persistedQuery: { version: 1, sha256Hash: id } }, variables: { count: 3, cursor: null } });
    expect(byHash.body.errors).toBeUndefined();
    expect(ids(byHash.body)).toEqual(expectedExceptions());
    const search = new URLSearchParams({ doc_id: id, variables: JSON.stringify({ count: 3, cursor: null }) });
    const get = await fetch(`${url}/graphql?${search}`, { headers: { authorization: `Bearer ${stack.acme}`, 'apollo-require-preflight': 'true' } });
    expect(get.status).toBe(200);
    expect(ids((await get.json()) as never)).toEqual(expectedExceptions());
  });

  it('refuses an unknown id and any document sent as text, before parsing and without calling the platform', async () => {
    stack.sandbox.resetRequests();
    const unknown = await post({ doc_id: 'f'.repeat(64), variables: {} });
    expect(unknown).toEqual({
      status: 400,
      body: { errors: [{ message: `No trusted document has the id "${'f'.repeat(64)}"`, extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST', requestId: expect.any(String) } }] },
    });
    const unknownHash = await post({ query: '{ exceptions(first: 1) { totalCount } }', extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ exceptions(first: 1) { totalCount } }') } } });
    expect(unknownHash.status).toBe(400);
    expect(unknownHash.body.errors![0]!.extensions.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
    // Even the exact text of a trusted document is refused: only ids run.
    const asText = await post({ query: (await manifest())[await operationId('exceptionsListPaginationQuery')], variables: { count: 3 } });
    expect(asText).toEqual({
      status: 400,
      body: {
        errors: [
          {
            message: 'This gateway runs trusted documents only: send the operation’s id (Relay doc_id, or Apollo extensions.persistedQuery.sha256Hash) instead of its text',
            extensions: { code: 'PERSISTED_QUERY_ID_REQUIRED', requestId: expect.any(String) },
          },
        ],
      },
    });
    // Not even parsed: a broken document gets the same refusal, not a syntax error.
    expect((await post({ query: '{ exceptions(' })).body.errors![0]!.extensions.code).toBe('PERSISTED_QUERY_ID_REQUIRED');
    expect(stack.platformCalls()).toEqual([]);
  });
});
