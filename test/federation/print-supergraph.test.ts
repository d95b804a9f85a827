import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { buildSchema, parse, printSchema, validate } from 'graphql';
import { accountOf, sortRecords } from '../support/expected.ts';
import { startStack, type Stack } from '../support/stack.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = `${ROOT}node_modules/.bin/node`;

async function printSupergraph(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(NODE, ['--disable-warning=ExperimentalWarning', 'scripts/print-supergraph.ts', ...args], { cwd: ROOT });
  return stdout;
}

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

describe('scripts/print-supergraph.ts', () => {
  it('prints a supergraph that Apollo Gateway serves over this gateway', async () => {
    const sdl = await printSupergraph('--url', `${stack.gateway.url}/graphql`);
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

  it('prints the client-facing API schema with --api: every SDL field, no federation plumbing', async () => {
    const api = buildSchema(await printSupergraph('--api'));
    expect(api.getQueryType()!.getFields()).not.toHaveProperty('_entities');
    expect(api.getQueryType()!.getFields()).not.toHaveProperty('_service');
    expect(Object.keys(api.getQueryType()!.getFields()).sort()).toEqual(['document', 'documentAcceptances', 'exceptions', 'linxBatches']);
    expect(Object.keys(api.getMutationType()!.getFields())).toEqual(['updateDocument']);
    expect(printSchema(api)).not.toMatch(/@link|@key|@join__|@shareable/);
    // An operation written against the subgraph's own SDL types validates against the API schema.
    const operation = parse('query($id: ID!) { document(id: $id) { id holder { ... on CustomerAccount { id } } } }');
    expect(validate(api, operation)).toEqual([]);
  });
});
