import { HeaderMap, type ApolloServerPlugin, type GraphQLRequestListener, type GraphQLResponse } from '@apollo/server';
import type { Logger } from 'pino';
import { errorEntry, ErrorCode } from '../errors.ts';
import type { RateLimitedCaller } from '../observability/metrics.ts';
import type { RequestCalls } from '../platform/request-calls.ts';
import { currentRequestId } from '../request/scope.ts';
import type { BucketPolicy, BucketState } from './bucket.ts';
import type { CallEstimator, ListPageSizes } from './estimate.ts';
import { RequestBudget, secondsToWait } from './ledger.ts';

export interface BudgetObserver {
  recordRateLimited(caller: RateLimitedCaller): void;
  recordRateLimitStoreFailure(): void;
  /** One platform attempt paid from a caller's budget (a query's or a subscription poll's). */
  recordBudgetDraw?(): void;
}

/** The draft whose fields the answers carry: draft-ietf-httpapi-ratelimit-headers-09 (structured fields, a named policy). */
export const CALLS_POLICY_NAME = 'platform-calls';

/** What the plugin reads of the request context (GatewayContext has it all). */
export interface BudgetContext {
  admission?: { readonly callerKey: string; readonly caller: 'token' | 'address' };
  platform: { readonly requestCalls: RequestCalls };
  /** What the gateway learned of the platform's lists: each connection is priced at the page size it plans with. */
  paging?: ListPageSizes;
  /** The same request's context for one operation of its batch: its own platform client and loaders. */
  forOperation?(): BudgetContext;
}

/** `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers-09): quota, window to refill it, what is left, seconds until full. */
function rateLimitHeaders(policy: BucketPolicy, state: BucketState): Record<string, string> {
  const window = Math.max(1, Math.ceil(policy.burst / policy.perSecond));
  return {
    'RateLimit-Policy': `"${CALLS_POLICY_NAME}";q=${policy.burst};w=${window}`,
    RateLimit: `"${CALLS_POLICY_NAME}";r=${state.available};t=${Math.ceil(state.fullInMs / 1000)}`,
  };
}

/** `extensions.cost` in the shape Shopify's clients read, in platform calls. */
function costExtension(policy: BucketPolicy, requested: number, actual: number | null, state: BucketState) {
  return {
    requestedQueryCost: requested,
    actualQueryCost: actual,
    throttleStatus: { maximumAvailable: policy.burst, currentlyAvailable: state.available, restoreRate: policy.perSecond },
  };
}

/** A response refusing the operation before it runs: its errors are written here, as no formatter sees them. */
function refusedResponse(status: number, headers: Record<string, string>, message: string, extensions: Record<string, unknown>, cost: ReturnType<typeof costExtension>): GraphQLResponse {
  const head = new HeaderMap();
  for (const [name, value] of Object.entries(headers)) head.set(name.toLowerCase(), value);
  return {
    http: { status, headers: head },
    body: { kind: 'single', singleResult: { errors: [errorEntry(message, extensions)], extensions: { cost } } },
  };
}

/** The calls budget of every caller, when one is set (RATE_LIMIT_PER_SECOND); each request's own is its admission's (RequestBudget). */
interface CallsBudget {
  policy: BucketPolicy;
  logger: Logger;
  observer: BudgetObserver | undefined;
}

/**
 * What each operation costs the platform, on every answer, in `extensions.cost`: `requestedQueryCost`
 * (its estimate, in platform calls) and `actualQueryCost` (the attempts the platform received for
 * it, retries included), so a client developer sees what a query costs from the first `npm start`.
 * Each operation of a batch runs on its own view of the request (its own platform client), so each
 * answer counts its own calls. A document refused before it runs (parse, validation, the static
 * limits) made no call and was not estimated: its answer carries no cost.
 *
 * With a budget, the estimate is reserved from the caller's bucket before the operation runs, in
 * one atomic take (refused whole: 400 COST_EXCEEDS_BURST past the burst, 429 RATE_LIMITED when the
 * bucket holds less now), on the request's budget its platform calls draw from, attempt by attempt
 * (RequestBudget, made at admission). At the end the unspent reservation goes back, and the answer adds
 * `throttleStatus` and the RateLimit headers. Without one, the calls are counted as they are sent
 * anyway (policies/bucket-draw.ts), so the cost costs an estimate per operation and nothing per call.
 */
