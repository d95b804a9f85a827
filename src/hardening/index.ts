import type { ApolloServerPlugin, PersistedQueryOptions } from '@apollo/server';
import type { GraphQLSchema, ParseOptions, ValidationRule } from 'graphql';
import type { Logger } from 'pino';
import { ConfigError, type Config } from '../settings/config.ts';
import { batchLimitStage } from '../http/batch-limit.ts';
import { bodyStage } from '../http/body.ts';
import type { Stage } from '../http/stage.ts';
import { webClientHeaders } from '../http/web-client-headers.ts';
import { noIntrospection } from './introspection.ts';
import { hideSuggestionsPlugin, limitValidationRules, parseOptions, queryLimitsPlugin } from './limits.ts';
import { persistedQueries } from './persisted-queries.ts';
import { documentsAdmin, documentStore, PublishedDocuments, servePublished, type DocumentsAnswer, type DocumentsRequest } from './published-documents.ts';
import { eitherDocuments, loadTrustedDocuments, trustedDocumentsCheck, trustedDocumentsHandler, TrustedDocumentsError, type TrustedDocuments, type TrustedDocumentsPolicy } from './trusted-documents.ts';
import { wellFormedVariablesPlugin } from './unicode.ts';
import type { SocketRequestCheck } from '../http/websocket.ts';

export { tolerantCache } from './persisted-queries.ts';
export type { DocumentsAnswer, DocumentsRequest } from './published-documents.ts';

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
  /**
   * The admin listener's /trusted-documents routes on this loop, given the schema documents are
   * validated against; undefined without ADMIN_TOKEN (documents are then neither published nor served).
   */
  documentsAdmin: ((schema: GraphQLSchema) => (request: DocumentsRequest) => Promise<DocumentsAnswer>) | undefined;
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
  const file = config.trustedDocuments && (await trustedDocuments(config.trustedDocuments.file));
  // Published documents are served wherever ADMIN_TOKEN is set, from the store every replica reads.
  const published = config.publishedDocuments && new PublishedDocuments(logger);
  const store = published && (await documentStore(config.redisUrl, logger));
  if (published && store) servePublished(store, published);
  const trusted = published ? eitherDocuments(file, published) : file;
  const only = config.trustedDocuments?.only ?? config.publishedDocuments?.only ?? false;
  const validationRules = [...(config.introspection ? [] : [noIntrospection]), ...limitValidationRules(limits)];
  const apq = await persistedQueries({ ...config.persistedQueries, redisUrl: config.redisUrl }, logger);
  const plugins: ApolloServerPlugin[] = [wellFormedVariablesPlugin(), queryLimitsPlugin(limits, config.paging, config.maxEntityRepresentations)];
  if (!config.fieldSuggestions) plugins.push(hideSuggestionsPlugin());
  return {
    apollo: {
      parseOptions: parseOptions(limits),
      validationRules,
      plugins,
      persistedQueries: apq.option,
      allowBatchedHttpRequests: config.allowBatchedRequests,
    },
    socketCheck: trusted
      ? (trustedDocumentsCheck(trusted, { only, echoChars: config.echoChars, logger, onRefusal: observers.onTrustedDocumentRefusal }) as SocketRequestCheck)
      : undefined,
    stages: {
      webClientHeaders: webClientHeaders(config.cors),
      body: bodyStage(limits.bodyBytes, logger),
      batchLimit: config.allowBatchedRequests ? batchLimitStage(limits.batchSize) : undefined,
      trustedDocuments: trusted
        ? trustedDocumentsHandler(trusted, {
          only,
          echoChars: config.echoChars,
          logger,
          onRefusal: observers.onTrustedDocumentRefusal,
        })
        : undefined,
    },
    documentsAdmin: published && store
      ? (schema) => documentsAdmin({ store, file, schema, parseOptions: parseOptions(limits), validationRules, logger })
      : undefined,
    async close() {
      await Promise.all([apq.close(), store?.close()]);
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
