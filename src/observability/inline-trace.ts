import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import { ApolloServerPluginInlineTrace } from '@apollo/server/plugin/inlineTrace';

/**
 * Apollo's inline-trace plugin, consulted only by requests that ask for a trace
 * (`apollo-federation-include-trace: ftv1`, sent by a federation router). The
 * plugin builds a trace tree for every request before it reads that header;
 * here the header is read first. The spread keeps the plugin's internal id
 * (`__internal_plugin_id__`), so Apollo sees the plugin as installed and does not
 * add its own, which would build that tree for every request of a subgraph.
 */
export function inlineTraceWhenAsked<Context extends BaseContext>(): ApolloServerPlugin<Context> {
  const plugin = ApolloServerPluginInlineTrace() as ApolloServerPlugin<Context>;
  const traced = plugin.requestDidStart?.bind(plugin);
  return {
    ...plugin,
    async requestDidStart(requestContext) {
      if (requestContext.request.http?.headers.get('apollo-federation-include-trace') !== 'ftv1') return undefined;
      return traced?.(requestContext);
    },
  };
}
