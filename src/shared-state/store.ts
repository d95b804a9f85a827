import cluster from 'node:cluster';

/**
 * Where state that an instance's processes and its replicas share is kept, the one choice for every
 * kind of it (budgets, feed leases and seats, published documents): the Redis its setting names,
 * shared by every replica; else, in a group of workers (WORKERS > 1), the group's primary, shared by
 * the workers of this instance; else this process alone.
 */
export type SharedStore = { readonly kind: 'redis'; readonly url: string } | { readonly kind: 'primary' } | { readonly kind: 'memory' };

/** The store of this process for state kept in the Redis at `redisUrl`, when one is set. */
export function sharedStore(redisUrl: string | undefined): SharedStore {
  if (redisUrl !== undefined) return { kind: 'redis', url: redisUrl };
  return cluster.isWorker ? { kind: 'primary' } : { kind: 'memory' };
}

/** Whether a group's primary keeps the state of this kind for its workers: no Redis is set for it. */
export function primaryKeeps(redisUrl: string | undefined): boolean {
  return redisUrl === undefined;
}
