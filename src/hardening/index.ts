import type { ApolloServerPlugin, PersistedQueryOptions } from '@apollo/server';
import type { ParseOptions, ValidationRule } from 'graphql';
import type { Logger } from 'pino';
import { ConfigError, type Config } from '../config.ts';
import { batchLimitStage } from '../http/batch-limit.ts';
import { bodyStage } from '../http/body.ts';
import type { Stage } from '../http/stage.ts';
import { webClientHeaders } from '../http/web-client-headers.ts';
import { noIntrospection } from './introspection.ts';
import { hideSuggestionsPlugin, limitValidationRules, parseOptions, queryLimitsPlugin } from './limits.ts';
import { persistedQueries } from './persisted-queries.ts';
import { loadTrustedDocuments, trustedDocumentsCheck, trustedDocumentsHandler, TrustedDocumentsError, type TrustedDocuments, type TrustedDocumentsPolicy } from './trusted-documents.ts';
import { wellFormedVariablesPlugin } from './unicode.ts';
import type { SocketRequestCheck } from '../http/websocket.ts';

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
  /** The front door's stages hardening owns; src/http/request-path.ts says where each runs. */
  stages: {
    webClientHeaders: Stage;
    body: Stage;
    /** Where batches are allowed. */
    batchLimit: Stage | undefined;
    /** Where a trusted-documents manifest is configured. */
    trustedDocuments: Stage | undefined;
  };
  /** The trusted-documents check of a subscription sent over a WebSocket (outside the stages), where a manifest is configured. */
  socketCheck: SocketRequestCheck | undefined;
  /** Releases the shared store of persisted queries, if any. */
  close(): Promise<void>;
}

export interface HardeningObservers {
  /** Counts a trusted-documents refusal by its code. */
  onTrustedDocumentRefusal?: TrustedDocumentsPolicy['onRefusal'];
}

/** The gateway's abuse limits and request hygiene, from the configuration. */
export async function setupHardening(config: Config, logger: Logger, observers: HardeningObservers = {}): Promise<Hardening> {
  const { limits } = config;
  const trusted = config.trustedDocuments && (await trustedDocuments(config.trustedDocuments.file));
  const apq = await persistedQueries({ ...config.persistedQueries, redisUrl: config.redisUrl }, logger);
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
    socketCheck: trusted
      ? (trustedDocumentsCheck(trusted, { only: config.trustedDocuments!.only, echoChars: config.echoChars, logger, onRefusal: observers.onTrustedDocumentRefusal }) as SocketRequestCheck)
      : undefined,
    stages: {
      webClientHeaders: webClientHeaders(config.cors),
      body: bodyStage(limits.bodyBytes, logger),
      batchLimit: config.allowBatchedRequests ? batchLimitStage(limits.batchSize) : undefined,
      trustedDocuments: trusted
        ? trustedDocumentsHandler(trusted, {
          only: config.trustedDocuments!.only,
          echoChars: config.echoChars,
          logger,
          onRefusal: observers.onTrustedDocumentRefusal,
        })
        : undefined,
    },
    async close() {
      await apq.close();
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
