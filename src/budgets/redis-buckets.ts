import type { Logger } from 'pino';
import { Timeout, withTimeout } from '../shared-state/timeout.ts';
import { intervalMs, stateOf, take, toleranceMs, type BucketPolicy, type BucketState, type BucketStore, type MemoryBuckets } from './bucket.ts';

/**
 * Buckets shared by every gateway instance through Redis, with the arithmetic of bucket.ts in one
 * Lua script (atomic: no other command runs between the read and the write). The script reads
 * Redis' own clock, so instances whose clocks differ still agree on every bucket.
 *
 * A Redis that hangs or is gone never holds a request up nor grows memory:
 * - each command waits at most `timeoutMs`; then the request is counted in `fallback` (memory). A
 *   reply that arrived while this process's event loop was stalled is read before the timeout is
 *   decided (withTimeout), so loop lag is not a store failure;
 * - at most MAX_IN_FLIGHT commands are ever outstanding, and after a timeout that was not the event
 *   loop's lag none is sent until a probe (TIME) is answered again: meanwhile requests are counted in
 *   memory;
 * - every command carries a deadline in Redis' clock (this process's clock plus the offset learned
 *   from TIME, plus twice the timeout: the longest this process waits, a lagging loop's second wait
 *   included), and the script does nothing once it has passed, so a command a frozen Redis runs on
 *   waking changes nothing; a command Redis did run whose reply came after the request was counted
 *   in memory is taken back from memory: a take is applied once;
 * - at start-up the store waits for Redis (up to STARTUP_WAIT_MS) before the gateway serves, so a
 *   replica starting beside others does not count its first requests in a full bucket of its own.
 */
export interface RedisBucketSettings {
  url: string;
  /** Longest wait for one command (RATE_LIMIT_STORE_TIMEOUT_MS). */
  timeoutMs: number;
}

/** Commands outstanding at once; past it (a hung Redis under load) requests are counted in memory. */
const MAX_IN_FLIGHT = 64;
/** How often the clock offset is measured again, and how soon a suspended store is probed. */
const CLOCK_PROBE_MS = 10_000;
const RESUME_PROBE_MS = 500;
const WARNING_INTERVAL_MS = 10_000;
/** How long start-up waits for Redis (connected, its clock learned) before serving with memory alone. */
const STARTUP_WAIT_MS = 3_000;

/**
 * KEYS[1]: the bucket. ARGV: interval (ms per token), tolerance (burst × interval), cost (negative:
 * a refund), mode (`take` checks, `adjust` does not), deadline (Redis ms; past it nothing is done),
 * floor (Redis ms: the TAT this instance last read for the bucket, 0 for none).
 * Returns { applied (1, 0 refused, -1 too late), TAT as text, Redis now (ms) }.
 *
 * A bucket Redis does not hold is full, unless the instance last read it further on: then Redis lost
 * it (restarted empty, flushed) and the floor stands in for it, and is written back even when the
 * take is refused, so a restart does not refill budgets.
 */
const SCRIPT = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if now > tonumber(ARGV[5]) then return {-1, '0', now} end
local interval = tonumber(ARGV[1])
local stored = redis.call('GET', KEYS[1])
local tat = now
local floored = false
if stored then tat = math.max(tonumber(stored), now) elseif tonumber(ARGV[6]) > now then tat = tonumber(ARGV[6]); floored = true end
local nxt = tat + tonumber(ARGV[3]) * interval
if ARGV[4] == 'take' then
  if nxt - now - tonumber(ARGV[2]) > 0.000001 then
    if floored then redis.call('SET', KEYS[1], tostring(tat), 'PX', math.ceil(tat - now)) end
    return {0, tostring(tat), now}
  end
elseif nxt < now then
  nxt = now
