export type { PollClock } from './clock.ts';
export type { ListFeed, RecordFeed } from './feeds.ts';
export { listFeedField, recordFeedField } from './fields.ts';
export { SubscriptionHub, subscriptionSession, SUBSCRIBER_QUEUE_LIMIT, type SubscriptionSession, type SubscriptionObserver, type Transport } from './hub.ts';
export { feedShare } from './feed-share.ts';
export { RedisFeedShare } from './redis-share.ts';
export { FeedLeases } from './worker-share.ts';
