import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginInlineTrace } from '@apollo/server/plugin/inlineTrace';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import express from 'express';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { createContext, type GatewayContext } from './context.ts';
import { CompiledExecution, compiledExecutionGateway } from './execution/compiled-executor.ts';
import { formatError } from './format-error.ts';
import { graphqlHttp } from './graphql-http.ts';
import { setupHardening } from './hardening/index.ts';
import { Readiness } from './health.ts';
import { createLogger } from './logger.ts';
import { setupObservability } from './observability/index.ts';
import { currentRequestId, runWithRequestId } from './observability/request-scope.ts';
import { PlatformHttp } from './platform/http.ts';
import type { ExampleValues } from './playground/index.ts';
import { requestIdFrom } from './request-id.ts';
import { buildSchema } from './schema.ts';

export interface Gateway {
  app: express.Express;
  server: Server;
  apollo: ApolloServer<GatewayContext>;
  http: PlatformHttp;
  logger: Logger;
  /** Base URL once listening, e.g. http://127.0.0.1:4000 */
  url: string;
  close(): Promise<void>;
}

/**
 * Express tags every answer it sends with a weak ETag. GraphQL answers are
 * `no-store` (they carry account data and change with every call), so a tag
 * only costs a hash of each body; the playground's static files keep theirs.
 */
function withoutEtags(app: express.Express): void {
  app.set('etag', false);
}

/**
 * Apollo's inline-trace plugin, consulted only by requests that ask for a trace
 * (`apollo-federation-include-trace: ftv1`, sent by a federation router). The
 * plugin builds a trace tree for every request before it reads that header;
 * here the header is read first. The spread keeps the plugin's internal id, so
 * Apollo still sees the plugin as installed.
 */
function inlineTraceWhenAsked(): ApolloServerPlugin<GatewayContext> {
  const plugin = ApolloServerPluginInlineTrace() as ApolloServerPlugin<GatewayContext>;
  const traced = plugin.requestDidStart?.bind(plugin);
  return {
    ...plugin,
    async requestDidStart(requestContext) {
      if (requestContext.request.http?.headers.get('apollo-federation-include-trace') !== 'ftv1') return undefined;
      return traced?.(requestContext);
    },
  };
}

/** Resolves once listening; rejects (instead of crashing the process) when the port is taken. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export interface GatewayOptions {
  logger?: Logger;
  /** Token the playground pre-fills (the embedded sandbox's demo token). */
  demoToken?: string;
  /** Ids the playground's example operations use (from the embedded sandbox). */
  exampleValues?: ExampleValues;
}

/** Builds the gateway over the platform at `upstreamUrl` and starts listening. */
export async function startGateway(config: Config, upstreamUrl: string, options: GatewayOptions = {}): Promise<Gateway> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const production = config.env === 'production';
  const http = new PlatformHttp(upstreamUrl, config.upstream);
  const app = express();
  app.disable('x-powered-by');
  withoutEtags(app);
  // The listener is set once the GraphQL route exists; the drain plugin needs the server first.
  const server = createServer();
  const observability = await setupObservability({ config, http, logger });
  const readiness = new Readiness({ upstreamUrl, http, ...config.readiness });
  const hardening = await setupHardening(config, logger);

  const schema = buildSchema();
  const compiled = config.compiledExecution.enabled ? new CompiledExecution(schema, { maxEntries: config.compiledExecution.cacheSize, maxBytes: config.compiledExecution.cacheBytes, minUses: config.compiledExecution.minUses }) : undefined;
  const apollo = new ApolloServer<GatewayContext>({
    // The compiled executor keeps Apollo's pipeline and replaces only graphql-js' interpretation of each document.
    ...(compiled ? { gateway: compiledExecutionGateway(compiled, schema) } : { schema }),
    logger,
    // Refused by hardening's own rule when off, with a message naming INTROSPECTION.
    introspection: true,
    includeStacktraceInErrorResponses: config.stackTraces && !production,
    allowBatchedHttpRequests: hardening.apollo.allowBatchedHttpRequests,
    parseOptions: hardening.apollo.parseOptions,
    validationRules: hardening.apollo.validationRules,
    persistedQueries: hardening.apollo.persistedQueries,
    formatError: formatError({ production, echoChars: config.echoChars, logger }),
    // start.ts owns SIGTERM/SIGINT: Apollo's own handler would start a second stop() beside the
    // gateway's and re-raise the signal, so the gateway's drain never completed outside NODE_ENV=test.
    stopOnTerminationSignals: false,
    plugins: [
      // In-flight requests get up to SHUTDOWN_TIMEOUT_MS to finish once the listener has closed.
      ApolloServerPluginDrainHttpServer({ httpServer: server, stopGracePeriodMillis: config.shutdownTimeoutMs }),
      ApolloServerPluginLandingPageDisabled(),
      // Federation's trace for a router that asks for it; installed here so Apollo does not log that it installs it.
      inlineTraceWhenAsked(),
      // The platform's answers carry no cache hints; the default cache-control plugin would only add a hook per field.
      ApolloServerPluginCacheControlDisabled(),
      observability.plugin,
      ...hardening.apollo.plugins,
    ],
  });
  await apollo.start();

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', readiness.handler());
  observability.mount(app);
  app.use('/graphql', hardening.webClientHeaders);
  if (config.playground) {
    // Loaded only where the playground is served: production start-up does not pay for it.
    const { playgroundRouter } = await import('./playground/index.ts');
    app.use(playgroundRouter({ endpoint: '/graphql', demoToken: options.demoToken, examples: options.exampleValues }));
  }
  const graphql = graphqlHttp({
    apollo,
    context: async (req, res) => createContext({ config, http, logger }, req.headers, currentRequestId(), res),
    bodyBytes: config.limits.bodyBytes,
    // The same handlers, in the same order, as the Express route below.
    handlers: [hardening.webClientHeaders, ...hardening.trustedDocuments],
    fallback: app,
  });
  app.use(
    '/graphql',
    graphql.resume,
    ...hardening.bodyParser,
    // After body parsing: the parser's stream callbacks would not carry the scope along.
    (req, _res, next) => runWithRequestId(requestIdFrom(req.headers), next),
    ...hardening.trustedDocuments,
    expressMiddleware(apollo, { context: async ({ req, res }) => createContext({ config, http, logger }, req.headers, currentRequestId(), res) }),
  );

  app.use(hardening.errorHandler);
  server.on('request', graphql.listener);

  await listen(server, config.port, config.host);
  const { port } = server.address() as AddressInfo;
  // After listening, so start-up does not wait for the compiler; a failure leaves graphql-js answering.
  void compiled?.load().catch((error: unknown) => logger.error({ err: error }, 'graphql-jit failed to load: documents run on graphql-js'));
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  return {
    app,
    server,
    apollo,
    http,
    logger,
    url,
    async close() {
      readiness.markStopping();
      await apollo.stop();
      await hardening.close();
      await observability.close();
      http.close();
    },
  };
}