export function costPlugin(estimator: CallEstimator, budget: CallsBudget | undefined): ApolloServerPlugin<BudgetContext> {
  return {
    async requestDidStart(): Promise<GraphQLRequestListener<BudgetContext>> {
      let requested = 0;
      let reserved: BucketState | undefined;
      let ledger: RequestBudget | undefined;
      let calls: RequestCalls | undefined;
      return {
        async responseForOperation(requestContext) {
          const { document, operation, request, queryHash } = requestContext;
          // No operation to run (an operationName the document does not hold): execution refuses it before any call.
          if (operation === undefined) return null;
          // The operations of a batch share one context: each runs on a view of its own, so its calls are its own (and draw from its own budget).
          if (requestContext.requestIsBatched && requestContext.contextValue.forOperation) {
            (requestContext as { contextValue: BudgetContext }).contextValue = requestContext.contextValue.forOperation();
          }
          const contextValue = requestContext.contextValue;
          const own = contextValue.platform.requestCalls;
          const estimate = estimator.estimateSent(queryHash, document, operation, request.variables ?? {}, contextValue.paging);
          const admission = contextValue.admission;
          // The request's budget, made at admission when a budget is set: the one object reserved, drawn from and refunded.
          const budgeted = budget !== undefined && admission !== undefined && own.ledger instanceof RequestBudget ? own.ledger : undefined;
          if (budgeted !== undefined) {
            const { policy, logger, observer } = budget!;
            // An operation is never free: a caller could otherwise spin the gateway on documents that reach no platform call.
            requested = Math.max(1, estimate);
            if (requested > policy.burst) {
              // Nothing is taken: the bucket is read back for the answer by reserving nothing.
              const now = await budgeted.reserve(0);
              return refusedResponse(
                400,
                rateLimitHeaders(policy, now),
                `Query needs about ${requested} platform calls, more than a caller's whole budget of ${policy.burst}: ask for fewer rows or fields`,
                { code: ErrorCode.COST_EXCEEDS_BURST, limit: 'RATE_LIMIT_BURST', max: policy.burst },
                costExtension(policy, requested, null, now),
              );
            }
            reserved = await budgeted.reserve(requested);
            if (!reserved.allowed) {
              observer?.recordRateLimited(admission!.caller);
              const retryAfter = secondsToWait(reserved.retryAfterMs);
              logger.debug({ requestId: currentRequestId(), caller: admission!.caller, requested, retryAfter }, 'rate limited');
              return refusedResponse(
                429,
                { 'Retry-After': String(retryAfter), ...rateLimitHeaders(policy, reserved) },
                `Too many platform calls from this caller: this query needs about ${requested}, ${reserved.available} are left; retry after ${retryAfter} s`,
                { code: ErrorCode.RATE_LIMITED, retryAfter },
                costExtension(policy, requested, null, reserved),
              );
            }
            ledger = budgeted;
          } else {
            requested = estimate;
          }
          // Only an operation that runs gets its cost counted over a refusal's.
          calls = own;
          return null;
        },
        async willSendResponse({ response }) {
          if (calls === undefined) return;
          // A request that learned a page-size cap planned calls its estimate could not know of: priced when planned.
          const priced = requested + calls.replanned;
          let cost: Record<string, unknown> = { requestedQueryCost: priced, actualQueryCost: calls.sent };
          if (ledger !== undefined && reserved !== undefined) {
            const { policy } = budget!;
            const state = (await ledger.close()) ?? reserved;
            for (const [name, value] of Object.entries(rateLimitHeaders(policy, state))) response.http.headers.set(name.toLowerCase(), value);
            cost = costExtension(policy, priced, calls.sent, state);
          }
          if (response.body.kind === 'single') {
            const result = response.body.singleResult;
            result.extensions = { ...result.extensions, cost };
          }
        },
      };
    },
  };
}
