import { GraphQLError } from 'graphql';
import type { CursorOwner } from '../connections/owner-tag.ts';
import { platformTimestampMillis } from '../date-time.ts';
import { ErrorCode } from '../errors.ts';
import type { PlatformClient, Query } from '../platform/client.ts';
import { CallNotSent } from '../platform/upstream-call.ts';
import type { PollClock } from './clock.ts';
import { isAfter, sealFeedCursor, type FeedPosition } from './feed-cursor.ts';
import type { ListFeed, RecordFeed } from './feeds.ts';
import type { FeedEvent, Subscriber } from './subscriber.ts';
import type { FeedShare, PollOutcome } from './share.ts';
import type { PollTurns } from './turns.ts';
import type { PollWatch } from '../request/admission.ts';


/** Records a feed reads per page. */
const FEED_PAGE_SIZE = 50;
/**
 * Pages one poll reads at most: a further page is read only while a whole page is newer than the
 * oldest subscriber's position, so one poll sees at most 200 changes; past that, in one interval,
 * the oldest of them are not sent (docs/subscriptions.md).
 */
const MAX_FEED_PAGES = 4;
/** Failing polls in a row after which subscribers are told (a non-final error event), and again every as many. */
const FAILING_POLLS_TOLD = 5;
/** Polls in a row the caller's budget did not pay after which subscribers are told (once, until one is paid). */
const SKIPPED_POLLS_TOLD = 5;

/** Who a poller polls as: one token, never shared with another. */
export interface PollIdentity {
  /** `Bearer <token>`, in its one spelling. */
  readonly authorization: string;
  /** The token's key (SHA-256): the pollers and counts are per token. */
  readonly tokenKey: string;
  readonly caller: CursorOwner;
}

/** What a poller needs from its owner (the hub). */
export interface PollerHost {
  readonly clock: PollClock;
  readonly pollMs: number;
  /** A platform client for one poll, on the normal path of a query's calls (token gate, budget draw, breaker, retries). */
  client(identity: PollIdentity): PlatformClient;
  /** The platform refused the token: every subscription of it ends. */
  tokenRefused(tokenKey: string, error: GraphQLError): void;
  /** The last subscriber left. */
  stopped(poller: Poller): void;
  /** A poll was made (`outcome`; `received`: another replica made it), and `events` were queued. */
  polled(outcome: 'ok' | 'skipped' | 'failed' | 'received', events: number): void;
  /** A subscriber queue overflowed. */
  overflow(): GraphQLError;
  /**
   * A poll of `field` read `count` records whose time the date-time rule cannot read (`sample`, one
   * of them): they cannot be placed in the feed's order and are not sent. `first`: the first time for
   * this feed, which is logged; every one is counted.
   */
  unreadableTimes(field: string, count: number, sample: string, first: boolean): void;
  /** With several replicas: which one polls each feed, and how its outcomes reach the others (share.ts). */
  readonly share: FeedShare;
  /** Turns among one token's feeds when its budget cannot pay every poll (turns.ts). */
  readonly turns: PollTurns;
}

function codeOf(error: unknown): { error: GraphQLError; code: string | undefined } {
  const answer = error instanceof CallNotSent ? error.answer : error;
  if (answer instanceof GraphQLError) return { error: answer, code: answer.extensions.code as string | undefined };
  return { error: new GraphQLError('The platform could not be read', { extensions: { code: ErrorCode.UPSTREAM_ERROR } }), code: undefined };
}

/**
 * One poll loop shared by every subscriber of one token, field and normalised arguments: created by
 * the first subscriber (its first poll at once), counted by each, stopped by the last to leave.
 * Polls never overlap: the next is scheduled when one ends. A poll the budget cannot pay is skipped
 * and loses nothing (positions do not move); a failing one is retried at the next interval, and
 * subscribers are told once FAILING_POLLS_TOLD polls in a row have failed; the platform's 401 ends
 * every subscription of the token; a final error (a missing document) ends this poller's.
 */
export abstract class Poller<Member = unknown> {
  readonly key: string;
  readonly identity: PollIdentity;
  protected readonly host: PollerHost;
  #cancel: (() => void) | undefined;
  #stopped = false;
  #failures = 0;
  /** When the data last applied was read: an outcome read before it (delayed by a store that hung) is older news. */
  #appliedAt = -Infinity;
  /** The subscribers sharing this poller, each with what the feed keeps of it. */
  protected readonly members = new Map<Subscriber, Member>();
  /** Members whose subscribing request waits on its token's first answer. */
  readonly #watches = new Map<Subscriber, PollWatch>();

