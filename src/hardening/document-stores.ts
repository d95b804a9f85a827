import type { Cluster, Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { Asks } from '../shared-state/asks.ts';
import { withTimeout } from '../shared-state/timeout.ts';

/**
 * Where trusted documents published at run time (src/hardening/published-documents.ts) are kept:
 * in the Redis the replicas share (REDIS_URL), so every replica serves them and a restart keeps
 * them; without it in the instance's memory, held by the group's primary when there are workers,
 * so that every worker serves the same set. This file loads no GraphQL: the primary imports it.
 */

/** One app's published documents. */
export interface PublishedApp {
  name: string;
  /** id → document text, as the manifest gave them (checked before they were stored). */
  documents: Record<string, string>;
  /** When they were published (ISO 8601). */
  publishedAt: string;
}

export interface DocumentStore {
  /** Stores an app's documents in place of those it had; resolved once stored and served by this process. */
  put(app: PublishedApp): Promise<void>;
  /** Retires an app's documents; false when no app of that name is published. */
  remove(name: string): Promise<boolean>;
  /** Every app as stored now. */
  read(): Promise<PublishedApp[]>;
  /** Called with every app each time they change, here or on another replica or worker (and once at the start). */
  watch(listener: (apps: readonly PublishedApp[]) => void): void;
  close(): Promise<void>;
}

/** Thrown when the store cannot be reached: nothing was stored. */
export class DocumentStoreUnavailable extends Error {
  override name = 'DocumentStoreUnavailable';
}

/** The instance's own memory: a gateway process of its own, or a group's primary. */
export class MemoryDocumentStore implements DocumentStore {
  readonly #apps = new Map<string, PublishedApp>();
  readonly #listeners: ((apps: readonly PublishedApp[]) => void)[] = [];

  putNow(app: PublishedApp): void {
    this.#apps.set(app.name, app);
    this.#changed();
  }

  removeNow(name: string): boolean {
    const had = this.#apps.delete(name);
    if (had) this.#changed();
    return had;
  }

  all(): PublishedApp[] {
    return [...this.#apps.values()];
  }

  async put(app: PublishedApp): Promise<void> {
    this.putNow(app);
  }

  async remove(name: string): Promise<boolean> {
    return this.removeNow(name);
  }

  async read(): Promise<PublishedApp[]> {
    return this.all();
  }

  watch(listener: (apps: readonly PublishedApp[]) => void): void {
    this.#listeners.push(listener);
    listener(this.all());
  }

  async close(): Promise<void> {}

  #changed(): void {
    const apps = this.all();
    for (const listener of this.#listeners) listener(apps);
  }
}

// A group of workers without Redis: the primary keeps the apps and sends every worker the whole set
// on each change, and a worker as it starts; a worker's publication goes through the primary.

interface DocumentsRequest {
  trustedDocuments: 'hello' | 'put' | 'remove';
  id: number;
  app?: PublishedApp;
  name?: string;
}

interface DocumentsReply {
  trustedDocumentsReply: number;
  removed: boolean;
}

interface DocumentsState {
  trustedDocumentsState: PublishedApp[];
}

const isDocumentsRequest = (message: unknown): message is DocumentsRequest =>
  typeof message === 'object' && message !== null && typeof (message as DocumentsRequest).trustedDocuments === 'string';
const isDocumentsReply = (message: unknown): message is DocumentsReply =>
  typeof message === 'object' && message !== null && typeof (message as DocumentsReply).trustedDocumentsReply === 'number';
const isDocumentsState = (message: unknown): message is DocumentsState =>
  typeof message === 'object' && message !== null && Array.isArray((message as DocumentsState).trustedDocumentsState);

/** The primary's side (called in src/process/cluster.ts): one set of apps for every worker of the group. */
export function serveDocumentsToWorkers(cluster: Cluster): void {
  const store = new MemoryDocumentStore();
  const send = (worker: Worker, message: DocumentsState | DocumentsReply) => {
    if (worker.isConnected()) worker.send(message);
  };
  const broadcast = () => {
    const state: DocumentsState = { trustedDocumentsState: store.all() };
    for (const worker of Object.values(cluster.workers ?? {})) if (worker) send(worker, state);
  };
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isDocumentsRequest(message)) return;
    let removed = false;
    if (message.trustedDocuments === 'put' && message.app) {
      store.putNow(message.app);
      broadcast();
    } else if (message.trustedDocuments === 'remove' && typeof message.name === 'string') {
      removed = store.removeNow(message.name);
      if (removed) broadcast();
    } else {
      send(worker, { trustedDocumentsState: store.all() });
    }
    // After the state: the channel keeps the order, so the worker serves the change before its reply arrives.
    send(worker, { trustedDocumentsReply: message.id, removed });
  });
}

/** How long a worker waits for its primary: the primary answers from memory, so only a stopping group is this slow. */
const PRIMARY_ANSWER_MS = 5_000;

