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

/**
 * Set in each worker's environment when the primary serves the group's admin port (WORKERS > 1 with
 * an admin listener): the worker opens none, and answers the primary's readiness questions instead.
 */
export const ADMIN_ON_PRIMARY_ENV = 'GATEWAY_ADMIN_ON_PRIMARY';

/** Sent by the primary to one listening worker per /readyz on the group's admin port. */
export const READINESS_ASK = 'gateway:readiness-ask';

export interface ReadinessAsk {
  type: typeof READINESS_ASK;
  id: number;
}

/** The worker's answer: its readiness report (src/observability/health.ts). */
export const READINESS_ANSWER = 'gateway:readiness-answer';

export interface ReadinessAnswer {
  type: typeof READINESS_ANSWER;
  id: number;
  ready: boolean;
  report: unknown;
}

/** Sent by the primary to one listening worker per /trusted-documents request on the group's admin port (src/process/admin.ts). */
export const DOCUMENTS_ASK = 'gateway:documents-ask';

export interface DocumentsAsk {
  type: typeof DOCUMENTS_ASK;
  id: number;
  /** A DocumentsRequest of src/hardening/published-documents.ts (the kernel does not know its type). */
  request: unknown;
}

/** The worker's answer: the admin listener's answer, or undefined when it failed. */
export const DOCUMENTS_ANSWER = 'gateway:documents-answer';

export interface DocumentsAnswerMessage {
  type: typeof DOCUMENTS_ANSWER;
  id: number;
  answer: { status: number; contentType: string; body: string } | undefined;
}
