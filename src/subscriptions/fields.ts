import type { Query } from '../platform/client.ts';
import type { ListFeed, RecordFeed } from './feeds.ts';
import { noStreamError, resolveEvent, type SubscriptionSession } from './hub.ts';
import type { Seat } from './share.ts';
import type { FeedEvent, Subscriber } from './subscriber.ts';

/** What a Subscription field reads of the context: the subscribing request's session (set by the one subscribe path). */
interface SubscribingContext {
  subscriptions?: SubscriptionSession;
}

function sessionOf(context: SubscribingContext): SubscriptionSession {
  // Apollo Server's plain HTTP path has no transport for a stream.
  if (context.subscriptions === undefined) throw noStreamError();
  return context.subscriptions;
}

/** Opens a subscription with a seat counted in the shared store (the hub's `seat`), given back when the open refuses. */
async function seated(session: SubscriptionSession, open: (seat: Seat | undefined) => Subscriber): Promise<Subscriber> {
  const seat = await session.hub.seat(session);
  try {
    return open(seat);
  } catch (error) {
    seat?.release();
    throw error;
  }
}

/**
 * A Subscription field over a list feed: the area gives the feed and how its arguments make the
 * platform query (which validates them, before any platform call).
 */
export function listFeedField<R extends { readonly id: string }, A extends { after?: string | null }>(feed: ListFeed<R>, query: (args: A) => Query) {
  return {
    subscribe: (_parent: unknown, args: A, context: SubscribingContext): Promise<AsyncIterableIterator<FeedEvent>> => {
      const session = sessionOf(context);
      // Bad arguments are refused before a seat is asked for.
      const platformQuery = query(args);
      return seated(session, (seat) => session.hub.openList(session, feed, platformQuery, args.after, seat));
    },
    // The list poller's values are the edges of the feed's records.
    resolve: resolveEvent as (event: FeedEvent) => { cursor: string; node: R },
  };
}

/** A Subscription field over one record, by its id. */
export function recordFeedField<R, V>(feed: RecordFeed<R, V>) {
  return {
    subscribe: (_parent: unknown, args: { id: string }, context: SubscribingContext): Promise<AsyncIterableIterator<FeedEvent>> => {
      const session = sessionOf(context);
      return seated(session, (seat) => session.hub.openRecord(session, feed, args.id, seat));
    },
    // The record poller's values are the feed's `value`s.
    resolve: resolveEvent as (event: FeedEvent) => V,
  };
}