/** A worker's side: the primary's set, kept here as the primary last sent it. */
export class WorkerGroupDocumentStore implements DocumentStore {
  #apps: PublishedApp[] = [];
  readonly #listeners: ((apps: readonly PublishedApp[]) => void)[] = [];
  readonly #asks = new Asks<DocumentsReply | undefined>();
  readonly #listener = (message: unknown) => {
    if (isDocumentsState(message)) {
      this.#apps = message.trustedDocumentsState;
      for (const listener of this.#listeners) listener(this.#apps);
    } else if (isDocumentsReply(message)) {
      this.#asks.answer(message.trustedDocumentsReply, message);
    }
  };

  private constructor() {
    process.on('message', this.#listener);
  }

  /** Asks the primary for the set before the worker serves anything, so a new worker serves what the others do. */
  static async connect(logger: Logger): Promise<WorkerGroupDocumentStore> {
    const store = new WorkerGroupDocumentStore();
    await store.#ask({ trustedDocuments: 'hello', id: 0 }).catch((error: unknown) => logger.warn({ err: error }, 'published trusted documents: the primary did not send them; none are served until it does'));
    return store;
  }

  async put(app: PublishedApp): Promise<void> {
    await this.#ask({ trustedDocuments: 'put', id: 0, app });
  }

  async remove(name: string): Promise<boolean> {
    return (await this.#ask({ trustedDocuments: 'remove', id: 0, name })).removed;
  }

  async read(): Promise<PublishedApp[]> {
    return this.#apps;
  }

  watch(listener: (apps: readonly PublishedApp[]) => void): void {
    this.#listeners.push(listener);
    listener(this.#apps);
  }

  async close(): Promise<void> {
    process.off('message', this.#listener);
  }

  async #ask(request: DocumentsRequest): Promise<DocumentsReply> {
    if (!process.connected || process.send === undefined) throw new DocumentStoreUnavailable('the group\'s primary cannot be reached');
    const reply = await this.#asks.ask((id) => process.send!({ ...request, id } satisfies DocumentsRequest), PRIMARY_ANSWER_MS, () => undefined);
    if (reply === undefined) throw new DocumentStoreUnavailable(`the group's primary did not answer within ${PRIMARY_ANSWER_MS} ms`);
    return reply;
  }

}

// The Redis the replicas share. One hash per app (id → text), an index of the apps (name → when
// published) and a version counter moved by every change: each replica reads the counter every
// WATCH_MS and reads the apps again when it moved, so a change made on any replica is served by all
// within WATCH_MS and a read. Every write and the read are scripts, so a replica never reads half a
// publication. Keys carry no expiry: with `maxmemory-policy volatile-lru` (docs/web-clients.md) an
// evicting Redis drops persisted queries, which expire, and never these.

const PREFIX = 'gateway-trusted-documents';
const INDEX = `${PREFIX}:apps`;
const VERSION = `${PREFIX}:version`;
const APP_PREFIX = `${PREFIX}:app:`;

/** How often a replica reads the version counter: a change is served everywhere within about this long. */
const WATCH_MS = 250;
/** Longest wait for one Redis command; a larger publication is one longer script, so writes get more. */
const COMMAND_TIMEOUT_MS = 2_000;
const WRITE_TIMEOUT_MS = 10_000;
/** How long start-up waits for the first read before serving without the published documents. */
const STARTUP_WAIT_MS = 2_000;

const PUT = `redis.call('DEL', KEYS[2])
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return redis.call('INCR', KEYS[3])`;

const REMOVE = `redis.call('DEL', KEYS[2])
local removed = redis.call('HDEL', KEYS[1], ARGV[1])
if removed == 1 then redis.call('INCR', KEYS[3]) end
return removed`;

/** The version, then name, meta and the documents' flat hash of each app, in one atomic read. */
const READ = `local out = { redis.call('GET', KEYS[2]) or '0' }
local names = redis.call('HKEYS', KEYS[1])
for _, name in ipairs(names) do
  table.insert(out, name)
  table.insert(out, redis.call('HGET', KEYS[1], name))
  table.insert(out, redis.call('HGETALL', ARGV[1] .. name))
end
return out`;

/** The commands of node-redis this uses. */
interface RedisClient {
  connect(): Promise<unknown>;
  sendCommand<T = unknown>(args: string[]): Promise<T>;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  destroy(): void;
  readonly isReady: boolean;
}

export class RedisDocumentStore implements DocumentStore {
  readonly #client: RedisClient;
  readonly #logger: Logger;
  readonly #listeners: ((apps: readonly PublishedApp[]) => void)[] = [];
  #apps: PublishedApp[] = [];
  #version: string | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #reading = false;
  #warnedAt = 0;

  private constructor(client: RedisClient, logger: Logger) {
    this.#client = client;
    this.#logger = logger;
  }

  /** Connects and reads the apps, waiting at most STARTUP_WAIT_MS: past it the gateway starts, and serves them once Redis answers. */
  static async connect(url: string, logger: Logger, watchMs = WATCH_MS): Promise<RedisDocumentStore> {
    const { createClient } = await import('@redis/client');
    const client = createClient({
      url,
      name: 'gateway-trusted-documents',
      // Commands fail at once while disconnected instead of queueing until Redis is back.
      disableOfflineQueue: true,
      socket: { reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000) },
    }) as unknown as RedisClient;
    const store = new RedisDocumentStore(client, logger);
    client.on('error', (error) => store.#warn(error));
    const first = client.connect().then(
      () => Promise.all([store.#poll(), store.#checkEviction()]),
      (error: unknown) => store.#warn(error),
    );
    await Promise.race([first, new Promise((resolve) => setTimeout(resolve, STARTUP_WAIT_MS).unref())]);
    store.#timer = setInterval(() => void store.#poll(), watchMs).unref();
    return store;
  }

  async put(app: PublishedApp): Promise<void> {
    const pairs = Object.entries(app.documents).flat();
    await this.#command(['EVAL', PUT, '3', INDEX, APP_PREFIX + app.name, VERSION, app.name, JSON.stringify({ publishedAt: app.publishedAt }), ...pairs], WRITE_TIMEOUT_MS);
    await this.#reload();
  }

  async remove(name: string): Promise<boolean> {
    const removed = await this.#command<number>(['EVAL', REMOVE, '3', INDEX, APP_PREFIX + name, VERSION, name], COMMAND_TIMEOUT_MS);
    await this.#reload();
    return removed === 1;
  }

  async read(): Promise<PublishedApp[]> {
    return (await this.#readAll()).apps;
  }

  watch(listener: (apps: readonly PublishedApp[]) => void): void {
    this.#listeners.push(listener);
    listener(this.#apps);
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#client.destroy();
  }

  /** An `allkeys-*` policy may evict a published app's documents: served no more, with nothing said. */
  async #checkEviction(): Promise<void> {
    try {
      const reply = await withTimeout(this.#client.sendCommand<unknown[] | Record<string, string>>(['CONFIG', 'GET', 'maxmemory-policy']), COMMAND_TIMEOUT_MS);
      const policy = Array.isArray(reply) ? String(reply[1]) : reply['maxmemory-policy'];
      if (policy?.startsWith('allkeys')) {
        this.#logger.warn({ policy }, 'published trusted documents: the shared Redis (REDIS_URL) may evict them; set maxmemory-policy volatile-lru (persisted queries, which expire, are evicted instead)');
      }
    } catch {
      // Managed Redis services may refuse CONFIG: nothing to tell then.
    }
  }

  async #command<T>(args: string[], timeout: number): Promise<T> {
    if (!this.#client.isReady) throw new DocumentStoreUnavailable('the shared Redis (REDIS_URL) is not connected');
    try {
      return await withTimeout(this.#client.sendCommand<T>(args), timeout);
    } catch (error) {
      this.#warn(error);
      throw new DocumentStoreUnavailable(`the shared Redis (REDIS_URL) failed: ${(error as Error).message}`);
    }
  }

  async #readAll(): Promise<{ version: string; apps: PublishedApp[] }> {
    const reply = await this.#command<unknown[]>(['EVAL', READ, '2', INDEX, VERSION, APP_PREFIX], COMMAND_TIMEOUT_MS);
    const apps: PublishedApp[] = [];
    for (let i = 1; i + 2 < reply.length; i += 3) {
      const name = String(reply[i]);
      let publishedAt = '';
      try {
        publishedAt = String((JSON.parse(String(reply[i + 1])) as { publishedAt?: unknown }).publishedAt ?? '');
      } catch {
        // A meta field this version did not write: the app is still served.
      }
      const flat = reply[i + 2] as unknown[];
      const documents: Record<string, string> = {};
      for (let j = 0; j + 1 < flat.length; j += 2) documents[String(flat[j])] = String(flat[j + 1]);
      apps.push({ name, documents, publishedAt });
    }
    return { version: String(reply[0]), apps };
  }

  /** Reads the apps when the counter moved; a failure keeps what was served, and says so in the log. */
  async #poll(): Promise<void> {
    if (this.#reading || !this.#client.isReady) return;
    this.#reading = true;
    try {
      const version = await withTimeout(this.#client.sendCommand<string | null>(['GET', VERSION]), COMMAND_TIMEOUT_MS);
      if ((version ?? '0') !== this.#version) await this.#reload();
    } catch (error) {
      this.#warn(error);
    } finally {
      this.#reading = false;
    }
  }

  async #reload(): Promise<void> {
    const { version, apps } = await this.#readAll();
    this.#version = version;
    this.#apps = apps;
    for (const listener of this.#listeners) listener(apps);
  }

  #warn(error: unknown): void {
    const now = Date.now();
    if (now - this.#warnedAt < 10_000) return;
    this.#warnedAt = now;
    this.#logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'published trusted documents: the shared Redis (REDIS_URL) failed; the documents last read are served meanwhile');
  }
}
