import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { withTimeout } from '../shared-state/timeout.ts';
import type { FeedShare, LeaseHeld, PollOutcome, Seat, SeatRefusal, SharedSeats } from './share.ts';

/** The commands of node-redis this uses (its client and the duplicate it subscribes on). */
interface RedisClient {
  connect(): Promise<unknown>;
  duplicate(): RedisClient;
  sendCommand<T = unknown>(args: string[]): Promise<T>;
  publish(channel: string, message: string): Promise<number>;
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  unsubscribe(channel: string, listener?: (message: string) => void): Promise<void>;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  close(): Promise<void>;
  destroy(): void;
  readonly isReady: boolean;
}

/**
 * The lease rule of share.ts's claimLease, run in Redis: takes the lease when it is free or already
 * this replica's (a lapsed one is gone: PX expired it), for PX milliseconds: -1 when taken;
 * when another replica holds it, the milliseconds its lease has left. A lease key without an expiry
 * (PTTL's own -1, never one of ours) counts as held for a whole lease, so -1 says only "taken" and
 * such a key is not asked about again every millisecond.
 */
const LEAD = `local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return -1
end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then return tonumber(ARGV[2]) end
return left`;

/**
 * Takes a seat (an open subscription) when neither count is full: KEYS[1] the token's seats, KEYS[2]
 * every seat, sorted sets of seat ids scored by when each lapses (Redis's own clock, so replicas'
 * clocks do not matter). Seats of a replica that died lapse with their lease (ARGV[2]); a live one
 * renews its seats well before. 0: taken; 1: the token's count is full; 2: every replica's is.
 */
const SEAT = `local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ms)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 2 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 1 end
local lapses = ms + tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], lapses, ARGV[1])
redis.call('ZADD', KEYS[2], lapses, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 0`;

/** Renews this replica's seats: ARGV[1] the lease, then each seat's token key (KEYS) and id (ARGV). */
const RENEW = `local now = redis.call('TIME')
local lapses = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) + tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  if i > 1 then
    redis.call('ZADD', key, 'XX', lapses, ARGV[i])
    redis.call('ZADD', KEYS[1], 'XX', lapses, ARGV[i])
    redis.call('PEXPIRE', key, ARGV[1])
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 0`;

/** Every replica's seats, and each token's (by its key, hashed again: no token text reaches Redis). */
const ALL_SEATS = 'gateway-seats';
const tokenSeats = (tokenKey: string) => `gateway-seats:${createHash('sha256').update(tokenKey).digest('base64url')}`;
/** How long a seat lasts without renewal: a replica that dies gives its seats back within this. */
const SEAT_LEASE_MS = 30_000;
/** Seats are renewed this often, so a live replica's never lapse between two renewals. */
const SEAT_RENEW_MS = 10_000;

/** Gives the lease up, only when this replica holds it. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** The Redis names of a feed: its poller key (a token's key, a field, a query) hashed, so neither holds client text. */
function names(key: string): { lease: string; channel: string } {
  const hash = createHash('sha256').update(key).digest('base64url');
  return { lease: `gateway-feed-lease:${hash}`, channel: `gateway-feed:${hash}` };
}

/**
 * One poller per feed across every replica on one Redis (REDIS_URL): the replica whose poller takes
 * a feed's lease (SET … PX, renewed by each of its polls) polls, and publishes each poll's outcome
 * on the feed's channel; the others' pollers apply what they receive to their own subscribers. The
 * lease lasts two intervals: a replica that finds another's lease asks again when it runs out (or
 * at its next interval, whichever is first), so when the polling replica dies, another takes the
 * lease within two intervals of its last poll and polls from its own subscribers' places: no change
 * is missed. A replica that cannot reach Redis polls for itself (as it would alone): subscribers are
 * served either way. So does a replica not yet listening on a feed's channel (Redis was down when the
 * feed opened): it would miss the outcomes another replica publishes, so it never defers to that
 * replica's lease.
 * A Redis that hangs (stopped, swapping, its host unreachable while the socket stays open) is one
 * that cannot be reached: a lead waits at most `timeoutMs` (SUBSCRIPTION_STORE_TIMEOUT_MS) for its
 * channel's subscription and its lease, then this replica polls for itself that interval, and asks
 * again at the next; once Redis answers, the lease is taken back as usual.
 * Start-up does not wait for Redis: the clients connect (and reconnect) in the background.
 */
export class RedisFeedShare implements FeedShare, SharedSeats {
  readonly seats: SharedSeats = this;
  /** This replica's seats: id → its token's seats key. */
  readonly #seats = new Map<string, string>();
  #seatCount = 0;
  readonly #renewal: ReturnType<typeof setInterval>;
  readonly #client: RedisClient;
  readonly #subscriber: RedisClient;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  /** This replica, in the lease and in each message, so it ignores its own. */
  readonly #replica = randomBytes(9).toString('base64url');
  #warnedAt = 0;
  /** The channels this replica's pollers listen on, and which of them Redis confirmed. */
  readonly #wanted = new Map<string, (message: string) => void>();
  readonly #confirmed = new Set<string>();
  /** Subscriptions sent and not yet answered, by channel: a lead waits for this replica's own. */
  readonly #pending = new Map<string, Promise<void>>();

  private constructor(client: RedisClient, subscriber: RedisClient, logger: Logger, timeoutMs: number) {
    this.#client = client;
    this.#subscriber = subscriber;
    this.#logger = logger;
    this.#timeoutMs = timeoutMs;
    this.#renewal = setInterval(() => this.#renew(), SEAT_RENEW_MS);
    this.#renewal.unref();
  }

