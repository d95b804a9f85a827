import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { buildSchema, parse, printSchema, validate } from 'graphql';
import { accountOf, sortRecords } from '../support/expected.ts';
import { startStack, type Stack } from '../support/stack.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FEDERATION_DOC = readFileSync(new URL('../../docs/federation.md', import.meta.url), 'utf8');

/** The `npm run supergraph` command lines of docs/federation.md, comments dropped. */
const documented = [...FEDERATION_DOC.matchAll(/^(npm run supergraph .*?)(?:\s+#.*)?$/gm)].map((m) => m[1]!);

/**
 * Runs a documented command as a user would, through npm in the project directory, with
 * the example URL and the output file replaced; answers the file it wrote.
 */
async function runDocumented(command: string, replacements: [string, string][]): Promise<string> {
  let line = command;
  for (const [from, to] of replacements) {
    expect(line).toContain(from);
    line = line.replace(from, to);
  }
  const { stdout } = await promisify(execFile)('bash', ['-c', line], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
  const file = replacements.at(-1)![1];
  const text = await readFile(file, 'utf8');
  // After npm's banner, the one line that says what was written.
  written.push(stdout.trimEnd().split('\n').at(-1)!.replace(file, '<file>').replace(String(Buffer.byteLength(text)), '<bytes>'));
  return text;
}

/** The last line each documented command printed, the file name and size replaced. */
const written: string[] = [];

let dir: string;
let stack: Stack;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'supergraph-'));
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('npm run supergraph, as docs/federation.md writes it', () => {
  it('documents two commands: the supergraph and the API schema', () => {
    expect(documented).toHaveLength(2);
  });

  it('writes a supergraph that Apollo Gateway serves over this gateway', async () => {
    const command = documented.find((line) => line.includes('--url'))!;
    const sdl = await runDocumented(command, [
      ['https://bff.example.com/graphql', `${stack.gateway.url}/graphql`],
      ['supergraph.graphql', join(dir, 'supergraph.graphql')],
    ]);
    expect(sdl).toContain(`PLATFORM @join__graph(name: "platform", url: "${stack.gateway.url}/graphql")`);
    expect(sdl).toContain('type Document\n  @join__type(graph: PLATFORM, key: "id")');

    const gateway = new ApolloGateway({
      supergraphSdl: sdl,
      buildService: ({ url }) =>
        new RemoteGraphQLDataSource<{ authorization?: string }>({
          url,
          willSendRequest({ request, context }) {
            if (context.authorization) request.http?.headers.set('authorization', context.authorization);
          },
        }),
    });
    const server = new ApolloServer<{ authorization?: string }>({ gateway });
    await server.start();
    try {
      const result = await server.executeOperation(
        { query: '{ exceptions(first: 3) { totalCount nodes { id status } } }' },
        { contextValue: { authorization: `Bearer ${stack.acme}` } },
      );
      const records = sortRecords(stack.sandbox.store.exceptions(accountOf(stack.sandbox, stack.acme)), [[(e) => e.createdAt, 'DESC']]);
      expect(result.body).toEqual({
        kind: 'single',
        singleResult: { data: { exceptions: { totalCount: records.length, nodes: records.slice(0, 3).map((e) => ({ id: e.id, status: e.status })) } } },
      });
    } finally {
      await server.stop();
    }
  });

  it('writes the client-facing API schema with --api: every SDL field, no federation plumbing', async () => {
    const command = documented.find((line) => line.includes('--api'))!;
    const api = buildSchema(await runDocumented(command, [['schema.graphql', join(dir, 'schema.graphql')]]));
    expect(api.getQueryType()!.getFields()).not.toHaveProperty('_entities');
    expect(api.getQueryType()!.getFields()).not.toHaveProperty('_service');
    expect(Object.keys(api.getQueryType()!.getFields()).sort()).toEqual(['document', 'documentAcceptances', 'exceptions', 'linxBatches']);
    expect(Object.keys(api.getMutationType()!.getFields())).toEqual(['updateDocument']);
    expect(printSchema(api)).not.toMatch(/@link|@key|@join__|@shareable/);
    // An operation written against the subgraph's own SDL types validates against the API schema.
    const operation = parse('query($id: ID!) { document(id: $id) { id holder { ... on CustomerAccount { id } } } }');
    expect(validate(api, operation)).toEqual([]);
  });

  it('says what it wrote, and where', async () => {
    // Runs after the two commands above (jest keeps the order of a file's tests).
    expect(written).toEqual([`Wrote the supergraph of subgraph "platform" at ${stack.gateway.url}/graphql to <file> (<bytes> bytes)`, 'Wrote the API schema to <file> (<bytes> bytes)']);
  });
});
