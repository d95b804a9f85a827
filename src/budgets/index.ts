import type { ServerResponse } from 'node:http';
import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { Config } from '../settings/config.ts';
import { ErrorCode } from '../errors.ts';
import { refuse } from '../http/refusal.ts';
import type { Stage } from '../http/stage.ts';
import type { AdmissionRefusal, AdmitCaller, Admission, Connection, PollWatch } from '../request/admission.ts';
import { admit, currentRequestId } from '../request/scope.ts';
import { MAX_BUCKETS, MemoryBuckets, type BucketPolicy, type BucketState, type BucketStore } from './bucket.ts';
import { callerToken, canonicalAuthorization } from '../request/caller-token.ts';
import { addressUnit, clientAddress } from '../request/client-address.ts';
import { CallEstimator } from './estimate.ts';
import { RequestBudget, secondsToWait } from './ledger.ts';
import { CALLS_POLICY_NAME, costPlugin, type BudgetContext, type BudgetObserver } from './plugin.ts';
import { RedisBuckets } from './redis-buckets.ts';
import { TokenVerdicts } from '../platform/token-verdicts.ts';
import type { CallLedger } from '../platform/request-calls.ts';
import { WorkerGroupBuckets } from './worker-group.ts';
import { sharedStore } from '../shared-state/store.ts';

/**
 * Traffic control between many clients and one platform, counted in what the platform feels: calls.
 *
 * - **Admission** (first on the GraphQL route, before the body is read): the caller is its bearer
 *   token however the header spells it (forwarded as `Bearer <token>`), else its client address. A
 *   token the platform has not accepted yet spends one unit of its address's refused-token limit
 *   (AUTH_FAILURE_LIMIT_*), given back unless the platform refuses it: past that limit such requests
 *   get 429 with no platform call, while accepted tokens from the same address go on.
 * - **Budget** (with RATE_LIMIT_PER_SECOND, an Apollo plugin: plugin.ts): before an operation runs,
 *   its platform calls are estimated from the document (estimate.ts) and reserved from the caller's
 *   bucket in one atomic take; an operation the bucket cannot pay now gets 429 RATE_LIMITED and
 *   `Retry-After`, one that needs more than the whole bucket gets 400 COST_EXCEEDS_BURST; neither
 *   makes a platform call. While it runs, every attempt sent to the platform draws from the
 *   reservation, and past it from the bucket when it goes (ledger.ts); one the bucket cannot pay is
 *   not sent. At the end the unspent reservation goes back (an operation is charged at least 1).
 *   Its answers show the bucket in `extensions.cost.throttleStatus` and the RateLimit headers.
 * - **Cost** (always, the same plugin): every operation's answer shows its estimate and the attempts
 *   the platform received for it in `extensions.cost`, with or without a budget.
 *
 * A call joined to another request's identical read in flight (same token: see PolicyChain) draws
 * nothing: the platform received one call, paid by the request that sent it.
 */

export interface Budgets {
  /** First handler of the GraphQL route: `admitCaller` for an HTTP request, its refusal answered 429. */
  admission: Stage;
  /** The admission itself, for a transport without an HTTP answer (a WebSocket connection). */
  admitCaller: AdmitCaller;
  /** Every operation's cost in `extensions.cost`, and the calls budget when RATE_LIMIT_PER_SECOND is set. */
  plugin(schema: GraphQLSchema): ApolloServerPlugin<BudgetContext>;
  /** What the process knows of tokens; the per-request platform client consults it. */
  tokens: TokenVerdicts;
  /**
   * The budget one subscription poll of `callerKey` draws from, given to its client when made,
   * attempt by attempt, with nothing reserved: each attempt takes one unit of the caller's bucket as it goes, and one the bucket cannot
   * pay is not sent (RATE_LIMITED). Undefined without a budget (RATE_LIMIT_PER_SECOND unset).
   */
  pollLedger(callerKey: string): CallLedger | undefined;
  close(): Promise<void>;
}

async function bucketStore(config: Config, logger: Logger, observer: BudgetObserver | undefined): Promise<BucketStore> {
  const memory = new MemoryBuckets(MAX_BUCKETS);
  const { redisUrl, timeoutMs } = config.budgetStore;
  const store = sharedStore(redisUrl);
  if (store.kind === 'redis') {
    const redis = await RedisBuckets.connect({ url: store.url, timeoutMs }, memory, logger, { recordStoreFailure: () => observer?.recordRateLimitStoreFailure() });
    const policy = await redis.evictionPolicy();
    if (policy !== undefined && policy !== 'noeviction') {
      logger.warn({ policy }, 'the budgets\' Redis (RATE_LIMIT_REDIS_URL) may evict keys: a spent budget could be forgotten; set maxmemory-policy noeviction');
    }
    return redis;
  }
  if (store.kind === 'primary') return new WorkerGroupBuckets(memory, timeoutMs, () => observer?.recordRateLimitStoreFailure());
  return memory;
}