  static async connect(url: string, logger: Logger, timeoutMs: number): Promise<RedisFeedShare> {
    const { createClient } = await import('@redis/client');
    const client = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000) } }) as unknown as RedisClient;
    const subscriber = client.duplicate();
    const share = new RedisFeedShare(client, subscriber, logger, timeoutMs);
    client.on('error', (error) => share.#warn(error));
    subscriber.on('error', (error) => share.#warn(error));
    // A channel whose subscription failed while Redis was away is subscribed once it is back.
    subscriber.on('ready', () => {
      for (const [channel, listener] of share.#wanted) if (!share.#confirmed.has(channel)) share.#subscribe(channel, listener);
    });
    // Not awaited: a gateway starts, and serves every feed alone, while Redis is down.
    Promise.all([client.connect(), subscriber.connect()]).catch((error: unknown) => share.#warn(error));
    return share;
  }

  #subscribe(channel: string, listener: (message: string) => void): void {
    const pending = this.#subscriber
      .subscribe(channel, listener)
      .then(
        () => {
          if (this.#wanted.get(channel) === listener) this.#confirmed.add(channel);
        },
        (error: unknown) => this.#warn(error),
      )
      .finally(() => {
        if (this.#pending.get(channel) === pending) this.#pending.delete(channel);
      });
    this.#pending.set(channel, pending);
  }

  #warn(error: unknown): void {
    const now = Date.now();
    if (now - this.#warnedAt < 10_000) return;
    this.#warnedAt = now;
    this.#logger.warn({ err: error }, 'subscriptions: the shared Redis (REDIS_URL) failed; this replica polls its feeds itself meanwhile');
  }

  async lead(key: string, ttlMs: number): Promise<true | LeaseHeld> {
    const { channel, lease } = names(key);
    // A subscription of this replica's still on its way is waited for, up to the timeout: answered, it
    // decides whether this replica may defer to another's lease; refused or late, it polls for itself.
    const pending = this.#pending.get(channel);
    if (pending !== undefined) await withTimeout(pending, this.#timeoutMs).catch(() => undefined);
    if (!this.#client.isReady || !this.#confirmed.has(channel)) return true;
    try {
      const left = await withTimeout(this.#client.sendCommand<number>(['EVAL', LEAD, '1', lease, this.#replica, String(ttlMs)]), this.#timeoutMs);
      return left === -1 ? true : { heldForMs: left };
    } catch (error) {
      this.#warn(error);
      return true;
    }
  }

  /** A seat counted across every replica on this Redis; Redis away or late: undefined (this replica's own counts decide). */
  async take(tokenKey: string, limits: { readonly perToken: number; readonly max: number }): Promise<Seat | SeatRefusal | undefined> {
    if (!this.#client.isReady) return undefined;
    const id = `${this.#replica}:${(this.#seatCount = (this.#seatCount + 1) % Number.MAX_SAFE_INTEGER)}`;
    const key = tokenSeats(tokenKey);
    let answer: number;
    try {
      answer = await withTimeout(this.#client.sendCommand<number>(['EVAL', SEAT, '2', key, ALL_SEATS, id, String(SEAT_LEASE_MS), String(limits.perToken), String(limits.max)]), this.#timeoutMs);
    } catch (error) {
      this.#warn(error);
      // Taken after all, should the answer come late: given back.
      this.#unseat(key, id);
      return undefined;
    }
    if (answer === 1) return 'SUBSCRIPTIONS_PER_TOKEN';
    if (answer === 2) return 'MAX_SUBSCRIPTIONS';
    this.#seats.set(id, key);
    return {
      release: () => {
        if (this.#seats.delete(id)) this.#unseat(key, id);
      },
    };
  }

  #unseat(key: string, id: string): void {
    if (!this.#client.isReady) return;
    Promise.all([this.#client.sendCommand(['ZREM', key, id]), this.#client.sendCommand(['ZREM', ALL_SEATS, id])]).catch((error: unknown) => this.#warn(error));
  }

  #renew(): void {
    if (this.#seats.size === 0 || !this.#client.isReady) return;
    const keys = [ALL_SEATS];
    const args = [String(SEAT_LEASE_MS)];
    for (const [id, key] of this.#seats) {
      keys.push(key);
      args.push(id);
    }
    this.#client.sendCommand(['EVAL', RENEW, String(keys.length), ...keys, ...args]).catch((error: unknown) => this.#warn(error));
  }

  publish(key: string, outcome: PollOutcome): void {
    if (!this.#client.isReady) return;
    this.#client.publish(names(key).channel, JSON.stringify({ from: this.#replica, outcome })).catch((error: unknown) => this.#warn(error));
  }

  listen(key: string, receive: (outcome: PollOutcome) => void): () => void {
    const { channel } = names(key);
    const listener = (message: string) => {
      let parsed: { from?: unknown; outcome?: PollOutcome };
      try {
        parsed = JSON.parse(message) as typeof parsed;
      } catch {
        return;
      }
      if (parsed.from !== this.#replica && parsed.outcome !== undefined) receive(parsed.outcome);
    };
    this.#wanted.set(channel, listener);
    if (this.#subscriber.isReady) this.#subscribe(channel, listener);
    return () => {
      this.#wanted.delete(channel);
      this.#confirmed.delete(channel);
      this.#pending.delete(channel);
      if (this.#subscriber.isReady) this.#subscriber.unsubscribe(channel, listener).catch((error: unknown) => this.#warn(error));
    };
  }

  release(key: string): void {
    if (!this.#client.isReady) return;
    this.#client.sendCommand(['EVAL', RELEASE, '1', names(key).lease, this.#replica]).catch((error: unknown) => this.#warn(error));
  }

  async close(): Promise<void> {
    clearInterval(this.#renewal);
    await Promise.all([this.#client, this.#subscriber].map((client) => (client.isReady ? client.close().catch(() => client.destroy()) : client.destroy())));
  }
}
