import cluster from 'node:cluster';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { RateLimiterCluster, RateLimiterMemory, RateLimiterRedis, RateLimiterRes, RLWrapperTimeouts, type IRateLimiterOptions } from 'rate-limiter-flexible';
import { ErrorCode } from '../errors.ts';
import type { RateLimitedCaller } from '../observability/metrics.ts';
import { currentRequestId } from '../observability/request-scope.ts';
import type { NodeHandler } from './cors.ts';

/**
 * A request budget per caller, checked on the GraphQL route before Apollo (so
 * a refused request costs no parsing and no platform call).
 *
 * rate-limiter-flexible counts in fixed windows that open with a caller's first
 * request; it has no token bucket. The bucket of RATE_LIMIT_BURST tokens
 * refilled at RATE_LIMIT_PER_SECOND maps onto a window of burst ÷ rate seconds
 * holding `burst` requests: a fresh caller may send the whole burst at once,
 * and over any stretch of time averages at most the rate. Unlike a bucket,
 * the window refills all at once when it closes (a caller that spent its burst
 * waits for the window's end, which `Retry-After` gives), and a caller may
 * spend one burst at the end of a window and the next at the start of the
 * following one.
 *
 * Callers are keyed by a hash of their Authorization header, so no token is
 * kept in memory or sent to Redis; requests without one by client address.
 */
export interface RateLimitSettings {
  perSecond: number;
  burst: number;
  /** burst ÷ perSecond: at least 1 s (Redis' expiry has that granularity in rate-limiter-flexible). */
  windowSeconds: number;
  /** Longest wait for Redis per request; then the request is counted in memory. */
  storeTimeoutMs: number;
  /** Budget shared by every gateway instance; absent: each instance counts alone. */
  redisUrl: string | undefined;
}

/** What the metrics count (GatewayMetrics has both). */
export interface RateLimitObserver {
  recordRateLimited(caller: RateLimitedCaller): void;
  recordRateLimitStoreFailure(): void;
}

export interface RateLimit {
  /** First handler of the GraphQL route after the body is parsed, in the request's scope. */
  handler: NodeHandler;
  /** Disconnects from Redis, if used. */
  close(): Promise<void>;
}

const KEY_PREFIX = 'gateway-rate';
/** Hex characters of SHA-256 kept in a key: 128 bits, far beyond any collision between callers. */
const KEY_HASH_CHARS = 32;
/** At most one warning per interval while the store fails, however many requests fall back. */
const STORE_WARNING_INTERVAL_MS = 10_000;

/**
 * The library's own increment script with the window's expiry in milliseconds
 * (its script sets whole seconds, which would turn a 2.5 s window into 2 s in
 * Redis while memory keeps 2.5 s). ARGV: points to add, whole seconds, points
 * of the window, the window in seconds (fractional).
 */
const INCREMENT_SCRIPT = `local ms = math.floor(tonumber(ARGV[4]) * 1000)
redis.call('set', KEYS[1], 0, 'PX', ms, 'NX')
local consumed = redis.call('incrby', KEYS[1], ARGV[1])
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 then
  redis.call('pexpire', KEYS[1], ms)
  ttl = ms
end
return {consumed, ttl}`;

/** Who is asking: a truncated SHA-256 of the Authorization header, else the peer address. */
export function callerKey(req: IncomingMessage): { key: string; caller: RateLimitedCaller } {
  const authorization = req.headers.authorization;
  if (authorization !== undefined && authorization !== '') {
    return { key: `token:${createHash('sha256').update(authorization).digest('hex').slice(0, KEY_HASH_CHARS)}`, caller: 'token' };
  }
  return { key: `address:${req.socket.remoteAddress ?? 'unknown'}`, caller: 'address' };
}

/** Whole seconds until the caller's window reopens; never 0, which would invite an immediate retry. */
export function retryAfterSeconds(msBeforeNext: number): number {
  return Math.max(1, Math.ceil(msBeforeNext / 1000));
}