export async function setupBudgets(config: Config, logger: Logger, observer?: BudgetObserver): Promise<Budgets> {
  if (config.rateLimit !== undefined && config.redisUrl !== undefined && config.budgetStore.redisUrl === undefined) {
    // An operator who set REDIS_URL likely runs several instances and expects the budgets shared too.
    logger.warn('budgets are counted per instance: REDIS_URL is set but RATE_LIMIT_REDIS_URL is not; set RATE_LIMIT_REDIS_URL (a Redis of its own, noeviction) to share them between instances');
  }
  const store = await bucketStore(config, logger, observer);
  const tokens = new TokenVerdicts();
  const addressOf = clientAddress(config.trustedProxies);
  const failures: BucketPolicy = { name: 'auth-failures', perSecond: config.authFailures.perMinute / 60, burst: config.authFailures.burst };

  // Unknown tokens with a request in flight that was admitted on its address's unit: the same token's
  // other requests meanwhile spend none (its calls wait on one probe, so together they cost one refused call).
  const unknownInFlight = new Map<string, number>();
  // Unknown tokens whose first request's take is pending: the same token's later requests wait for
  // its verdict, and are refused with it.
  const pendingTakes = new Map<string, Promise<BucketState>>();
  const track = (key: string, connection: Connection) => {
    // A client that hung up while the verdict was pending has no request in flight.
    if (connection.closed) return;
    unknownInFlight.set(key, (unknownInFlight.get(key) ?? 0) + 1);
    connection.once('close', () => {
      const left = (unknownInFlight.get(key) ?? 1) - 1;
      if (left > 0) unknownInFlight.set(key, left);
      else unknownInFlight.delete(key);
    });
  };
  const refusal = (state: BucketState): AdmissionRefusal => {
    observer?.recordRateLimited('auth-failures');
    const retryAfter = secondsToWait(state.retryAfterMs);
    logger.debug({ requestId: currentRequestId(), retryAfter }, 'refused: too many tokens the platform has not accepted from this address');
    return {
      status: 429,
      retryAfter,
      message: `Too many requests with tokens the platform has not accepted from this address: retry after ${retryAfter} s`,
      extensions: { code: ErrorCode.RATE_LIMITED, limit: 'AUTH_FAILURE_LIMIT_PER_MINUTE' },
    };
  };

  const limit = config.rateLimit;
  const callsPolicy: BucketPolicy | undefined = limit && { name: CALLS_POLICY_NAME, perSecond: limit.perSecond, burst: limit.burst };
  const onDraw = observer?.recordBudgetDraw && (() => observer.recordBudgetDraw!());

  const admitCaller: AdmitCaller = (req, connection) => {
    const caller = callerToken(req.headers);
    const token = caller.token;
    const key = caller.key;
    // Every later reader (context, platform client, shared reads) sees the one canonical spelling.
    if (token !== undefined) req.headers.authorization = canonicalAuthorization(token);
    // The client's address is read only where it counts: a request without a token, or with one the platform has not accepted yet.
    const callerKey = key === undefined ? `address:${addressUnit(addressOf(req))}` : `token:${key}`;
    const admitted: Admission = {
      callerKey,
      caller: key === undefined ? 'address' : 'token',
      tokenKey: key,
      refusedByPlatform: false,
      // The request's budget, made once here: its platform client holds it from the start.
      budget: callsPolicy && new RequestBudget(store, callsPolicy, callerKey, onDraw),
    };
    admit(req, admitted);
    if (key === undefined || tokens.verdict(key) !== 'unknown') return undefined;
    if (unknownInFlight.has(key)) {
      track(key, connection);
      return undefined;
    }
    const waiting = pendingTakes.get(key);
    if (waiting !== undefined) {
      return waiting.then((state) => {
        if (!state.allowed) return refusal(state);
        track(key, connection);
        return undefined;
      });
    }
    const address = addressUnit(addressOf(req));
    const taking = store.take(failures, address, 1);
    pendingTakes.set(key, taking);
    const settled = () => void pendingTakes.delete(key);
    taking.then(settled, settled);
    return taking.then((state) => {
      if (!state.allowed) return refusal(state);
      track(key, connection);
      // A subscription's polls outlast its answer: the unit is decided once the last started has been answered.
      const polls: PollWatch = { pending: new Set(), sent: 0 };
      admitted.polls = polls;
      // The unit comes back only when the platform accepted the token or no call was sent: a client
      // hanging up before the platform's answer keeps it spent, so hanging up buys no more made-up tokens.
      const giveBack = (): void => {
        if (polls.pending.size > 0) {
          void Promise.all(polls.pending).then(giveBack);
          return;
        }
        const sent = (admitted.callsSent?.() ?? 0) + polls.sent;
        if (!admitted.refusedByPlatform && (sent === 0 || tokens.verdict(key) === 'accepted')) void store.adjust(failures, address, -1);
      };
      if (connection.closed) giveBack();
      else connection.once('close', giveBack);
      return undefined;
    });
  };

  const answer = (res: ServerResponse, refused: AdmissionRefusal) => {
    res.setHeader('Retry-After', String(refused.retryAfter));
    refuse(res, refused.status, refused.message, refused.extensions);
  };
  const admission: Stage = (req, res, next) => {
    const verdict = admitCaller(req, res);
    if (verdict === undefined) return next();
    verdict.then((refused) => (refused === undefined ? next() : answer(res, refused)), next);
  };

  const plugin = (schema: GraphQLSchema): ApolloServerPlugin<BudgetContext> => {
    const estimator = new CallEstimator(schema, { defaultSize: config.paging.defaultSize, maxSize: config.paging.maxSize, upstreamPageSize: config.upstream.maxPageSize });
    return costPlugin(estimator, callsPolicy && { policy: callsPolicy, logger, observer });
  };

  const pollLedger = (callerKey: string) => callsPolicy && new RequestBudget(store, callsPolicy, callerKey, onDraw);

  return { admission, admitCaller, plugin, tokens, pollLedger, close: () => store.close() };
}

export { secondsToWait } from './ledger.ts';
export type { BudgetObserver } from './plugin.ts';
