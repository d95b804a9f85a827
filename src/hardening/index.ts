import type { ApolloServerPlugin, PersistedQueryOptions } from '@apollo/server';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { ParseOptions, ValidationRule } from 'graphql';
import type { Logger } from 'pino';
import { ConfigError, type Config } from '../config.ts';
import { webClientHeaders, type NodeHandler } from './cors.ts';
import { graphqlBodyParser, httpErrorHandler } from './http.ts';
import { noIntrospection } from './introspection.ts';
import { hideSuggestionsPlugin, limitValidationRules, parseOptions, queryLimitsPlugin } from './limits.ts';
import { persistedQueries } from './persisted-queries.ts';
import { rateLimit, type RateLimitObserver } from './rate-limit.ts';
import { loadTrustedDocuments, trustedDocumentsHandler, TrustedDocumentsError, type TrustedDocuments } from './trusted-documents.ts';
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
  /** Body parsing for the GraphQL route, in place of a bare express.json(). */
  bodyParser: RequestHandler[];
  /**
   * After body parsing, in the request's scope, before everything else that looks at the request:
   * the per-caller budget (HTTP 429 `RATE_LIMITED` over it); empty when RATE_LIMIT_PER_SECOND is unset.
   */
  rateLimit: NodeHandler[];
  /** After body parsing: ids of trusted documents swapped for their text (and, in `only` mode, anything else refused). */
  trustedDocuments: NodeHandler[];
  /** CORS and `Cache-Control: no-store`, first on the GraphQL route (plain Node handler). */
  webClientHeaders: NodeHandler;
  /** Mount last on the app: JSON errors without internals for anything that fails outside Apollo. */
  errorHandler: ErrorRequestHandler;
  /** Releases the shared stores (persisted queries, rate limit), if any. */
  close(): Promise<void>;
}

/** The gateway's abuse limits and request hygiene, from the configuration. */
export async function setupHardening(config: Config, logger: Logger, observer?: RateLimitObserver): Promise<Hardening> {
  const { limits } = config;
  const http = { bodyBytes: limits.bodyBytes, allowBatchedRequests: config.allowBatchedRequests, maxBatchSize: limits.batchSize };
  const trusted = config.trustedDocuments && (await trustedDocuments(config.trustedDocuments.file));
  const apq = await persistedQueries({ ...config.persistedQueries, redisUrl: config.redisUrl }, logger);
  const limit = config.rateLimit && (await rateLimit({ ...config.rateLimit, redisUrl: config.redisUrl }, logger, observer));
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
    webClientHeaders: webClientHeaders(config.cors),
    bodyParser: graphqlBodyParser(http),
    rateLimit: limit ? [limit.handler] : [],
    trustedDocuments: trusted ? [trustedDocumentsHandler(trusted, config.trustedDocuments!.only)] : [],
    errorHandler: httpErrorHandler(http, logger),
    async close() {
      await Promise.all([apq.close(), limit?.close()]);
    },
  };
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
