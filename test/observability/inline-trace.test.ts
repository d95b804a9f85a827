import { ApolloServer, HeaderMap, type ApolloServerPlugin, type BaseContext } from '@apollo/server';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'graphql';
import { inlineTraceWhenAsked, withInlineTrace } from '../../src/observability/inline-trace.ts';

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

  it('makes the plugin it wraps the inline-trace plugin: a request that asks gets a trace, and the wrapped plugin sees every request', async () => {
    const seen: Array<[string, boolean]> = [];
    const observer: ApolloServerPlugin<BaseContext> = {
      async requestDidStart({ request }) {
        return {
          async willSendResponse({ response }) {
            const result = response.body.kind === 'single' ? response.body.singleResult : undefined;
            seen.push([String(request.http?.headers.get('apollo-federation-include-trace')), result?.extensions?.ftv1 !== undefined]);
          },
        };
      },
    };
    expect((withInlineTrace(observer) as { __internal_plugin_id__?: string }).__internal_plugin_id__).toBe('InlineTrace');
    expect(await startUpLog([withInlineTrace(observer)])).toEqual([]);

    const schema = buildSubgraphSchema([{ typeDefs: parse('type Query { ping: String }'), resolvers: { Query: { ping: () => 'pong' } } }]);
    const server = new ApolloServer({ schema, plugins: [withInlineTrace(observer)], stopOnTerminationSignals: false });
    await server.start();
    const ask = async (value: string | undefined) => {
      const headers = new HeaderMap(value === undefined ? [] : [['apollo-federation-include-trace', value]]);
      const response = await server.executeOperation({ query: '{ ping }', http: { method: 'POST', headers, search: '', body: {} } });
      return response.body.kind === 'single' ? response.body.singleResult : undefined;
    };
    const traced = await ask('ftv1');
    const untraced = await ask(undefined);
    await server.stop();

    expect(traced?.data).toEqual({ ping: 'pong' });
    // A protobuf Trace, whose one field node is named `ping`.
    const trace = Buffer.from(traced?.extensions?.ftv1 as string, 'base64');
    expect(trace.toString('base64')).toBe(traced?.extensions?.ftv1);
    expect(trace.includes('ping')).toBe(true);
    expect(untraced).toEqual({ data: { ping: 'pong' } });
    // The trace is written before the wrapped plugin's willSendResponse runs, as when they were two plugins.
    expect(seen).toEqual([['ftv1', true], ['undefined', false]]);
  });
});
