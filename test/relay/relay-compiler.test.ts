import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { compileRelay, RELAY_CONFIG, type RelayCompilation } from '../../scripts/compile-relay.ts';
import { accountOf, sortRecords } from '../support/expected.ts';
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
