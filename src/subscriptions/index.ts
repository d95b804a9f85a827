export { REAL_CLOCK, type PollClock } from './clock.ts';
export type { ListFeed, RecordFeed } from './feeds.ts';
export { listFeedField, recordFeedField } from './fields.ts';
export { SubscriptionHub, subscriptionSession, SUBSCRIBER_QUEUE_LIMIT, type SubscriptionSession, type SubscriptionObserver, type Transport, type SubscriptionLimits } from './hub.ts';
export { FEED_PAGE_SIZE, MAX_FEED_PAGES, FAILING_POLLS_TOLD, type PollIdentity } from './poller.ts';
