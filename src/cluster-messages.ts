/**
 * Messages a worker of the group (WORKERS > 1) sends its primary over the cluster's IPC channel,
 * besides those of the group's metrics (src/observability/cluster-metrics.ts).
 */

/** Sent once the worker's gateway listens on both its ports. */
export const WORKER_LISTENING = 'gateway:worker-listening';

export interface WorkerListening {
  type: typeof WORKER_LISTENING;
  url: string;
  adminUrl: string | undefined;
}

/**
 * Sent every heartbeatIntervalMs by a listening worker's event loop: a worker that sends none for
 * WORKER_HEARTBEAT_TIMEOUT_MS is stuck (an endless loop, a blocking call, SIGSTOP) and is replaced.
 */
export const WORKER_HEARTBEAT = 'gateway:worker-heartbeat';

/** Five beats per timeout: one late beat (a long garbage collection, a slow scrape) never reads as a hang. */
export const heartbeatIntervalMs = (timeoutMs: number) => Math.floor(timeoutMs / 5);
