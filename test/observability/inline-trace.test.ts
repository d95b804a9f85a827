import { ApolloServer, type ApolloServerPlugin, type BaseContext } from '@apollo/server';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'graphql';
import { inlineTraceWhenAsked } from '../../src/observability/inline-trace.ts';

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
