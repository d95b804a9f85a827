import type { PersistedQueryOptions } from '@apollo/server';
import { ApolloServerErrorCode } from '@apollo/server/errors';
import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { ErrorCode } from '../errors.ts';
import { withTimeout } from '../shared-state/timeout.ts';

type Cache = NonNullable<PersistedQueryOptions['cache']>;

export interface PersistedQuerySettings {
  enabled: boolean;
  /** Seconds a registered query is kept; 0 keeps it until the store evicts it. */
  ttlSeconds: number;
  /** Shared store for several gateway instances; absent means Apollo's bounded in-memory cache per instance. */
  redisUrl: string | undefined;
  /** Longest wait for the shared store per operation before it counts as a miss. */
  storeTimeoutMs: number;
}

export interface PersistedQueries {
  /** The `persistedQueries` option of ApolloServer. */
  option: PersistedQueryOptions | false;
  /** Disconnects from the shared store, if any. */
  close(): Promise<void>;
}

/**
 * Apollo Server refuses these two client mistakes of the APQ protocol with
 * HTTP 400 but no `extensions.code`, which reads as an internal error. Keyed
 * by Apollo's own messages (pinned by a test).
 */
const APQ_REFUSALS: ReadonlyMap<string, string> = new Map<string, string>([
  ['provided sha does not match query', ErrorCode.PERSISTED_QUERY_HASH_MISMATCH],
  ['Unsupported persisted query version', ApolloServerErrorCode.BAD_REQUEST],
]);

/** The client error code of an APQ refusal Apollo Server left without one; undefined for any other error. */
export function persistedQueryRefusalCode(error: unknown): string | undefined {
  if (!(error instanceof GraphQLError) || error.extensions.code !== undefined || error.path !== undefined) return undefined;
  return APQ_REFUSALS.get(error.message);
}

/**
 * A persisted-query store that cannot fail a request: Apollo awaits `get`
 * unguarded, so a store error or a store that stopped answering would turn
 * every hashed request into a 500 or a hang. Here it is a miss instead, and
 * the client falls back to sending the full query (the APQ protocol's normal
 * path); a failed `set` only costs the next request a round trip.
 */
export function tolerantCache(inner: Cache, logger: Logger, timeoutMs: number): Cache {
  const warn = (operation: string) => (error: unknown) => {
    logger.warn({ operation, err: error instanceof Error ? error.message : String(error) }, 'persisted query store failed');
  };
  return {
    async get(key) {
      return withTimeout(inner.get(key), timeoutMs).catch((error: unknown) => {
        warn('get')(error);
        return undefined;
      });
    },
    async set(key, value, options) {
      await withTimeout(inner.set(key, value, options), timeoutMs).catch(warn('set'));
    },
    async delete(key) {
      return withTimeout(Promise.resolve(inner.delete(key)), timeoutMs).catch((error: unknown) => {
        warn('delete')(error);
        return false;
      });
    },
  };
}

/**
 * Automatic persisted queries: clients send a query's SHA-256 instead of its
 * text once it is registered. In memory by default; with a Redis URL, every
 * gateway instance shares the registrations.
 */
export async function persistedQueries(settings: PersistedQuerySettings, logger: Logger): Promise<PersistedQueries> {
  if (!settings.enabled) return { option: false, close: async () => {} };
  const ttl = settings.ttlSeconds === 0 ? null : settings.ttlSeconds;
  if (!settings.redisUrl) return { option: { ttl }, close: async () => {} };

  // Loaded only when configured: the Redis client is a sizeable part of start-up otherwise.
  const [{ KeyvAdapter }, { createKeyv, defaultReconnectStrategy }] = await Promise.all([import('@apollo/utils.keyvadapter'), import('@keyv/redis')]);

  // node-redis' own options: commands fail at once while disconnected instead of queueing until the
  // store is back; reconnection as the keyv store does it when given a URL.
  const connection = { url: settings.redisUrl, disableOfflineQueue: true, socket: { reconnectStrategy: defaultReconnectStrategy } };
  const keyv = createKeyv(connection, {
    namespace: 'gateway-apq',
    throwOnConnectError: false,
    throwOnErrors: true,
    connectionTimeout: settings.storeTimeoutMs,
  });
  // An 'error' event without a listener would crash the process; Redis being away is a degraded mode, not a crash.
  keyv.on('error', (error: unknown) => logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'persisted query store error'));
  // KeyvAdapter is typed against keyv's CommonJS build, @keyv/redis against its ESM build; it only calls get/set/delete, which both have.
  const adapter = new KeyvAdapter(keyv as unknown as ConstructorParameters<typeof KeyvAdapter<string>>[0], { disableBatchReads: true });
  const cache = tolerantCache(adapter, logger, settings.storeTimeoutMs);
  return {
    option: { cache, ttl },
    async close() {
      await keyv.disconnect().catch(() => undefined);
    },
  };
}
