import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { busyReadiness, DOCUMENTS_ANSWER_WITHIN_MS, json, startGroupAdminListener, type AdminAnswer, type AdminListener } from './admin.ts';
import { ADMIN_ON_PRIMARY_ENV, DOCUMENTS_ANSWER, DOCUMENTS_ASK, heartbeatIntervalMs, READINESS_ANSWER, READINESS_ASK, WORKER_HEARTBEAT, WORKER_LISTENING, type DocumentsAnswerMessage, type DocumentsAsk, type ReadinessAnswer, type ReadinessAsk, type WorkerListening } from './cluster-messages.ts';
import { serveDocumentsToWorkers } from '../hardening/document-stores.ts';
import type { DocumentsRequest } from '../hardening/index.ts';
import type { Config } from '../settings/config.ts';
import { MAX_BUCKETS } from '../budgets/bucket.ts';
import { serveBudgetsToWorkers } from '../budgets/worker-group.ts';
import { FeedLeases } from '../subscriptions/index.ts';
import { flushLogs } from '../logger.ts';
import { GroupMetricsCollector } from '../observability/cluster-metrics.ts';
import { Asks } from '../shared-state/asks.ts';
import { primaryKeeps } from '../shared-state/store.ts';
import { createWorkerSupervisionMetrics } from '../observability/metrics.ts';

/**
 * The primary process of WORKERS > 1: forks the gateway workers, which share the listening port
 * through node:cluster (the primary accepts connections and hands them out in turn), replaces a
 * worker that exits unexpectedly, and stops them all on SIGTERM/SIGINT. It serves no GraphQL itself,
 * so it serves the group's admin port: a flood of heavy queries saturating every worker's loop
 * cannot delay liveness there (src/process/admin.ts).
 */

/** More unexpected worker exits than this within CRASH_WINDOW_MS is a crash loop: the group gives up. */
const CRASH_LIMIT = 5;
const CRASH_WINDOW_MS = 60_000;
/** A replacement starts after RESTART_BASE_MS × 2^(recent exits − 1), at most RESTART_MAX_MS. */
const RESTART_BASE_MS = 250;
const RESTART_MAX_MS = 8_000;
/** Beyond the workers' own bounded drain, before the primary kills what is left. */
const STOP_BACKSTOP_MS = 5_000;

interface WorkerGroupOptions {
  /** Workers to run. */
  count: number;
  /** Variables added to each worker's environment (the embedded sandbox's URL, the playground's demo values). */
  env: Record<string, string>;
  /** Called once, when the first `count` workers all listen, with the gateway's base URL and its admin listener's. */
  onListening(listeners: { url: string; adminUrl: string | undefined }): void;
  /** Called once every worker has exited on a stop (the embedded sandbox closes there). */
  close(): Promise<void>;
}

const isHeartbeat = (message: unknown) => typeof message === 'object' && message !== null && (message as { type?: unknown }).type === WORKER_HEARTBEAT;

const isWorkerListening = (message: unknown): message is WorkerListening =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === WORKER_LISTENING;

const isReadinessAnswer = (message: unknown): message is ReadinessAnswer =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === READINESS_ANSWER;

const isDocumentsAnswer = (message: unknown): message is DocumentsAnswerMessage =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === DOCUMENTS_ANSWER;

/**
 * Runs the worker group until a signal or a crash loop ends it; the process then exits. Resolves
 * once the group's admin listener listens (rejects when its port is taken) and the workers are forked.
 */
