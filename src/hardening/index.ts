import type { ApolloServerPlugin, PersistedQueryOptions } from '@apollo/server';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { ParseOptions, ValidationRule } from 'graphql';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { graphqlBodyParser, httpErrorHandler } from './http.ts';
import { hideSuggestionsPlugin, limitValidationRules, parseOptions, queryLimitsPlugin } from './limits.ts';
import { persistedQueries } from './persisted-queries.ts';
import { wellFormedVariablesPlugin } from './unicode.ts';

export { LIMIT_VARIABLES, REPRESENTATIONS_LIMIT_VARIABLE, type PageSizes, type QueryLimits } from './limits.ts';
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
  /** Mount last on the app: JSON errors without internals for anything that fails outside Apollo. */
  errorHandler: ErrorRequestHandler;
  /** Releases the shared persisted-query store, if any. */
  close(): Promise<void>;
}

/** The gateway's abuse limits and request hygiene, from the configuration. */
export async function setupHardening(config: Config, logger: Logger): Promise<Hardening> {
  const { limits } = config;
  const http = { bodyBytes: limits.bodyBytes, allowBatchedRequests: config.allowBatchedRequests, maxBatchSize: limits.batchSize };
  const apq = await persistedQueries({ ...config.persistedQueries, redisUrl: config.redisUrl }, logger);
  const plugins: ApolloServerPlugin[] = [wellFormedVariablesPlugin(), queryLimitsPlugin(limits, config.paging, config.maxEntityRepresentations)];
  if (!config.fieldSuggestions) plugins.push(hideSuggestionsPlugin());
  return {
    apollo: {
      parseOptions: parseOptions(limits),
      validationRules: limitValidationRules(limits),
      plugins,
      persistedQueries: apq.option,
      allowBatchedHttpRequests: config.allowBatchedRequests,
    },
    bodyParser: graphqlBodyParser(http),
    errorHandler: httpErrorHandler(http, logger),
    close: () => apq.close(),
  };
}