  constructor(key: string, identity: PollIdentity, host: PollerHost) {
    this.key = key;
    this.identity = identity;
    this.host = host;
  }

  get size(): number {
    return this.members.size;
  }

  /** Reads the platform: what the feed's subscribers may need of it now, as JSON-safe data. */
  protected abstract read(platform: PlatformClient): Promise<unknown>;
  /** Queues what `data` (read at `at`) holds for each subscriber; returns the events queued. */
  protected abstract apply(data: unknown, at: number): number;

  protected schedule(ms: number): void {
    if (this.#stopped) return;
    this.#cancel = this.host.clock.setTimer(ms, () => {
      this.#cancel = undefined;
      void this.tick();
    });
  }

  /**
   * One interval: this replica polls when it holds the feed's lease (always, with no shared store)
   * and hands the outcome to the other replicas; else they hand theirs to it (`receive`). Resolves
   * once the outcome's events are queued. Exposed for tests driving a manual clock.
   */
  async tick(): Promise<void> {
    if (this.#stopped) return;
    const lease = await this.host.share.lead(this.key, 2 * this.host.pollMs);
    // The last subscriber may have left while the lease was asked: nobody to poll for.
    if (this.#stopped) return;
    if (lease === true) {
      // A feed of this token owed more turns than this one polls first: this one is skipped in its favour.
      const outcome: PollOutcome = this.host.turns.mayPoll(this.identity.tokenKey, this) ? await this.#poll() : { kind: 'skipped' };
      if (this.#stopped) return;
      this.host.share.publish(this.key, outcome);
      if (!this.#take(outcome, true)) return;
      this.schedule(this.host.pollMs);
      return;
    }
    this.host.turns.settle(this.identity.tokenKey, this);
    // Another replica polls. Should it die, its lease runs out before this replica's next interval:
    // asked again then (a millisecond after), the lease is taken as soon as it is free.
    this.schedule(Math.min(this.host.pollMs, lease.heldForMs + 1));
  }

  /** An outcome another replica polled. */
  receive(outcome: PollOutcome): void {
    if (!this.#stopped) this.#take(outcome, false);
  }

  /** Counts a member's subscribing request in every poll from now on (it waits on its token's first answer). */
  watch(subscriber: Subscriber, watch: PollWatch): void {
    this.#watches.set(subscriber, watch);
  }

  async #poll(): Promise<PollOutcome> {
    const platform = this.host.client(this.identity);
    const reading = this.read(platform);
    if (this.#watches.size > 0) {
      // Counted for every request watching now, even one whose subscriber leaves before the platform answers.
      const watches = [...this.#watches.values()];
      const settled = reading.then(
        () => undefined,
        () => undefined,
      ).then(() => {
        for (const watch of watches) {
          watch.sent += platform.requestCalls.tally.sent;
          watch.pending.delete(settled);
        }
      });
      for (const watch of watches) watch.pending.add(settled);
    }
    try {
      const data = await reading;
      return { kind: 'data', data, at: this.host.clock.now() };
    } catch (thrown) {
      const { error, code } = codeOf(thrown);
      const shape = { message: error.message, extensions: { ...error.extensions } };
      if (code === ErrorCode.RATE_LIMITED) return { kind: 'skipped', retryAfter: typeof error.extensions.retryAfter === 'number' ? error.extensions.retryAfter : undefined };
      if (code === ErrorCode.UNAUTHENTICATED) return { kind: 'refused', error: shape };
      if (code === ErrorCode.NOT_FOUND || code === ErrorCode.FORBIDDEN || code === ErrorCode.BAD_USER_INPUT) return { kind: 'ended', error: shape };
      return { kind: 'failed', error: shape };
    }
  }

  /** Applies an outcome; false when the feed is over. `polled`: this replica made the poll (metrics count polls where they are made). */
  #take(outcome: PollOutcome, polled: boolean): boolean {
    switch (outcome.kind) {
      case 'data': {
        // Another replica's outcome held up in a store that hung reaches this one after its own newer polls.
        if (!polled && outcome.at < this.#appliedAt) return true;
        this.#appliedAt = outcome.at;
        if (polled) this.host.turns.settle(this.identity.tokenKey, this);
        const events = this.apply(outcome.data, outcome.at);
        this.#failures = 0;
        this.host.polled(polled ? 'ok' : 'received', events);
        return true;
      }
      case 'skipped':
        if (polled) {
          this.host.polled('skipped', 0);
          if (this.host.turns.skipped(this.identity.tokenKey, this) === SKIPPED_POLLS_TOLD) this.#tellSkipped(outcome.retryAfter);
        }
        return true;
      case 'refused':
        if (polled) this.host.polled('failed', 0);
        this.host.tokenRefused(this.identity.tokenKey, new GraphQLError(outcome.error.message, { extensions: outcome.error.extensions }));
        return false;
      case 'ended':
        if (polled) this.host.polled('failed', 0);
        this.endAll(new GraphQLError(outcome.error.message, { extensions: outcome.error.extensions }));
        return false;
      case 'failed': {
        // A failed poll was paid for: it was this feed's turn.
        if (polled) {
          this.host.polled('failed', 0);
          this.host.turns.settle(this.identity.tokenKey, this);
        }
        this.#failures += 1;
        if (this.#failures % FAILING_POLLS_TOLD === 0) {
          const told = new GraphQLError(`${outcome.error.message} (the last ${this.#failures} polls failed; the subscription goes on and retries every interval)`, {
            extensions: { ...outcome.error.extensions, failedPolls: this.#failures },
          });
          const event: FeedEvent = { error: told, final: false };
          for (const subscriber of this.members.keys()) subscriber.push(event, () => this.host.overflow());
        }
        return true;
      }
    }
  }

  /** Tells every subscriber, once, that the token's budget has not paid this feed's last polls: its changes are late, not lost. */
  #tellSkipped(retryAfter: number | undefined): void {
    const told = new GraphQLError(`This token's budget of platform calls has not paid this feed's last ${SKIPPED_POLLS_TOLD} polls: its changes come late, none is lost; the token's feeds take turns on what the budget pays (fewer feeds, or a larger budget, make them timely)`, {
      extensions: { code: ErrorCode.RATE_LIMITED, limit: 'RATE_LIMIT_PER_SECOND', skippedPolls: SKIPPED_POLLS_TOLD, retryAfter: retryAfter ?? Math.ceil(this.host.pollMs / 1_000) },
    });
    const event: FeedEvent = { error: told, final: false };
    for (const subscriber of this.members.keys()) subscriber.push(event, () => this.host.overflow());
  }

  /** Ends every subscriber with `error` (final). */
  endAll(error: GraphQLError): void {
    for (const subscriber of [...this.members.keys()]) subscriber.end({ error, final: true });
    this.stop();
  }

  /** A subscriber left (its stream closed, or it ended). */
  leave(subscriber: Subscriber): void {
    this.members.delete(subscriber);
    this.#watches.delete(subscriber);
    if (this.size === 0) this.stop();
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.host.share.release(this.key);
    this.host.turns.settle(this.identity.tokenKey, this);
    this.#cancel?.();
    this.#cancel = undefined;
    this.host.stopped(this);
  }

  get stoppedNow(): boolean {
    return this.#stopped;
  }

  /** Starts the loop: the first poll at once. */
  start(): void {
    this.schedule(0);
  }
}

interface ListMember {
  /** Where this subscriber stands; undefined until the first poll says where the list's head is. */
  position: FeedPosition | undefined;
}

/** A feed over a list: each record that changed after each subscriber's position, oldest first, with its cursor. */
export class ListPoller<R extends { readonly id: string }> extends Poller<ListMember> {
  readonly #feed: ListFeed<R>;
  readonly #query: Query;
  readonly #binding: Buffer;
  /** The list's newest (time, id) at the last poll: where a subscriber without a cursor starts. */
  #head: FeedPosition | undefined;
  /** Whether this feed has logged a record time it cannot read (once per feed; the metric counts each). */
  #toldUnreadable = false;

  constructor(key: string, identity: PollIdentity, host: PollerHost, feed: ListFeed<R>, query: Query, binding: Buffer) {
    super(key, identity, host);
    this.#feed = feed;
    this.#query = query;
    this.#binding = binding;
  }

  /** A subscriber from `after` (a cursor's position), else from the list's head as the poller last saw it, or as its next poll sees it. */
  join(subscriber: Subscriber, after: FeedPosition | undefined): void {
    this.members.set(subscriber, { position: after ?? this.#head });
  }

  #positionOf(record: R): FeedPosition | undefined {
    const time = this.#feed.time(record);
    const ms = time == null ? null : platformTimestampMillis(time);
    return ms === null ? undefined : { ms, id: record.id };
  }

  /** The records newer than the oldest subscriber's position (or the head, when none has one yet): whole pages, at most MAX_FEED_PAGES. */
  protected async read(platform: PlatformClient): Promise<readonly R[]> {
    let oldest: FeedPosition | undefined;
    for (const member of this.members.values()) {
      if (member.position !== undefined && (oldest === undefined || isAfter(oldest, member.position))) oldest = member.position;
    }
    const records: R[] = [];
    let unreadable = 0;
    let sample = '';
    for (let index = 0; index < MAX_FEED_PAGES; index++) {
      const page = await this.#feed.page(platform, this.#query, index, FEED_PAGE_SIZE);
      let wholePageNewer = page.length === FEED_PAGE_SIZE;
      for (const record of page) {
        records.push(record);
        const position = this.#positionOf(record);
        if (position === undefined && unreadable++ === 0) sample = String(this.#feed.time(record));
        if (oldest === undefined || position === undefined || !isAfter(position, oldest)) wholePageNewer = false;
      }
      if (!wholePageNewer) break;
    }
    // Counted where the poll is made (read runs on the replica that polls), never skipped in silence.
    if (unreadable > 0) {
      this.host.unreadableTimes(this.#feed.field, unreadable, sample, !this.#toldUnreadable);
      this.#toldUnreadable = true;
    }
    return records;
  }

  protected apply(data: unknown): number {
    const seen: { record: R; position: FeedPosition }[] = [];
    for (const record of data as readonly R[]) {
      const position = this.#positionOf(record);
      if (position !== undefined) seen.push({ record, position });
    }
    // Oldest change first; equal times by id, the order positions compare in.
    seen.sort((a, b) => (isAfter(a.position, b.position) ? 1 : isAfter(b.position, a.position) ? -1 : 0));
    const newest = seen.at(-1)?.position;
    if (newest !== undefined && (this.#head === undefined || isAfter(newest, this.#head))) this.#head = newest;

    let events = 0;
    // One event per record, whoever receives it: a position names the record, not the subscriber, and
    // subscribers running the same document share the event's execution (src/http/subscribe.ts).
    const recordEvents = new Map<R, FeedEvent>();
    for (const [subscriber, member] of this.members) {
      if (member.position === undefined) {
        member.position = this.#head;
        continue;
      }
      for (const { record, position } of seen) {
        if (!isAfter(position, member.position)) continue;
        let event = recordEvents.get(record);
        if (event === undefined) {
          event = { value: { cursor: sealFeedCursor(this.#binding, this.identity.caller, position), node: record } };
          recordEvents.set(record, event);
        }
        if (!subscriber.push(event, () => this.host.overflow())) break;
        member.position = position;
        events += 1;
      }
    }
    return events;
  }
}

interface RecordMember {
  /** The fingerprint of the record last sent to this subscriber. */
  sent: string | undefined;
}

/** A feed over one record: the record now, then each time it changes. */
export class RecordPoller<R> extends Poller<RecordMember> {
  readonly #feed: RecordFeed<R, unknown>;
  readonly #id: string;
  /** The record at the last poll, with its fingerprint and when it was received. */
  #last: { record: R; fingerprint: string; receivedAt: number } | undefined;

  constructor(key: string, identity: PollIdentity, host: PollerHost, feed: RecordFeed<R, unknown>, id: string) {
    super(key, identity, host);
    this.#feed = feed;
    this.#id = id;
  }

  /** A subscriber gets the record at once when the poller has it (read within the last interval), else at the next poll. */
  join(subscriber: Subscriber): void {
    const member: RecordMember = { sent: undefined };
    this.members.set(subscriber, member);
    const last = this.#last;
    if (last !== undefined && subscriber.push({ value: this.#feed.value(last.record, last.receivedAt) }, () => this.host.overflow())) member.sent = last.fingerprint;
  }

  protected read(platform: PlatformClient): Promise<unknown> {
    return this.#feed.read(platform, this.#id);
  }

  protected apply(data: unknown, receivedAt: number): number {
    const record = data as R;
    const fingerprint = this.#feed.fingerprint(record);
    this.#last = { record, fingerprint, receivedAt };
    let events = 0;
    // One event for every subscriber it goes to, so that those running the same document share its execution.
    let event: FeedEvent | undefined;
    for (const [subscriber, member] of this.members) {
      if (member.sent === fingerprint) continue;
      event ??= { value: this.#feed.value(record, receivedAt) };
      if (subscriber.push(event, () => this.host.overflow())) {
        member.sent = fingerprint;
        events += 1;
      }
    }
    return events;
  }
}
