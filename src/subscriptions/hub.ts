import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { CursorOwner } from '../connections/owner-tag.ts';
import { ErrorCode } from '../errors.ts';
import { queryString, type PlatformClient, type Query } from '../platform/client.ts';
import { pathSegment } from '../platform/client.ts';
import { canonicalAuthorization, parseCaller } from '../request/caller-token.ts';
import { REAL_CLOCK, type PollClock } from './clock.ts';
import { feedBinding, openFeedCursor } from './feed-cursor.ts';
import type { ListFeed, RecordFeed } from './feeds.ts';
import type { Admission } from '../request/admission.ts';
import { SubscriberMemory } from './memory.ts';
import { ListPoller, RecordPoller, type Poller, type PollerHost, type PollIdentity } from './poller.ts';
import { ALONE, SeatCounts, type FeedShare, type Seat, type SeatRefusal } from './share.ts';
import { Subscriber, type FeedEvent } from './subscriber.ts';
import { PollTurns } from './turns.ts';

/** The transports a subscription arrives by (labels of the metrics and log lines). */
export type Transport = 'sse' | 'multipart' | 'ws';

interface SubscriptionLimits {
  /** SUBSCRIPTION_POLL_MS. */
  pollMs: number;
  /** SUBSCRIPTIONS_PER_TOKEN. */
  perToken: number;
  /** MAX_SUBSCRIPTIONS. */
  max: number;
  /** Events waiting for one subscriber before it is dropped. */
  queueLimit: number;
  /** SUBSCRIPTION_BUFFER_BYTES: what every subscriber's queue and stream buffer hold together, at most. */
  bufferBytes: number;
}

/** Events queued for a subscriber that does not read, past which it is dropped. */
export const SUBSCRIBER_QUEUE_LIMIT = 1_000;

/** What the operators' metrics count (src/observability/metrics.ts implements it). */
export interface SubscriptionObserver {
  subscriptionOpened(transport: Transport): void;
  subscriptionClosed(transport: Transport): void;
  pollersChanged(count: number): void;
  /** A poll made here (`ok`, `skipped`, `failed`), or the outcome of one another replica made (`received`). */
  polled(outcome: 'ok' | 'skipped' | 'failed' | 'received'): void;
  eventsQueued(count: number): void;
  /** A subscriber was dropped: it fell SUBSCRIBER_QUEUE events behind, or held most when SUBSCRIPTION_BUFFER_BYTES was spent. */
  subscriberDropped?(): void;
  /** A poll of `field` read `count` records whose time cannot be read (they are not sent). */
  recordTimesUnreadable?(field: string, count: number): void;
}

export interface SubscriptionHubOptions {
  limits: SubscriptionLimits;
  /** A platform client for one poll of `identity`, on the path of a query's calls (server.ts builds it). */
  client(identity: PollIdentity): PlatformClient;
  logger: Logger;
  clock?: PollClock;
  observer?: SubscriptionObserver;
  /** With several replicas sharing Redis, one poller per feed across them all (redis-share.ts); alone by default. */
  share?: FeedShare;
}

/** One subscribing request: the hub, who asks (undefined without a bearer token) and by which transport. */
export interface SubscriptionSession {
  readonly hub: SubscriptionHub;
  readonly identity: PollIdentity | undefined;
  readonly transport: Transport;
  /**
   * The subscribing request's admission (a WebSocket connection's, for each of its subscriptions),
   * told when the platform refused the session's token, and, while its token waits on its first
   * answer, of every poll made for it (`polls`): it keeps the address's refused-token unit spent when
   * one reached the platform, as a query's does, even when the client has left by then.
   */
  readonly admission?: Admission;
}

/** The session of a request with this Authorization header. */
export function subscriptionSession(hub: SubscriptionHub, authorization: string | undefined, transport: Transport, admission?: Admission): SubscriptionSession {
  const caller = parseCaller(authorization);
  const identity = caller.token === undefined || caller.key === undefined
    ? undefined
    : { authorization: canonicalAuthorization(caller.token), tokenKey: caller.key, caller: new CursorOwner(caller) };
  return { hub, identity, transport, admission };
}

function refused(limit: SeatRefusal, limits: SubscriptionLimits): GraphQLError {
  const message = limit === 'MAX_SUBSCRIPTIONS'
    ? `This gateway has ${limits.max} subscriptions open, as many as it serves: retry later`
    : `This token has ${limits.perToken} subscriptions open, as many as one token may: close one before opening another`;
  return new GraphQLError(message, { extensions: { code: ErrorCode.RATE_LIMITED, limit } });
}

/**
 * Every subscription of the process, and the pollers they share: one per token, field and
 * normalised arguments (the platform query the feed reads), created by the first subscriber and
 * stopped by the last (poller.ts). Counts the open subscriptions per token and in all, and refuses
 * past SUBSCRIPTIONS_PER_TOKEN and MAX_SUBSCRIPTIONS before anything is polled. Logs one line when
 * a subscription starts and one when it ends, none per event.
 */
