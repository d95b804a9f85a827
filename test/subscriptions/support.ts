import pino from 'pino';
import { testConfig } from '../../src/settings/config.ts';
import { createContext } from '../../src/context.ts';
import { PolicyChain } from '../../src/platform/policy-chain.ts';
import { TokenVerdicts } from '../../src/platform/token-verdicts.ts';
import type { CallLedger } from '../../src/platform/request-calls.ts';
import type { FeedShare } from '../../src/subscriptions/share.ts';
import { SubscriptionHub, subscriptionSession, type PollClock, type SubscriptionSession } from '../../src/subscriptions/index.ts';
import type { FeedEvent } from '../../src/subscriptions/subscriber.ts';

/** A clock that moves only when the test moves it. */
export class ManualClock implements PollClock {
  #now = 0;
  #timers: { at: number; fn: () => void; cancelled: boolean }[] = [];

  now(): number {
    return this.#now;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const timer = { at: this.#now + ms, fn, cancelled: false };
    this.#timers.push(timer);
    return () => (timer.cancelled = true);
  }

  /** Timers waiting (not cancelled, not fired). */
  get pending(): number {
    return this.#timers.filter((timer) => !timer.cancelled).length;
  }

  /** Moves time by `ms` and fires the timers due, in order. */
  advance(ms: number): void {
    this.#now += ms;
    const due = this.#timers.filter((timer) => timer.at <= this.#now).sort((a, b) => a.at - b.at);
    this.#timers = this.#timers.filter((timer) => timer.at > this.#now);
    for (const timer of due) if (!timer.cancelled) timer.fn();
  }
}

export interface HubUnderTest {
  hub: SubscriptionHub;
  clock: ManualClock;
  http: PolicyChain;
  session(token: string | undefined): SubscriptionSession;
  /** Records of unreadable times the observer was told of, by field and count, in order. */
  unreadable: { field: string; count: number }[];
  /** The hub's warnings, as logged (JSON lines parsed). */
  warnings: Record<string, unknown>[];
  /** Resolves when the next `count` polls have ended (events queued). */
  polls(count?: number): Promise<('ok' | 'skipped' | 'failed' | 'received')[]>;
  close(): void;
}

export const POLL_MS = 1_000;

/** A hub over the platform at `url` on a manual clock, each poll's client made as the gateway makes it (createContext). */
export function hubOver(
  url: string,
  limits: Partial<{ perToken: number; max: number; queueLimit: number; bufferBytes: number }> = {},
  ledger?: (callerKey: string, clock: ManualClock) => CallLedger | undefined,
  share?: FeedShare,
): HubUnderTest {
  // No retries within a poll and a breaker slower to open than the tests' failing polls: each poll is one read.
  const config = testConfig({ UPSTREAM_RETRY_LIMIT: '0', UPSTREAM_BREAKER_THRESHOLD: '20' });
  const http = new PolicyChain(url, config.upstream, config.platformProtection);
  const tokens = new TokenVerdicts();
  const clock = new ManualClock();
  const outcomes: ('ok' | 'skipped' | 'failed' | 'received')[] = [];
  let waiter: { count: number; resolve: (outcomes: ('ok' | 'skipped' | 'failed' | 'received')[]) => void } | undefined;
  const unreadable: { field: string; count: number }[] = [];
  const warnings: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line) as Record<string, unknown>) });
  const hub = new SubscriptionHub({
    limits: { pollMs: POLL_MS, perToken: limits.perToken ?? 20, max: limits.max ?? 1_000, queueLimit: limits.queueLimit ?? 1_000, bufferBytes: limits.bufferBytes ?? 256 * 1024 * 1024 },
    client: (identity) => {
      return createContext({ config, http, logger: pino({ level: 'silent' }), tokens }, { authorization: identity.authorization }, undefined, ledger?.(`token:${identity.tokenKey}`, clock)).platform;
    },
    logger,
    clock,
    share,
    observer: {
      subscriptionOpened: () => undefined,
      subscriptionClosed: () => undefined,
      pollersChanged: () => undefined,
      eventsQueued: () => undefined,
      recordTimesUnreadable: (field, count) => void unreadable.push({ field, count }),
      polled: (outcome) => {
        outcomes.push(outcome);
        if (waiter !== undefined && outcomes.length >= waiter.count) {
          const done = waiter;
          waiter = undefined;
          done.resolve(outcomes.splice(0, done.count));
        }
      },
    },
  });
  return {
    hub,
    clock,
    http,
    unreadable,
    warnings,
    session: (token) => subscriptionSession(hub, token === undefined ? undefined : `Bearer ${token}`, 'sse'),
    polls: (count = 1) =>
      new Promise((resolve) => {
        if (outcomes.length >= count) return resolve(outcomes.splice(0, count));
        waiter = { count, resolve };
      }),
    close: () => {
      void hub.close();
      http.close();
    },
  };
}

/** Every event queued so far, without waiting for more. */
export async function drain(iterator: AsyncIterator<FeedEvent>, count: number): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  for (let n = 0; n < count; n++) {
    const next = await iterator.next();
    if (next.done) break;
    events.push(next.value);
  }
  return events;
}
