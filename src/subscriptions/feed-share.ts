import type { Logger } from 'pino';
import type { SharedStore } from '../shared-state/store.ts';
import { RedisFeedShare } from './redis-share.ts';
import { ALONE, type FeedShare } from './share.ts';
import { WorkerFeedShare } from './worker-share.ts';

/** Which replica polls each feed, and where the caps' seats are counted, in the store `store` names. */
export async function feedShare(store: SharedStore, logger: Logger, timeoutMs: number): Promise<FeedShare> {
  if (store.kind === 'redis') return RedisFeedShare.connect(store.url, logger, timeoutMs);
  if (store.kind === 'primary') return new WorkerFeedShare(timeoutMs);
  return ALONE;
}
