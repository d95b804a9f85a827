import type { ApolloServerPlugin, PersistedQueryOptions } from '@apollo/server';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { ParseOptions, ValidationRule } from 'graphql';
import type { Logger } from 'pino';
import { setupBudgets, type BudgetObserver, type Budgets } from '../budgets/index.ts';
import { ConfigError, type Config } from '../config.ts';
import { webClientHeaders, type NodeHandler } from './cors.ts';
import { batchLimit, graphqlBodyReader, httpErrorHandler, notFoundHandler, playgroundOff } from './http.ts';
import { noIntrospection } from './introspection.ts';
import { hideSuggestionsPlugin, limitValidationRules, parseOptions, queryLimitsPlugin } from './limits.ts';
import { persistedQueries } from './persisted-queries.ts';
import { loadTrustedDocuments, trustedDocumentsHandler, TrustedDocumentsError, type TrustedDocuments, type TrustedDocumentsPolicy } from './trusted-documents.ts';
import { wellFormedVariablesPlugin } from './unicode.ts';

export { tolerantCache } from './persisted-queries.ts';

export interface Hardening {
  /** Spread into the ApolloServer options. */
  apollo: {
    parseOptions: ParseOptions;
    validationRules: ValidationRule[];
    plugins: ApolloServerPlugin[];
    persistedQueries: PersistedQueryOptions | false;
    allowBatchedHttpRequests: boolean;
  };
  /**
   * Every handler a request to /graphql goes through before Apollo Server, in order (see
   * `graphqlChain`). The GraphQL endpoint (src/graphql-http.ts) runs this list and nothing else,
   * however the request arrives: POST or GET, plain, compressed or batched.
   */
  graphqlChain: NodeHandler[];
  /** Mount after every route: a JSON 404 for any other path. */
  notFound: RequestHandler;
  /** Mount last on the app: JSON errors without internals for anything that fails outside Apollo. */
  errorHandler: ErrorRequestHandler;
  /** Caller admission, the calls budget and what is known of tokens (src/budgets/). */
  budgets: Budgets;
  /** Releases the shared stores (persisted queries, budgets), if any. */
  close(): Promise<void>;
}

export interface HardeningObservers {
  /** Counts a trusted-documents refusal by its code. */
  onTrustedDocumentRefusal?: TrustedDocumentsPolicy['onRefusal'];
  /** Counts the budgets' refusals and their shared store's failures. */
  rateLimit?: BudgetObserver;
}

/** The gateway's abuse limits and request hygiene, from the configuration. */
export async function setupHardening(config: Config, logger: Logger, observers: HardeningObservers = {}): Promise<Hardening> {
  const { limits } = config;
  const http = { bodyBytes: limits.bodyBytes, allowBatchedRequests: config.allowBatchedRequests, maxBatchSize: limits.batchSize };
  const trusted = config.trustedDocuments && (await trustedDocuments(config.trustedDocuments.file));
  const apq = await persistedQueries({ ...config.persistedQueries, redisUrl: config.redisUrl }, logger);
  const budgets = await setupBudgets(config, logger, observers.rateLimit);
  const plugins: ApolloServerPlugin[] = [wellFormedVariablesPlugin(), queryLimitsPlugin(limits, config.paging, config.maxEntityRepresentations)];
  if (!config.fieldSuggestions) plugins.push(hideSuggestionsPlugin());
  return {
    apollo: {
      parseOptions: parseOptions(limits),
      validationRules: [...(config.introspection ? [] : [noIntrospection]), ...limitValidationRules(limits)],
      plugins,
      persistedQueries: apq.option,
      allowBatchedHttpRequests: config.allowBatchedRequests,
    },
    graphqlChain: graphqlChain([
      // CORS and `Cache-Control: no-store` first, so every answer below carries them; a preflight ends here.
      webClientHeaders(config.cors),
      // A browser opening the endpoint where the playground is not served gets a page saying so.
      !config.playground && playgroundOff,
      // Who is asking (one token however it is spelled, else the client address); too many refused tokens from one address: 429 before the body is read.
      budgets.admission,
      // `req.body`: plain JSON, compressed, in another UTF charset, or none (GET); refusals of the body go to the error handler.
      graphqlBodyReader(http),
      config.allowBatchedRequests && batchLimit(http),
      // Ids of trusted documents swapped for their text (and, in `only` mode, anything else refused).
      trusted &&
        trustedDocumentsHandler(trusted, {
          only: config.trustedDocuments!.only,
          echoChars: config.echoChars,
          logger,
          onRefusal: observers.onTrustedDocumentRefusal,
        }),
    ]),
    notFound: notFoundHandler(),
    errorHandler: httpErrorHandler(http, logger),
    budgets,
    async close() {
      await Promise.all([apq.close(), budgets.close()]);
    },
  };
}

/**
 * The ordered chain of /graphql handlers, the one place it is listed (above).
 * Each is a node-style `(req, res, next)` handler: it may answer the request
 * itself (and not call `next`), call `next()` to pass it on, or `next(error)`
 * to have the app's error handler answer. An entry that is not a function is a
 * handler the configuration leaves out.
 */
function graphqlChain(handlers: Array<NodeHandler | false | undefined>): NodeHandler[] {
  return handlers.filter((handler): handler is NodeHandler => typeof handler === 'function');
}

/** A manifest that cannot be used stops start-up like a bad variable does. */
async function trustedDocuments(file: string): Promise<TrustedDocuments> {
  try {
    return await loadTrustedDocuments(file);
  } catch (error) {
    if (error instanceof TrustedDocumentsError) throw new ConfigError(`Invalid configuration:\n  ${error.message}`);
    throw error;
  }
}
