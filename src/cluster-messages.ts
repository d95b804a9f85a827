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
