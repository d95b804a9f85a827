import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import type { GraphQLSchema, ValidationRule } from 'graphql';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { Logger } from 'pino';
import { answerPrimaryDocuments, startAdminListener, type AdminListener } from './process/admin.ts';
import type { Config } from './settings/config.ts';
import { useCursorSecret } from './connections/cursor-seal.ts';
import { createContext, createSubscribingContext, type GatewayContext } from './context.ts';
import { CompiledExecution, compiledExecutionGateway } from './execution/compiled-executor.ts';
import { useErrorShaping } from './errors.ts';
import { formatError } from './format-error.ts';
import { setupBudgets } from './budgets/index.ts';
import { setupHardening } from './hardening/index.ts';
import { Readiness } from './observability/health.ts';
import { frontDoor } from './http/front-door.ts';
import { graphqlStage } from './http/graphql.ts';
import { playgroundStage } from './http/playground.ts';
import { requestPath, type RequestPathStages } from './http/request-path.ts';
import { operatorRoutesStage } from './http/routes.ts';
import { createLogger } from './logger.ts';
import { setupObservability, type ObservabilityParts } from './observability/index.ts';
import { PolicyChain } from './platform/policy-chain.ts';
import type { Policy } from './platform/policy.ts';
import type { Stage } from './http/stage.ts';
import type { ExampleValues } from './playground/index.ts';
import { buildSchema } from './schema/schema.ts';
import { admissionOf } from './request/scope.ts';
import { multipartStream } from './http/multipart.ts';
import { sseStream } from './http/sse.ts';
import { OperationStream, Streams, type Execution } from './http/subscribe.ts';
import type { StreamContext } from './http/graphql.ts';
import { webSocketTransport } from './http/websocket.ts';
import { execute as interpret } from 'graphql';
import { feedShare, SUBSCRIBER_QUEUE_LIMIT, SubscriptionHub, subscriptionSession } from './subscriptions/index.ts';
import { sharedStore } from './shared-state/store.ts';

export interface Gateway {
  server: Server;
  apollo: ApolloServer<GatewayContext>;
  http: PolicyChain;
  logger: Logger;
  /** Base URL once listening, e.g. http://127.0.0.1:4000 */
  url: string;
  /** The admin listener's base URL (health, readiness, metrics), e.g. http://127.0.0.1:9090; undefined with ADMIN_PORT=off, or when the group's primary serves it. */
  adminUrl: string | undefined;
  /** This gateway's readiness (/readyz), also asked by the group's primary when it serves the admin port. */
  readiness: Readiness;
  close(): Promise<void>;
}

/** Interval at which Node checks HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS (its default, 30 s, would let a request outlive a small bound by that much). */
const TIMEOUT_CHECK_MS = 1_000;

/** Connections refused at MAX_CONNECTIONS are logged at most this often, with how many were refused since. */
const DROP_LOG_INTERVAL_MS = 10_000;

/**
 * The HTTP server with the bounds on client connections: headers within HEADERS_TIMEOUT_MS, the
 * whole request (body included) within REQUEST_TIMEOUT_MS, else Node answers 408 and closes the
 * connection; at MAX_CONNECTIONS open connections, a new one is closed as it is accepted.
 */
function boundedServer(config: Config, logger: Logger): Server {
  const { headersTimeoutMs, requestTimeoutMs, maxConnections } = config.connections;
  const server = createServer({
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, headersTimeoutMs),
  });
  server.maxConnections = maxConnections;
  let dropped = 0;
  let loggedAt = 0;
  server.on('drop', () => {
    dropped += 1;
    const now = Date.now();
    if (now - loggedAt < DROP_LOG_INTERVAL_MS) return;
    logger.warn({ dropped, maxConnections }, 'connections refused: MAX_CONNECTIONS open');
    loggedAt = now;
    dropped = 0;
  });
  return server;
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
  /** The playground's built bundle; playground/dist/ when absent (the browser test serves one it built from the current source). */
  playgroundDistDir?: string;
  /** A worker of a group whose primary serves the admin port (src/process/cluster.ts): no admin listener here, and /metrics stays off the public port in production as with one. */
  adminOnPrimary?: boolean;
  /** Wraps the gateway's parts as it composes them (the cost harness, bench/feature-cost.ts); never set by `npm start`. */
  parts?: GatewayParts;
}

/**
 * Wrappers of the gateway's parts as it composes them, for a caller measuring what each part costs
 * (the cost harness, bench/feature-cost.ts, which turns features off and on through them): each gets
 * the part as built and returns what the gateway uses instead. `npm start` passes none, and nothing
 * is wrapped.
 */