export async function superviseWorkers(config: Config, logger: Logger, options: WorkerGroupOptions): Promise<void> {
  /** Worker processes not yet exited (cluster.workers keeps one until its IPC channel has closed too). */
  const live = new Set<Worker>();
  const listening = new Set<Worker>();
  const exits: number[] = [];
  const restartTimers = new Set<NodeJS.Timeout>();
  let started = false;
  let stopping: { exitCode: number } | undefined;

  const supervision = config.metrics ? createWorkerSupervisionMetrics(() => listening.size) : undefined;
  const collector = supervision ? new GroupMetricsCollector(supervision.registry, () => [...listening]) : undefined;

  const running = () => [...live];

  // The group's admin port, on this loop: /readyz asks the listening workers in turn.
  let admin: AdminListener | undefined;
  let turn = 0;
  // One channel of questions to the workers, answered by the one asked: readiness and documents alike.
  const questions = new Asks<AdminAnswer>();
  const readiness = (withinMs: number): Promise<AdminAnswer> => {
    const serving = [...listening].filter((worker) => worker.isConnected());
    if (serving.length === 0) return Promise.resolve(json(503, { status: 'unavailable', reason: 'busy', detail: 'no worker is serving' }));
    const worker = serving[turn++ % serving.length]!;
    return questions.ask((id) => worker.send({ type: READINESS_ASK, id } satisfies ReadinessAsk), withinMs, () => busyReadiness(withinMs));
  };
  // A /trusted-documents request of the group's admin port, answered by a listening worker: only a worker holds the schema.
  const documents = (request: DocumentsRequest): Promise<AdminAnswer> => {
    const serving = [...listening].filter((worker) => worker.isConnected());
    if (serving.length === 0) return Promise.resolve(json(503, { error: 'no worker is serving: nothing was changed' }));
    const worker = serving[turn++ % serving.length]!;
    return questions.ask((id) => worker.send({ type: DOCUMENTS_ASK, id, request } satisfies DocumentsAsk), DOCUMENTS_ANSWER_WITHIN_MS, () => json(503, { error: 'busy: no worker answered in time; what it was sent may still be stored' }));
  };
  const scrape = collector && supervision
    ? async (): Promise<AdminAnswer> => {
        try {
          return { status: 200, contentType: supervision.registry.contentType, body: await collector.collect() };
        } catch (error) {
          logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'metrics of the process group unavailable');
          return { status: 503, contentType: 'text/plain; charset=utf-8', body: 'metrics of the process group unavailable\n' };
        }
      }
    : undefined;

  // Heartbeats: when each listening worker was last heard from. A worker is watched from the time it
  // listens (start-up, which loads modules and builds the schema, is not a hang), until it exits.
  const heard = new Map<Worker, number>();
  const timeoutMs = config.scaling.heartbeatTimeoutMs;
  const checkEveryMs = heartbeatIntervalMs(timeoutMs);
  let lastCheck = Date.now();
  const watchdog = setInterval(() => {
    const now = Date.now();
    const primaryLateMs = now - lastCheck - checkEveryMs;
    lastCheck = now;
    // The primary's own loop was held up (a large metrics aggregation, the machine swapping): the
    // workers' beats may be waiting unread in its IPC pipes, so silence now proves nothing about them.
    if (primaryLateMs > timeoutMs / 2) {
      for (const worker of heard.keys()) heard.set(worker, now);
      return;
    }
    if (stopping) return;
    for (const [worker, seen] of heard) {
      const silentMs = now - seen;
      if (silentMs <= timeoutMs) continue;
      heard.delete(worker);
      logger.error({ pid: worker.process.pid, silentMs, timeoutMs }, 'worker hung: killing it');
      supervision?.recordHang();
      // SIGKILL, not SIGTERM: a stuck loop would never run the drain a SIGTERM starts (and a stopped
      // process only acts on SIGKILL). Its exit then goes through the restart and back-off below.
      worker.process.kill('SIGKILL');
    }
  }, checkEveryMs);

  // Without the Redis replicas share, the workers' pollers share each feed's lease here (src/subscriptions/worker-share.ts).
  const feedLeases = primaryKeeps(config.redisUrl) ? new FeedLeases() : undefined;
  const fork = () => {
    const worker = cluster.fork(admin ? { ...options.env, [ADMIN_ON_PRIMARY_ENV]: '1' } : options.env);
    live.add(worker);
    feedLeases?.attach(worker);
    // The worker's own message, not cluster's 'listening' event: that fires once per server it opens.
    const onMessage = (message: unknown) => {
      if (isHeartbeat(message)) {
        if (heard.has(worker)) heard.set(worker, Date.now());
        return;
      }
      if (isDocumentsAnswer(message)) {
        questions.answer(message.id, message.answer ?? json(500, { error: 'internal error' }));
        return;
      }
      if (isReadinessAnswer(message)) {
        questions.answer(message.id, json(message.ready ? 200 : 503, message.report));
        return;
      }
      if (!isWorkerListening(message)) return;
      listening.add(worker);
      heard.set(worker, Date.now());
      logger.info({ pid: worker.process.pid, workers: listening.size }, 'worker listening');
      if (!started && listening.size >= options.count) {
        started = true;
        logger.info({ workers: listening.size, pids: [...listening].map((w) => w.process.pid) }, 'workers started');
        options.onListening({ url: message.url, adminUrl: admin?.url ?? message.adminUrl });
      }
    };
    worker.on('message', onMessage);
  };

  const finish = async () => {
    clearInterval(watchdog);
    await admin?.close();
    collector?.close();
    const exitCode = stopping?.exitCode ?? 1;
    try {
      await options.close();
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed: exiting');
      process.exit(1);
    }
    logger.info({ exitCode }, 'stopped');
    await flushLogs();
    process.exit(exitCode);
  };

  const stop = (exitCode: number) => {
    if (stopping) return;
    stopping = { exitCode };
    for (const timer of restartTimers) clearTimeout(timer);
    restartTimers.clear();
    const workers = running();
    for (const worker of workers) worker.process.kill('SIGTERM');
    // Each worker bounds its own drain; this only ends a stop that hangs for another reason.
    setTimeout(() => {
      logger.error({ pids: running().map((w) => w.process.pid) }, 'workers did not stop in time: killing them');
      for (const worker of running()) worker.process.kill('SIGKILL');
      process.exit(1);
    }, config.scaling.shutdownDelayMs + config.shutdownTimeoutMs + 2 * STOP_BACKSTOP_MS).unref();
    if (workers.length === 0) void finish();
  };

  cluster.on('exit', (worker, code, signal) => {
    live.delete(worker);
    listening.delete(worker);
    heard.delete(worker);
    if (stopping) {
      const clean = code === 0 && signal === null;
      // A worker that did not drain cleanly makes the whole stop unclean, as in a single process.
      if (!clean) stopping.exitCode = 1;
      logger.info({ pid: worker.process.pid, code, signal }, 'worker stopped');
      if (running().length === 0) void finish();
      return;
    }
    const now = Date.now();
    exits.push(now);
    while (exits.length > 0 && exits[0]! <= now - CRASH_WINDOW_MS) exits.shift();
    if (exits.length > CRASH_LIMIT) {
      logger.fatal({ pid: worker.process.pid, code, signal, exits: exits.length, windowMs: CRASH_WINDOW_MS }, 'workers keep exiting: giving up');
      stop(1);
      return;
    }
    const delayMs = Math.min(RESTART_BASE_MS * 2 ** (exits.length - 1), RESTART_MAX_MS);
    logger.error({ pid: worker.process.pid, code, signal, restartInMs: delayMs }, 'worker exited unexpectedly: starting another');
    const timer = setTimeout(() => {
      restartTimers.delete(timer);
      supervision?.recordRestart();
      fork();
    }, delayMs);
    restartTimers.add(timer);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (!stopping) logger.info({ signal, workers: running().length, delayMs: config.scaling.shutdownDelayMs, timeoutMs: config.shutdownTimeoutMs }, 'shutting down');
      stop(0);
    });
  }

  // Without Redis, the workers' budgets are kept here, one per caller for the whole group (src/budgets/worker-group.ts).
  if (primaryKeeps(config.budgetStore.redisUrl)) serveBudgetsToWorkers(cluster, MAX_BUCKETS);
  // Without Redis, published trusted documents are kept here and sent to every worker (src/hardening/document-stores.ts).
  if (config.publishedDocuments && primaryKeeps(config.redisUrl)) serveDocumentsToWorkers(cluster);

  if (config.admin.port !== 'off') {
    try {
      admin = await startGroupAdminListener({ host: config.admin.host, port: config.admin.port, readiness, scrape, logger, adminToken: config.admin.token, documents });
    } catch (error) {
      clearInterval(watchdog);
      collector?.close();
      throw error;
    }
  }
  logger.info({ workers: options.count }, 'starting workers');
  for (let i = 0; i < options.count; i++) fork();
}
