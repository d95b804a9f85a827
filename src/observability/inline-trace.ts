import type { ApolloServerPlugin, BaseContext, GraphQLRequestContext, GraphQLRequestListener } from '@apollo/server';
import { ApolloServerPluginInlineTrace } from '@apollo/server/plugin/inlineTrace';

type Listener<Context extends BaseContext> = GraphQLRequestListener<Context> | void;

/** The answer of a plugin that does not listen to a request: settled once, shared by every such request. */
const NOTHING: Promise<void> = Promise.resolve();

/** Whether a request asks for a federation trace: a router sends `apollo-federation-include-trace: ftv1`. */
function asksForTrace(requestContext: GraphQLRequestContext<BaseContext>): boolean {
  return requestContext.request.http?.headers.get('apollo-federation-include-trace') === 'ftv1';
}

/**
 * A request's two listeners as one, the trace's hooks first (as when they were two plugins). The
 * hooks `own` has all return nothing (didResolveOperation, willSendResponse), so where both have
 * one, the two are run together and nothing is lost.
 */
function both<Context extends BaseContext>(trace: Listener<Context>, own: Listener<Context>): Listener<Context> {
  if (!trace || !own) return trace || own;
  const merged: Record<string, unknown> = { ...own, ...trace };
  for (const [hook, ownHook] of Object.entries(own) as Array<[string, (...args: unknown[]) => unknown]>) {
    const traceHook = (trace as Record<string, ((...args: unknown[]) => unknown) | undefined>)[hook];
    if (traceHook !== undefined) merged[hook] = async (...args: unknown[]) => void (await Promise.all([traceHook.apply(trace, args), ownHook.apply(own, args)]));
  }
  return merged as GraphQLRequestListener<Context>;
}

/**
 * `plugin`, which also gives Apollo's inline trace (federation's trace, for a router that asks for
 * it) to the requests that ask, and to no other. Apollo's plugin builds a trace tree for every
 * request before it reads that header; here the header is read first. The spread keeps that
 * plugin's internal id (`__internal_plugin_id__`), so Apollo sees the plugin as installed and does
 * not add its own, which would build that tree for every request of a subgraph. One plugin, so a
 * request that asks for no trace costs no call beyond `plugin`'s own.
 */
export function withInlineTrace<Context extends BaseContext>(plugin: ApolloServerPlugin<Context>): ApolloServerPlugin<Context> {
  const inlineTrace = ApolloServerPluginInlineTrace() as ApolloServerPlugin<Context>;
  const traced = inlineTrace.requestDidStart!.bind(inlineTrace);
  const observed = plugin.requestDidStart?.bind(plugin);
  const untraced = observed ?? (() => NOTHING);
  return {
    ...inlineTrace,
    ...plugin,
    requestDidStart(requestContext) {
      if (!asksForTrace(requestContext)) return untraced(requestContext);
      return Promise.all([traced(requestContext), observed?.(requestContext)]).then(([trace, own]) => both(trace, own));
    },
  };
}

/** Apollo's inline-trace plugin, consulted only by requests that ask for a trace (withInlineTrace, alone). */
export function inlineTraceWhenAsked<Context extends BaseContext>(): ApolloServerPlugin<Context> {
  return withInlineTrace<Context>({});
}
