import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import express from 'express';
import type { GraphQLFormattedError } from 'graphql';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { createContext, type GatewayContext } from './context.ts';
import { ErrorCode } from './errors.ts';
import { setupHardening } from './hardening/index.ts';
import { Readiness } from './health.ts';
import { createLogger } from './logger.ts';
import { setupObservability } from './observability/index.ts';
import { PlatformHttp } from './platform/http.ts';
import { playgroundRouter, type ExampleValues } from './playground/index.ts';
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

const PUBLIC_CODES = new Set<string>([...Object.values(ErrorCode), ...['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_REQUEST', 'PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_SUPPORTED', 'OPERATION_RESOLUTION_FAILURE']]);

/**
 * In production an unexpected error's message may reveal internals: keep the
 * code (and request id, added by the plugin below), hide the text.
 */
export function formatError(production: boolean) {
  return (formatted: GraphQLFormattedError): GraphQLFormattedError => {
    const code = String(formatted.extensions?.code ?? ErrorCode.INTERNAL_SERVER_ERROR);
    if (production && !PUBLIC_CODES.has(code)) {
      return { message: 'Internal server error', locations: formatted.locations, path: formatted.path, extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } };
    }
    if (production && code === ErrorCode.INTERNAL_SERVER_ERROR) {
      return { ...formatted, message: 'Internal server error', extensions: { code } };
    }
    return formatted.extensions?.code ? formatted : { ...formatted, extensions: { ...formatted.extensions, code } };
  };
}

/** Every error carries the request id, so a client report can be matched with the logs. */
const requestIdPlugin: ApolloServerPlugin<GatewayContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response, contextValue }) {
        if (response.body.kind !== 'single' || !response.body.singleResult.errors) return;
        response.body.singleResult.errors = response.body.singleResult.errors.map((error) => ({
          ...error,
          extensions: { ...error.extensions, requestId: contextValue.requestId },
        }));
      },
    };
  },
};

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
  const server = createServer(app);
  const observability = await setupObservability({ config, http, logger });
  const readiness = new Readiness({ upstreamUrl, http, ...config.readiness });
  const hardening = await setupHardening(config, logger);

  const apollo = new ApolloServer<GatewayContext>({
    schema: buildSchema(),
    logger,
    introspection: config.introspection,
    includeStacktraceInErrorResponses: !production,
    allowBatchedHttpRequests: hardening.apollo.allowBatchedHttpRequests,
    parseOptions: hardening.apollo.parseOptions,
    validationRules: hardening.apollo.validationRules,
    persistedQueries: hardening.apollo.persistedQueries,
    formatError: formatError(production),
    plugins: [
      // In-flight requests get up to SHUTDOWN_TIMEOUT_MS to finish once the listener has closed.
      ApolloServerPluginDrainHttpServer({ httpServer: server, stopGracePeriodMillis: config.shutdownTimeoutMs }),
      ApolloServerPluginLandingPageDisabled(),
      // The platform's answers carry no cache hints; the default cache-control plugin would only add a hook per field.
      ApolloServerPluginCacheControlDisabled(),
      requestIdPlugin,
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
  if (config.playground) {
    app.use(playgroundRouter({ endpoint: '/graphql', demoToken: options.demoToken, examples: options.exampleValues }));
  }
  app.use(
    '/graphql',
    ...hardening.bodyParser,
    expressMiddleware(apollo, { context: async ({ req, res }) => createContext({ config, http, logger }, req.headers, undefined, res) }),
  );

  app.use(hardening.errorHandler);

  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const { port } = server.address() as AddressInfo;
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
