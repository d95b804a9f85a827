import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type DataLoader from 'dataloader';
import type { Logger } from 'pino';
import type { Admission, CallLedger } from './request/admission.ts';
import { admissionOf } from './request/scope.ts';
import type { TokenVerdicts } from './platform/token-verdicts.ts';
import type { Config } from './settings/config.ts';
import { CursorOwner } from './connections/owner-tag.ts';
import { pagingFactsFor, type PagingFacts } from './connections/paging-facts.ts';
import { createDocumentLoader } from './documents/loader.ts';
import type { DocumentModel } from './documents/records.ts';
import { callerToken } from './request/caller-token.ts';
import { requestSignal } from './request/deadline.ts';
import { PlatformClient } from './platform/client.ts';
import type { PolicyChain } from './platform/policy-chain.ts';
import type { SubscriptionSession } from './subscriptions/index.ts';

/**
 * Everything one GraphQL request may use. Built fresh per request; nothing in it outlives the request.
 * The request id is not in it: errors and log lines read it from the request scope (src/request/scope.ts).
 */
export interface GatewayContext {
  config: Config;
  logger: Logger;
  platform: PlatformClient;
  /** Who is asking and whose budget pays (src/budgets/); absent for a request that did not come through the GraphQL route. */
  admission?: Admission;
  /** The caller, by its token, that connection cursors are sealed for: another caller's are refused. */
  caller: CursorOwner;
  /** What this gateway instance learned about the platform's lists (page-size caps); shared by its requests. */
  paging: PagingFacts;
  loaders: {
    document: DataLoader<string, DocumentModel>;
  };
  /** A subscribing request's session (the one subscribe path sets it); absent on queries and mutations. */
  subscriptions?: SubscriptionSession;
  /**
   * The same request's context for one operation of its batch (the operations of a batch share one
   * context otherwise): its own platform client (GET cache, budget, attempts counted) and
   * loaders; the request's token, deadline, caller and MAX_PLATFORM_CALLS_PER_REQUEST.
   */
  forOperation(): GatewayContext;
}

export interface ContextDependencies {
  config: Config;
  http: PolicyChain;
  logger: Logger;
  /** What the process knows of tokens: a made-up token costs the platform at most one refused call. */
  tokens?: TokenVerdicts;
}

/**
 * The per-request client and its loaders, created together so they share the caller's token and lifetime.
 * With the HTTP `response`, a caller that closes the connection early stops the request's platform calls;
 * the request deadline (REQUEST_DEADLINE_MS) stops them in any case, and the request makes at most
 * MAX_PLATFORM_CALLS_PER_REQUEST of them. Every attempt is drawn from the request's budget, its
 * admission's (its response's request's, or the one given: a WebSocket connection's), or `budget`
 * for a context made outside an HTTP request (a subscription poll's).
 */
export function createContext(
  deps: ContextDependencies,
  headers: IncomingHttpHeaders,
  response?: ServerResponse,
  budget?: CallLedger,
  admission: Admission | undefined = admissionOf(response?.req),
): GatewayContext {
  const signal = requestSignal(deps.config.requestDeadlineMs, response);
  const platform = new PlatformClient(deps.http, headers.authorization, signal, {
    maxCalls: deps.config.platformProtection.maxCallsPerRequest,
    tokens: deps.tokens,
    caller: callerToken(headers),
    tokenKey: admission?.tokenKey,
    onTokenRefused: admission && (() => (admission.refusedByPlatform = true)),
    ledger: budget ?? admission?.budget,
  });
  if (admission !== undefined) admission.callsSent = () => platform.requestCalls.tally.sent;
  const context: GatewayContext = {
    config: deps.config,
    logger: deps.logger,
    platform,
    admission,
    caller: new CursorOwner(callerToken(headers)),
    paging: pagingFactsFor(deps.http),
    loaders: new RequestLoaders(platform, deps.config.documentLoaderConcurrency),
    forOperation: () => {
      const own = platform.forOperation();
      return { ...context, platform: own, loaders: new RequestLoaders(own, deps.config.documentLoaderConcurrency) };
    },
  };
  return context;
}

/** A subscription's context: what its subscribe resolver reads, and a context per event for the event's fields. */
export interface SubscribingContext extends GatewayContext {
  subscriptions: SubscriptionSession;
  /** The context one event's fields run with: a query's, made on first use (see `createSubscribingContext`). */
  forEvent(): GatewayContext;
}

/**
 * A subscription's context. The subscribe resolver reads only its session; an event's fields that
 * read the platform (an acceptance's `financialAccount { documentAcceptances }`) get a query's
 * context of their own, made when first read: a deadline and MAX_PLATFORM_CALLS_PER_REQUEST per
 * event, as a query has, every call drawn from `budget` (the token's). A deadline counted from the
 * subscribe would have passed by the first event, and calls outside any budget would let a
 * subscriber spend the platform per event. Until then an open subscription holds no platform
 * client, timer or loader: thousands of idle streams hold their session only.
 */
export function createSubscribingContext(
  deps: ContextDependencies,
  subscriptions: SubscriptionSession,
  budgetOf: (callerKey: string) => CallLedger | undefined,
): SubscribingContext {
  return new LazyContext(deps, subscriptions, budgetOf);
}

class LazyContext implements SubscribingContext {
  readonly #deps: ContextDependencies;
  readonly #budgetOf: (callerKey: string) => CallLedger | undefined;
  readonly subscriptions: SubscriptionSession;
  #made: GatewayContext | undefined;

  constructor(deps: ContextDependencies, subscriptions: SubscriptionSession, budgetOf: (callerKey: string) => CallLedger | undefined) {
    this.#deps = deps;
    this.subscriptions = subscriptions;
    this.#budgetOf = budgetOf;
  }

  #context(): GatewayContext {
    // A session without a token has no events (its subscribe is refused): no budget to draw from.
    const identity = this.subscriptions.identity;
    return (this.#made ??= createContext(this.#deps, { authorization: identity?.authorization }, undefined, identity && this.#budgetOf(`token:${identity.tokenKey}`)));
  }

  get config(): Config {
    return this.#deps.config;
  }

  get logger(): Logger {
    return this.#deps.logger;
  }

  get paging(): PagingFacts {
    return pagingFactsFor(this.#deps.http);
  }

  get platform(): PlatformClient {
    return this.#context().platform;
  }

  get caller(): CursorOwner {
    return this.#context().caller;
  }

  get loaders(): GatewayContext['loaders'] {
    return this.#context().loaders;
  }

  forOperation(): GatewayContext {
    return this.#context().forOperation();
  }

  forEvent(): GatewayContext {
    return new LazyContext(this.#deps, this.subscriptions, this.#budgetOf);
  }
}

/** A request's loaders, each built on first use: most operations touch none of them (a loader and its limiter per request otherwise). */
class RequestLoaders {
  readonly #platform: PlatformClient;
  readonly #concurrency: number;
  #document: DataLoader<string, DocumentModel> | undefined;

  constructor(platform: PlatformClient, concurrency: number) {
    this.#platform = platform;
    this.#concurrency = concurrency;
  }

  get document(): DataLoader<string, DocumentModel> {
    return (this.#document ??= createDocumentLoader(this.#platform, this.#concurrency));
  }
}