export interface GatewayParts {
  /** The platform-call policies, in order (src/platform/policies/index.ts). */
  policies?(defaults: Policy[]): Policy[];
  /** The front door's stages (src/http/request-path.ts), before they are put in order. */
  stages?(stages: RequestPathStages): RequestPathStages;
  /** The server's request listener, given the front door (src/http/front-door.ts) and the stages in order it runs. */
  listener?(frontDoor: RequestListener, stages: readonly Stage[]): RequestListener;
  /** The static limits' validation rules (src/hardening/). */
  validationRules?(rules: ValidationRule[]): ValidationRule[];
  /** The static limits' Apollo plugins (src/hardening/). */
  hardeningPlugins?(plugins: ApolloServerPlugin[]): ApolloServerPlugin[];
  /** What observes requests and platform calls (src/observability/). */
  observability?: ObservabilityParts;
  /** Compiled execution (src/execution/), where COMPILED_EXECUTION is on. */
  execution?(compiled: CompiledExecution, schema: GraphQLSchema): Pick<CompiledExecution, 'execute'>;
}

/** Builds the gateway over the platform at `upstreamUrl` and starts listening. */
export async function startGateway(config: Config, upstreamUrl: string, options: GatewayOptions = {}): Promise<Gateway> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const production = config.env === 'production';
  // Without a secret, cursors keep the key this process drew at start-up.
  if (config.paging.cursorSecret !== undefined) useCursorSecret(config.paging.cursorSecret, config.paging.cursorSecretPrevious);
  // Refusals (of the HTTP request, of a budget) are shaped by the same rules as GraphQL errors.
  useErrorShaping({ production, echoChars: config.echoChars });
  const { parts } = options;
  const http = new PolicyChain(upstreamUrl, config.upstream, config.platformProtection, undefined, parts?.policies && { policies: parts.policies });
  // The listener is set once the GraphQL stage exists; the drain plugin needs the server first.
  const server = boundedServer(config, logger);
  const observability = await setupObservability({ config, http, logger, parts: parts?.observability });
  const readiness = new Readiness({ upstreamUrl, http, ...config.readiness });
  const hardening = await setupHardening(config, logger, { onTrustedDocumentRefusal: (code) => observability.metrics?.recordTrustedDocumentRefusal(code) });
  const budgets = await setupBudgets(config, logger, observability.metrics);

  const schema = buildSchema();
  // The admin listener's /trusted-documents routes, validated against this schema (ADMIN_TOKEN).
  const documents = hardening.documentsAdmin?.(schema);
  const stopAnsweringPrimary = options.adminOnPrimary ? answerPrimaryDocuments(documents, logger) : undefined;
  const errorShaper = formatError({ production, echoChars: config.echoChars, logger });
  const costPlugin: ApolloServerPlugin<GatewayContext> = budgets.plugin(schema);
  const compiled = config.compiledExecution.enabled
    ? new CompiledExecution(schema, { maxEntries: config.compiledExecution.cacheSize, maxBytes: config.compiledExecution.cacheBytes, minUses: config.compiledExecution.minUses, compilesPerMinute: config.compiledExecution.compilesPerMinute }, (error) => {
      if (error === undefined) logger.debug('graphql-jit loaded: documents run compiled from their COMPILED_QUERY_MIN_USES-th use');
      else logger.error({ err: error }, 'graphql-jit failed to load: documents run on graphql-js');
    })
    : undefined;
  // Without compiled execution, graphql-js runs each document as Apollo Server would run it itself.
  const interpreted: Execution = { execute: ({ document, operationName, variables, contextValue }) => interpret({ schema, document, operationName, variableValues: variables, contextValue }) };
  // Every operation, whatever its transport, takes Apollo Server's one path; the executor opens a streaming request's subscription.
  const streams = new Streams({ schema, formatError: errorShaper });
  const execution = streams.executor(compiled ? (parts?.execution?.(compiled, schema) ?? compiled) : interpreted);
  const apollo = new ApolloServer<GatewayContext>({
    // The executor keeps Apollo's pipeline and replaces only graphql-js' interpretation of each document (compiled where it is on).
    gateway: compiledExecutionGateway(execution, schema),
    logger,
    // Refused by hardening's own rule when off, with a message naming INTROSPECTION.
    introspection: true,
    includeStacktraceInErrorResponses: config.stackTraces && !production,
    allowBatchedHttpRequests: hardening.apollo.allowBatchedHttpRequests,
    parseOptions: hardening.apollo.parseOptions,
    validationRules: parts?.validationRules?.(hardening.apollo.validationRules) ?? hardening.apollo.validationRules,
    persistedQueries: hardening.apollo.persistedQueries,
    formatError: errorShaper,
    // start.ts owns SIGTERM/SIGINT: Apollo's own handler would start a second stop() beside the
    // gateway's and re-raise the signal, ending the process before the gateway's drain.
    stopOnTerminationSignals: false,
    plugins: [
      // In-flight requests get up to SHUTDOWN_TIMEOUT_MS to finish once the listener has closed.
      ApolloServerPluginDrainHttpServer({ httpServer: server, stopGracePeriodMillis: config.shutdownTimeoutMs }),
      ApolloServerPluginLandingPageDisabled(),
      // The platform's answers carry no cache hints; the default cache-control plugin would only add a hook per field.
      ApolloServerPluginCacheControlDisabled(),
      // Logs, metrics, spans, and federation's trace for a router that asks for it (so Apollo installs no trace plugin of its own).
      observability.plugin,
      ...(parts?.hardeningPlugins?.(hardening.apollo.plugins) ?? hardening.apollo.plugins),
      // After the static limits: a document they refuse is neither estimated nor charged.
      costPlugin,
    ],
  });
  await apollo.start();

  // With the admin listener, production scrapes go there only: /metrics on the public port costs
  // CPU per scrape and shows operation names to anyone who can reach it. Outside production it
  // stays on both, for a developer's curl. Health and readiness stay on both in every mode.
  const adminOn = config.admin.port !== 'off';
  const contextDependencies = { config, http, logger, tokens: budgets.tokens };
  // Subscriptions: shared pollers whose every poll is a platform client of the caller's token made
  // as a query's (createContext: token gate, breaker, retries) drawing from the caller's budget.
  const subscriptions = new SubscriptionHub({
    limits: { ...config.subscriptions, queueLimit: SUBSCRIBER_QUEUE_LIMIT },
    client: (identity) => {
      return createContext(contextDependencies, { authorization: identity.authorization }, undefined, budgets.pollLedger(`token:${identity.tokenKey}`)).platform;
    },
    logger,
    observer: observability.metrics?.subscriptions,
    // With the Redis the replicas share, one poller per feed across them all; else across the workers of this instance.
    share: await feedShare(sharedStore(config.redisUrl), logger, config.subscriptions.storeTimeoutMs),
  });
  // A streaming request's context: a query's (its admission, budget, deadline), with its subscription session, carrying its stream.
  const streamContext: StreamContext<GatewayContext> = (req, headers, transport, res) => {
    const admission = admissionOf(req);
    const session = subscriptionSession(subscriptions, headers.authorization, transport, admission);
    const context = createContext(contextDependencies, headers, res, undefined, admission);
    context.subscriptions = session;
    // A WebSocket's upgrade is a GET, its operations are not.
    const stream = new OperationStream(transport === 'ws' ? 'POST' : (req.method ?? 'POST'), createSubscribingContext(contextDependencies, session, budgets.pollLedger), res);
    return { context: stream.carriedBy(context), stream };
  };
  const built: RequestPathStages = {
    operatorRoutes: operatorRoutesStage({ readiness, scrape: production && adminOn ? undefined : observability.scrape }),
    playground: config.playground ? await playgroundStage({ endpoint: '/graphql', demoToken: options.demoToken, examples: options.exampleValues, distDir: options.playgroundDistDir }) : undefined,
    ...hardening.stages,
    admission: budgets.admission,
    graphql: graphqlStage({ apollo, context: async (req, res) => createContext(contextDependencies, req.headers, res), streams: { sse: sseStream(), multipart: multipartStream(), context: streamContext } }),
  };
  const stages = requestPath(parts?.stages?.(built) ?? built);
  const sockets = webSocketTransport(server, {
    apollo,
    schema,
    context: streamContext,
    maxPayload: config.limits.bodyBytes,
    admit: budgets.admitCaller,
    check: hardening.socketCheck,
    formatError: errorShaper,
  });
  const listener = frontDoor(stages, logger);
  server.on('request', parts?.listener?.(listener, stages) ?? listener);

  await listen(server, config.port, config.host);
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  let admin: AdminListener | undefined;
  if (config.admin.port !== 'off' && !options.adminOnPrimary) {
    try {
      admin = await startAdminListener({ host: config.admin.host, port: config.admin.port, readiness, scrape: observability.scrape, logger, stalledAfterMs: config.scaling.heartbeatTimeoutMs, adminToken: config.admin.token, documents });
    } catch (error) {
      server.close();
      throw error;
    }
  }
  return {
    server,
    apollo,
    http,
    logger,
    url,
    adminUrl: admin?.url,
    readiness,
    async close() {
      readiness.markStopping();
      // Every stream completes first (SSE `complete`, the multipart closing boundary, WebSocket 1001), so the drain below finds none open.
      const sharing = subscriptions.close();
      await sockets.close();
      await apollo.stop();
      await sharing;
      stopAnsweringPrimary?.();
      await Promise.all([hardening.close(), budgets.close()]);
      await observability.close();
      http.close();
      // Last: probes read 503 from /readyz for the whole drain, and metrics stay scrapable until the end.
      await admin?.close();
    },
  };
}
