import type { ApolloServerPlugin, PersistedQueryOptions } from '@apollo/server';
import type { ParseOptions, ValidationRule } from 'graphql';
import type { Logger } from 'pino';
import { setupBudgets, type BudgetObserver, type Budgets } from '../budgets/index.ts';
import { ConfigError, type Config } from '../config.ts';
import { batchLimitStage } from '../http/batch-limit.ts';
import { bodyStage } from '../http/body.ts';
import { playgroundOffStage } from '../http/playground.ts';
import type { Stage } from '../http/stage.ts';
import { webClientHeaders } from '../http/web-client-headers.ts';
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
   * The stages (src/http/) a request to /graphql goes through before the GraphQL handler, in order
   * (see `graphqlChain`); the front door (src/server.ts) runs them for every request to the
   * endpoint, however it arrives: POST or GET, plain, compressed or batched.
   */
  graphqlChain: Stage[];
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
      !config.playground && playgroundOffStage,
      // Who is asking (one token however it is spelled, else the client address); too many refused tokens from one address: 429 before the body is read.
      budgets.admission,
      // `req.body`: plain JSON, compressed, in another UTF charset, or none (GET); a body that cannot be read is refused there.
      bodyStage(limits.bodyBytes, logger),
      config.allowBatchedRequests && batchLimitStage(limits.batchSize),
      // Ids of trusted documents swapped for their text (and, in `only` mode, anything else refused).
      trusted &&
        trustedDocumentsHandler(trusted, {
          only: config.trustedDocuments!.only,
          echoChars: config.echoChars,
          logger,
          onRefusal: observers.onTrustedDocumentRefusal,
        }),
    ]),
    budgets,
    async close() {
      await Promise.all([apq.close(), budgets.close()]);
    },
  };
}

/**
 * The ordered stages of /graphql before the GraphQL handler, the one place they are listed (above).
 * Each answers the request itself or passes it on (src/http/stage.ts). An entry that is not a
 * function is a stage the configuration leaves out.
 */
function graphqlChain(stages: Array<Stage | false | undefined>): Stage[] {
  return stages.filter((stage): stage is Stage => typeof stage === 'function');
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