export class SubscriptionHub {
  readonly #options: SubscriptionHubOptions;
  readonly #clock: PollClock;
  readonly #pollers = new Map<string, Poller>();
  readonly #counts = new SeatCounts();
  /** Every open subscriber, with the session it came in. */
  readonly #open = new Map<Subscriber, SubscriptionSession>();
  readonly #host: PollerHost;
  readonly #share: FeedShare;
  /** The stop of each running poller's reception of the other replicas' outcomes. */
  readonly #listening = new Map<Poller, () => void>();
  readonly #memory: SubscriberMemory;
  #closing = false;

  constructor(options: SubscriptionHubOptions) {
    this.#options = options;
    this.#memory = new SubscriberMemory(options.limits.bufferBytes, () => options.observer?.subscriberDropped?.());
    this.#clock = options.clock ?? REAL_CLOCK;
    const observer = options.observer;
    this.#share = options.share ?? ALONE;
    this.#host = {
      share: this.#share,
      turns: new PollTurns(),
      clock: this.#clock,
      pollMs: options.limits.pollMs,
      client: options.client,
      tokenRefused: (tokenKey, error) => this.#tokenRefused(tokenKey, error),
      stopped: (poller) => {
        this.#listening.get(poller)?.();
        this.#listening.delete(poller);
        if (this.#pollers.get(poller.key) === poller) this.#pollers.delete(poller.key);
        observer?.pollersChanged(this.#pollers.size);
      },
      polled: (outcome, events) => {
        observer?.polled(outcome);
        if (events > 0) observer?.eventsQueued(events);
      },
      unreadableTimes: (field, count, sample, first) => {
        observer?.recordTimesUnreadable?.(field, count);
        // The platform's text, cut short: a date-time is short, anything longer is not one.
        if (first) options.logger.warn({ field, time: sample.slice(0, 64), count }, 'subscriptions: this feed read records whose time is not a date-time the contract allows; they are not sent, and subscription_record_times_unreadable_total counts them');
      },
      overflow: () => {
        observer?.subscriberDropped?.();
        return new GraphQLError(`This subscriber fell more than ${options.limits.queueLimit} events behind and was dropped; subscribe again with the last cursor received`, {
          extensions: { code: ErrorCode.RATE_LIMITED, limit: 'SUBSCRIBER_QUEUE' },
        });
      },
    };
  }

  /** Open subscriptions, every token together. */
  get open(): number {
    return this.#open.size;
  }

  /** Pollers running. */
  get pollers(): number {
    return this.#pollers.size;
  }

  /** The poller of this key, for tests that drive a manual clock. */
  poller(key: string): Poller | undefined {
    return this.#pollers.get(key);
  }

  /**
   * With a shared store (the worker group's primary, or the replicas' Redis), a seat counted across
   * every process on it for one more subscription of the session's token, or the refusal of the limit
   * it is over; undefined alone, or when the store does not answer in time (this process's own counts
   * then decide alone). Taken before `openList` or `openRecord`, which release it when they refuse.
   */
  async seat(session: SubscriptionSession): Promise<Seat | undefined> {
    const seats = this.#share.seats;
    if (seats === undefined) return undefined;
    const identity = this.#identity(session);
    const { limits } = this.#options;
    // This process's own count first: what it refuses needs no store.
    this.#ownLimits(identity);
    const seat = await seats.take(identity.tokenKey, limits);
    if (typeof seat === 'string') throw refused(seat, limits);
    return seat;
  }

  /** A feed over a list: refuses bad arguments, a foreign cursor and a caller over its limits before any platform call. */
  openList<R extends { readonly id: string }>(session: SubscriptionSession, feed: ListFeed<R>, query: Query, after: string | null | undefined, seat?: Seat): Subscriber {
    const identity = this.#identity(session);
    const normalised = queryString(query);
    const binding = feedBinding(feed.field, normalised);
    const position = after == null ? undefined : openFeedCursor(after, binding, identity.caller);
    const key = `${identity.tokenKey}\0${feed.field}\0${normalised}`;
    const joined: { poller?: Poller } = {};
    const subscriber = this.#admit(session, identity, feed.field, joined, seat);
    let poller = this.#pollers.get(key) as ListPoller<R> | undefined;
    const created = poller === undefined;
    poller ??= new ListPoller(key, identity, this.#host, feed, query, binding);
    joined.poller = poller;
    this.#watch(session, poller, subscriber);
    poller.join(subscriber, position);
    if (created) this.#run(poller);
    return subscriber;
  }

  /** A feed over one record (by its id, checked before any platform call). */
  openRecord<R, V>(session: SubscriptionSession, feed: RecordFeed<R, V>, id: string, seat?: Seat): Subscriber {
    const identity = this.#identity(session);
    pathSegment(id);
    const key = `${identity.tokenKey}\0${feed.field}\0${id}`;
    const joined: { poller?: Poller } = {};
    const subscriber = this.#admit(session, identity, feed.field, joined, seat);
    let poller = this.#pollers.get(key) as RecordPoller<R> | undefined;
    const created = poller === undefined;
    poller ??= new RecordPoller(key, identity, this.#host, feed, id);
    joined.poller = poller;
    this.#watch(session, poller, subscriber);
    poller.join(subscriber);
    if (created) this.#run(poller);
    return subscriber;
  }

  /**
   * Ends every subscription (graceful stop): each stream completes at once, no poller runs afterwards
   * and their leases go to the other replicas; resolves once the shared store is closed.
   */
  close(): Promise<void> {
    this.#closing = true;
    for (const subscriber of [...this.#open.keys()]) subscriber.end();
    for (const poller of [...this.#pollers.values()]) poller.stop();
    return this.#share.close();
  }

  #identity(session: SubscriptionSession): PollIdentity {
    if (session.identity === undefined) {
      throw new GraphQLError('Send the platform access token as "Authorization: Bearer <token>" (graphql-ws: in connectionParams)', { extensions: { code: ErrorCode.UNAUTHENTICATED } });
    }
    if (this.#closing) throw new GraphQLError('The gateway is stopping: subscribe again, elsewhere, with the last cursor received', { extensions: { code: ErrorCode.UPSTREAM_BUSY } });
    return session.identity;
  }

  /** Refuses a subscription over this process's own counts. */
  #ownLimits(identity: PollIdentity): void {
    const { limits } = this.#options;
    const refusal = this.#counts.refusal(identity.tokenKey, limits);
    if (refusal !== undefined) throw refused(refusal, limits);
  }

  /** Counts a new subscriber in (with its shared `seat`, released when it ends), or refuses it; `joined` names the poller it leaves when it ends. */
  #admit(session: SubscriptionSession, identity: PollIdentity, field: string, joined: { poller?: Poller }, seat: Seat | undefined): Subscriber {
    const { limits, logger, observer } = this.#options;
    this.#ownLimits(identity);
    this.#counts.add(identity.tokenKey);
    const startedAt = this.#clock.now();
    const subscriber = new Subscriber(limits.queueLimit, () => {
      seat?.release();
      this.#open.delete(subscriber);
      this.#counts.remove(identity.tokenKey);
      joined.poller?.leave(subscriber);
      observer?.subscriptionClosed(session.transport);
      logger.info({ field, transport: session.transport, durationMs: this.#clock.now() - startedAt, open: this.#open.size }, 'subscription ended');
    }, this.#memory);
    this.#open.set(subscriber, session);
    observer?.subscriptionOpened(session.transport);
    logger.info({ field, transport: session.transport, open: this.#open.size }, 'subscription started');
    return subscriber;
  }

  /** A subscribing request whose token waits on its first answer has its polls counted (its admission's `polls`). */
  #watch(session: SubscriptionSession, poller: Poller, subscriber: Subscriber): void {
    const polls = session.admission?.polls;
    if (polls !== undefined) poller.watch(subscriber, polls);
  }

  #run(poller: Poller): void {
    this.#pollers.set(poller.key, poller);
    this.#listening.set(poller, this.#share.listen(poller.key, (outcome) => poller.receive(outcome)));
    this.#options.observer?.pollersChanged(this.#pollers.size);
    poller.start();
  }

  /** `error` is the platform's UNAUTHENTICATED, ending every subscription of the token. */
  #tokenRefused(tokenKey: string, error: GraphQLError): void {
    for (const session of this.#open.values()) if (session.identity?.tokenKey === tokenKey && session.admission) session.admission.refusedByPlatform = true;
    for (const poller of [...this.#pollers.values()]) if (poller.identity.tokenKey === tokenKey) poller.endAll(error);
  }
}

/** The refusal of a subscription sent where no stream can carry it (a plain JSON request, which Apollo Server executes like a query). */
export function noStreamError(): GraphQLError {
  return new GraphQLError('Subscriptions need a streaming transport: GraphQL over SSE (Accept: text/event-stream), multipart HTTP (Accept: multipart/mixed;subscriptionSpec="1.0") or graphql-ws', {
    extensions: { code: ErrorCode.BAD_REQUEST },
  });
}

/** What a Subscription field resolves each event to: its value, or its error (no event at all: it ran as a query). */
export function resolveEvent(event: FeedEvent | undefined): unknown {
  if (event === undefined || event === null) throw noStreamError();
  if ('error' in event) throw event.error;
  return event.value;
}
