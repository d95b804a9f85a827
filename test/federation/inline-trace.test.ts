import { ApolloServer, type ApolloServerPlugin, type BaseContext } from '@apollo/server';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'graphql';
import { inlineTraceWhenAsked } from '../../src/federation/inline-trace.ts';
import { startStack, type Stack } from '../support/stack.ts';

// A federation router asks a subgraph for its execution trace with the
// `apollo-federation-include-trace: ftv1` header; the trace comes back base64-encoded
// in `extensions.ftv1`. Requests that do not ask get none (and pay nothing for it).

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack.close();
});

const QUERY = '{ exceptions(first: 1) { totalCount } }';

describe('federation inline trace', () => {
  it('answers a router that asks with a trace in extensions.ftv1', async () => {
    const { status, body } = await stack.gql(QUERY, {}, { headers: { 'apollo-federation-include-trace': 'ftv1' } });
    expect(status).toBe(200);
    expect(body.data).toEqual({ exceptions: { totalCount: 300 } });
    const { extensions } = body as { extensions?: { ftv1?: unknown } };
    expect(typeof extensions?.ftv1).toBe('string');
    const trace = Buffer.from(extensions!.ftv1 as string, 'base64');
    // A protobuf Trace: not empty, and the base64 round-trips exactly.
    expect(trace.length).toBeGreaterThan(10);
    expect(trace.toString('base64')).toBe(extensions!.ftv1);
  });

  it('adds no trace to a request that does not ask, nor to one that asks for another format', async () => {
    const requests: Record<string, string>[] = [{}, { 'apollo-federation-include-trace': 'ftv2' }];
    for (const headers of requests) {
      const { status, body } = await stack.gql(QUERY, {}, { headers });
      expect(status).toBe(200);
      expect(body).toEqual({ data: { exceptions: { totalCount: 300 } } });
    }
  });
});

describe('the inline-trace plugin wrapper', () => {
  /** What Apollo logs at start-up when it finds no inline-trace plugin of its own id and installs one for the subgraph. */
  async function startUpLog(plugins: ApolloServerPlugin<BaseContext>[]): Promise<string[]> {
    const lines: string[] = [];
    const record = (message: unknown) => void lines.push(String(message));
    const logger = { debug: record, info: record, warn: record, error: record };
    const schema = buildSubgraphSchema([{ typeDefs: parse('type Query { ping: String }'), resolvers: { Query: { ping: () => 'pong' } } }]);
    const server = new ApolloServer({ schema, plugins, logger, stopOnTerminationSignals: false });
    await server.start();
    await server.stop();
    return lines.filter((line) => line.startsWith('Enabling inline tracing'));
  }

  it("keeps Apollo's internal id, so Apollo adds no inline-trace plugin of its own", async () => {
    expect((inlineTraceWhenAsked() as { __internal_plugin_id__?: string }).__internal_plugin_id__).toBe('InlineTrace');
    expect(await startUpLog([inlineTraceWhenAsked()])).toEqual([]);
    // Without it, Apollo installs its own (which builds a trace tree for every request) and says so.
    expect(await startUpLog([])).toEqual(['Enabling inline tracing for this subgraph. To disable, use ApolloServerPluginInlineTraceDisabled.']);
  });
});