function refuse(res: ServerResponse, retryAfter: number): void {
  const requestId = currentRequestId();
  const body = JSON.stringify({
    errors: [{ message: `Too many requests from this caller: retry after ${retryAfter} s`, extensions: { code: ErrorCode.RATE_LIMITED, requestId } }],
  });
  res.statusCode = 429;
  res.setHeader('Retry-After', String(retryAfter));
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** The in-memory limiter that stands in for Redis when it fails; each use is one store failure. */
class FallbackLimiter extends RateLimiterMemory {
  readonly #onUse: () => void;

  constructor(options: IRateLimiterOptions, onUse: () => void) {
    super(options);
    this.#onUse = onUse;
  }

  override consume(key: string | number, points?: number, options?: Record<string, unknown>): Promise<RateLimiterRes> {
    this.#onUse();
    return super.consume(key, points, options);
  }
}

interface Limiter {
  consume(key: string): Promise<RateLimiterRes>;
  close(): Promise<void>;
}

/** Counts in this process's memory when the shared store fails; each use is a store failure, warned about at most every 10 s. */
function storeFallback(options: IRateLimiterOptions, logger: Logger, observer: RateLimitObserver | undefined): FallbackLimiter {
  let lastFallbackWarning = 0;
  let fallbacks = 0;
  return new FallbackLimiter(options, () => {
    observer?.recordRateLimitStoreFailure();
    fallbacks += 1;
    const now = Date.now();
    if (now - lastFallbackWarning < STORE_WARNING_INTERVAL_MS) return;
    lastFallbackWarning = now;
    logger.warn({ requests: fallbacks }, 'rate limit store unavailable: requests are counted by this instance alone');
    fallbacks = 0;
  });
}

async function redisLimiter(settings: RateLimitSettings & { redisUrl: string }, options: IRateLimiterOptions, logger: Logger, observer: RateLimitObserver | undefined): Promise<Limiter> {
  // Loaded only when configured, like the persisted-query store's client.
  const { createClient } = await import('@redis/client');
  const client = createClient({
    url: settings.redisUrl,
    // Commands fail at once while disconnected instead of queueing until Redis is back.
    disableOfflineQueue: true,
    // No request waits on a connection (rejectIfRedisNotReady below), so connecting may take longer than a check may.
    socket: { connectTimeout: Math.max(settings.storeTimeoutMs, 1_000), reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000) },
  });
  // An 'error' event without a listener would crash the process; Redis being away is a degraded mode.
  let lastClientWarning = 0;
  client.on('error', (error: unknown) => {
    const now = Date.now();
    if (now - lastClientWarning < STORE_WARNING_INTERVAL_MS) return;
    lastClientWarning = now;
    logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'rate limit store error');
  });

  const fallback = storeFallback(options, logger, observer);
  const store = new RateLimiterRedis({
    ...options,
    storeClient: client,
    useRedisPackage: true,
    // While disconnected, straight to the fallback rather than an error from the client.
    rejectIfRedisNotReady: true,
    customIncrTtlLuaScript: INCREMENT_SCRIPT,
  });
  // The insurance limiter is called once per failed or timed-out check: a Redis answer that
  // arrives after the timeout is not counted a second time in memory.
  const limiter = new RLWrapperTimeouts({ limiter: store, timeoutMs: settings.storeTimeoutMs, insuranceLimiter: fallback });

  const connecting = client.connect().then(
    () => undefined,
    (error: unknown) => logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'rate limit store: connection failed'),
  );
  // Start-up waits for Redis no longer than a request would; until it answers, requests are counted in memory.
  await Promise.race([connecting, new Promise((resolve) => setTimeout(resolve, settings.storeTimeoutMs).unref())]);
  return {
    consume: (key) => limiter.consume(key),
    async close() {
      if (client.isOpen) await client.close().catch(() => client.destroy());
      else client.destroy();
    },
  };
}

function memoryLimiter(options: IRateLimiterOptions): Limiter {
  const memory = new RateLimiterMemory(options);
  return { consume: (key) => memory.consume(key), close: async () => {} };
}

/**
 * A worker of a process group (WORKERS > 1) without Redis: the group's primary counts for every
 * worker (rate-limiter-flexible's cluster limiter, over node:cluster's IPC; the primary starts its
 * side in src/cluster.ts), so a caller has one budget per instance, not one per worker. A primary
 * that does not answer within the store timeout leaves the request to this worker's own count.
 */
function workerGroupLimiter(settings: RateLimitSettings, options: IRateLimiterOptions, logger: Logger, observer: RateLimitObserver | undefined): Limiter {
  const group = new RateLimiterCluster({ ...options, timeoutMs: settings.storeTimeoutMs });
  const alone = storeFallback(options, logger, observer);
  return {
    consume: (key) => group.consume(key).catch((outcome: unknown) => (outcome instanceof RateLimiterRes ? Promise.reject(outcome) : alone.consume(key))),
    close: async () => {},
  };
}

/** The per-caller limit, counted in memory or, with a Redis URL, shared by every instance. */
export async function rateLimit(settings: RateLimitSettings, logger: Logger, observer?: RateLimitObserver): Promise<RateLimit> {
  const options: IRateLimiterOptions = { keyPrefix: KEY_PREFIX, points: settings.burst, duration: settings.windowSeconds };
  const limiter: Limiter = settings.redisUrl
    ? await redisLimiter({ ...settings, redisUrl: settings.redisUrl }, options, logger, observer)
    : cluster.isWorker
      ? workerGroupLimiter(settings, options, logger, observer)
      : memoryLimiter(options);

  const handler: NodeHandler = (req, res, next) => {
    const { key, caller } = callerKey(req);
    limiter.consume(key).then(
      () => next(),
      (outcome: unknown) => {
        if (!(outcome instanceof RateLimiterRes)) {
          next(outcome);
          return;
        }
        observer?.recordRateLimited(caller);
        const retryAfter = retryAfterSeconds(outcome.msBeforeNext);
        logger.debug({ requestId: currentRequestId(), caller, retryAfter }, 'rate limited');
        refuse(res, retryAfter);
      },
    );
  };
  return { handler, close: () => limiter.close() };
}