end
local ttl = math.ceil(nxt - now)
if ttl > 0 then redis.call('SET', KEYS[1], tostring(nxt), 'PX', ttl) else redis.call('DEL', KEYS[1]) end
return {1, tostring(nxt), now}`;

type ScriptReply = [number, string, number];

/**
 * The name every instance's connection to the budgets' Redis carries (CLIENT SETNAME): the live
 * instances are the connections of that name Redis holds, with no key of their own to keep.
 */
const CLIENT_NAME = 'gateway-budgets';
/** How often an instance reads how many are live. */
const COUNT_MS = 1_000;

interface RedisClient {
  connect(): Promise<unknown>;
  clientList(): Promise<{ name?: string }[]>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  scriptLoad(script: string): Promise<string>;
  time(): Promise<unknown>;
  configGet(parameter: string): Promise<Record<string, string>>;
  close(): Promise<void>;
  destroy(): void;
  isOpen: boolean;
  isReady: boolean;
  on(event: 'error', listener: (error: unknown) => void): unknown;
}


/** Milliseconds of a TIME reply ([seconds, microseconds], as text). */
function timeMs(reply: unknown): number {
  const [seconds, micros] = reply as [string, string];
  return Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000);
}

export interface RedisBucketObserver {
  /** One request counted in memory because the shared store did not answer. */
  recordStoreFailure(): void;
}

export class RedisBuckets implements BucketStore {
  readonly #client: RedisClient;
  readonly #fallback: MemoryBuckets;
  readonly #timeoutMs: number;
  readonly #logger: Logger;
  readonly #observer: RedisBucketObserver | undefined;
  #sha: string | undefined;
  /** Redis' clock minus this process's, once measured. */
  #offsetMs: number | undefined;
  #inFlight = 0;
  #suspended = false;
  #probe: ReturnType<typeof setTimeout> | undefined;
  #clockTimer: ReturnType<typeof setInterval> | undefined;
  #warnedAt = 0;
  #failures = 0;
  #closed = false;
  /** Live instances as last read from Redis (this one included): while counting alone, each call costs that many. */
  #replicas = 1;
  /** Whether the live instances were read at least once: until then, how many share a bucket is unknown. */
  #counted = false;
  /** Whether Redis was ever reached: an instance that never reached it counts alone, as it always has. */
  #reached = false;
  #counting: ReturnType<typeof setInterval> | undefined;

  private constructor(client: RedisClient, fallback: MemoryBuckets, settings: RedisBucketSettings, logger: Logger, observer?: RedisBucketObserver) {
    this.#client = client;
    this.#fallback = fallback;
    this.#timeoutMs = settings.timeoutMs;
    this.#logger = logger;
    this.#observer = observer;
  }

  /** Connects (waiting no longer than one command may) and learns Redis' clock; until then, memory counts. */
  static async connect(settings: RedisBucketSettings, fallback: MemoryBuckets, logger: Logger, observer?: RedisBucketObserver): Promise<RedisBuckets> {
    // Loaded only when configured, like the persisted-query store's client.
    const { createClient } = await import('@redis/client');
    const client = createClient({
      url: settings.url,
      name: CLIENT_NAME,
      // Commands fail at once while disconnected instead of queueing until Redis is back.
      disableOfflineQueue: true,
      // A frozen Redis keeps the connection open: this bounds what can queue behind it.
      commandsQueueMaxLength: MAX_IN_FLIGHT * 2,
      socket: { connectTimeout: Math.max(settings.timeoutMs, 1_000), reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000) },
    }) as unknown as RedisClient;
    const store = new RedisBuckets(client, fallback, settings, logger, observer);
    client.on('error', (error: unknown) => store.#warn('rate limit store error', error));
    const connecting = client.connect().then(
      // The script loaded and the clock learned before the first request: its take is one EVALSHA.
      () => {
        store.#reached = true;
        return Promise.all([store.#measureClock(), store.#loadScript(), store.countReplicas()]);
      },
      (error: unknown) => store.#warn('rate limit store: connection failed', error),
    );
    await Promise.race([connecting, new Promise((resolve) => setTimeout(resolve, Math.max(settings.timeoutMs, STARTUP_WAIT_MS)).unref())]);
    store.#clockTimer = setInterval(() => void store.#measureClock(), CLOCK_PROBE_MS).unref();
    store.#counting = setInterval(() => void store.countReplicas(), COUNT_MS).unref();
    return store;
  }

  /** The budgets' Redis evicts keys under memory pressure: a spent budget could vanish. */
  async evictionPolicy(): Promise<string | undefined> {
    try {
      const reply = await withTimeout(this.#client.configGet('maxmemory-policy'), Math.max(this.#timeoutMs, 1_000));
      return reply['maxmemory-policy'];
    } catch {
      // Managed Redis services may refuse CONFIG: nothing to tell then.
      return undefined;
    }
  }

  take(policy: BucketPolicy, key: string, cost: number): Promise<BucketState> {
    return this.#run(policy, key, cost, 'take');
  }

  adjust(policy: BucketPolicy, key: string, delta: number): Promise<BucketState> {
    return this.#run(policy, key, delta, 'adjust');
  }

  /**
   * Reads how many instances are live (the connections to the budgets' Redis named CLIENT_NAME, this
   * one's included): what a request counted by this instance alone is charged times. Keeps the last
   * count when Redis does not answer in time, or refuses CLIENT LIST (as some managed services do).
   */
  async countReplicas(): Promise<number> {
    if (this.#suspended || !this.#client.isReady) return this.#replicas;
    try {
      const clients = await withTimeout(this.#client.clientList(), Math.max(this.#timeoutMs, 250));
      this.#replicas = Math.max(1, clients.filter((client) => client.name === CLIENT_NAME).length);
      this.#counted = true;
    } catch {
      // The count read last stands.
    }
    return this.#replicas;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#clockTimer);
    clearInterval(this.#counting);
    clearTimeout(this.#probe);
    if (this.#client.isOpen) await this.#client.close().catch(() => this.#client.destroy());
    else this.#client.destroy();
  }

  async #run(policy: BucketPolicy, key: string, cost: number, mode: 'take' | 'adjust'): Promise<BucketState> {
    const offset = this.#offsetMs;
    if (this.#suspended || offset === undefined || !this.#client.isReady || this.#inFlight >= MAX_IN_FLIGHT) return this.#inMemory(policy, key, cost, mode);
    this.#inFlight++;
    const last = this.#fallback.tatOf(policy, key);
    const floor = last === undefined ? '0' : String(Math.ceil(last + offset));
    const args = [String(intervalMs(policy)), String(toleranceMs(policy)), String(cost), mode, String(Math.floor(Date.now() + offset + this.#timeoutMs * 2)), floor];
    const command = this.#script(`gateway-budget:${policy.name}:${key}`, args) as Promise<ScriptReply>;
    try {
      const [applied, tat, now] = await withTimeout(command, this.#timeoutMs);
      if (applied === -1) return this.#inMemory(policy, key, cost, mode);
      // The shared state, kept in memory too: should Redis fail next, this instance goes on from it, not from a full bucket.
      this.#fallback.mirror(policy, key, Number(tat) - (now - Date.now()));
      // Refused: the script changed nothing, so bucket.ts' take() on its TAT tells the same wait.
      if (applied === 0) return take(policy, Number(tat), cost, now).state;
      return stateOf(policy, Number(tat), now, true);
    } catch (error) {
      if (!(error instanceof Timeout)) {
        this.#warn('rate limit store error', error);
        return this.#inMemory(policy, key, cost, mode);
      }
      // A timer that fired late says the event loop stalled, not that Redis did: Redis stays in use.
      if (error.lagMs < this.#timeoutMs / 2) this.#suspend();
      const charged = this.#alone(cost, mode);
      const state = this.#inMemory(policy, key, cost, mode);
      // Counted here now; should Redis still apply it (its reply only late), it is counted there and
      // taken back here, so a take is applied once.
      command.then(
        ([applied]) => {
          if (applied !== 1) return;
          // Applied in Redis after all: memory's count goes (or, for a take memory refused, Redis' too).
          if (mode === 'adjust' || state.allowed) this.#fallback.adjustNow(policy, key, -charged);
          else void this.adjust(policy, key, -cost);
        },
        () => undefined,
      );
      return state;
    } finally {
      this.#inFlight--;
    }
  }

  async #loadScript(): Promise<void> {
    try {
      this.#sha ??= await withTimeout(this.#client.scriptLoad(SCRIPT), Math.max(this.#timeoutMs, 1_000));
    } catch (error) {
      this.#warn('rate limit store: the budget script could not be loaded', error);
    }
  }

  async #script(key: string, args: string[]): Promise<unknown> {
    const options = { keys: [key], arguments: args };
    if (this.#sha === undefined) {
      this.#sha = await this.#client.scriptLoad(SCRIPT);
    }
    try {
      return await this.#client.evalSha(this.#sha, options);
    } catch (error) {
      // A Redis restarted since the script was loaded has forgotten it.
      if (error instanceof Error && error.message.startsWith('NOSCRIPT')) return this.#client.eval(SCRIPT, options);
      throw error;
    }
  }

  #inMemory(policy: BucketPolicy, key: string, cost: number, mode: 'take' | 'adjust'): BucketState {
    this.#observer?.recordStoreFailure();
    this.#failures++;
    const now = Date.now();
    if (now - this.#warnedAt >= WARNING_INTERVAL_MS) {
      this.#warnedAt = now;
      this.#logger.warn({ requests: this.#failures }, 'rate limit store unavailable: requests are counted by this instance alone');
      this.#failures = 0;
    }
    const charged = this.#alone(cost, mode);
    // An instance that reached the shared Redis but has not counted the others yet (its count late or
    // refused) cannot know its share of a bucket it never read from there: the others may have spent
    // it all. It starts that bucket spent and admits its refill only: a burst to each such instance
    // was one burst per instance. One that never reached Redis at all counts alone, as documented.
    if (mode === 'take' && this.#reached && !this.#counted && this.#fallback.tatOf(policy, key) === undefined) this.#fallback.mirror(policy, key, now + toleranceMs(policy));
    return mode === 'take' ? this.#fallback.takeNow(policy, key, charged) : this.#fallback.adjustNow(policy, key, charged);
  }

  /**
   * What a take or a charge counted by this instance alone costs the bucket it keeps: `cost` times
   * the live replicas, so that each admits only its share of the burst and the rate, and all of them
   * together no more than the shared bucket would. A refund is given back once (the reservation it
   * returns may have been taken in Redis, at its plain cost).
   */
  #alone(cost: number, mode: 'take' | 'adjust'): number {
    return mode === 'take' || cost > 0 ? cost * this.#replicas : cost;
  }

  /** No command is sent until Redis answers a probe again. */
  #suspend(): void {
    if (this.#suspended) return;
    this.#suspended = true;
    this.#scheduleProbe();
  }

  #scheduleProbe(): void {
    if (this.#closed) return;
    this.#probe = setTimeout(() => {
      void this.#measureClock().then((answered) => {
        if (answered) this.#suspended = false;
        else this.#scheduleProbe();
      });
    }, RESUME_PROBE_MS).unref();
  }

  /** Redis' clock against this process's, halfway through the round trip; false when Redis did not answer in time. */
  async #measureClock(): Promise<boolean> {
    if (!this.#client.isReady) return false;
    const sent = Date.now();
    try {
      const reply = await withTimeout(this.#client.time(), Math.max(this.#timeoutMs, 250));
      const received = Date.now();
      this.#offsetMs = timeMs(reply) - (sent + received) / 2;
      return true;
    } catch {
      return false;
    }
  }

  #warn(message: string, error: unknown): void {
    const now = Date.now();
    if (now - this.#warnedAt < WARNING_INTERVAL_MS) return;
    this.#warnedAt = now;
    this.#logger.warn({ err: error instanceof Error ? error.message : String(error) }, message);
  }
}
