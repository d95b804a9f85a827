import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { startSandbox, type ExceptionRecord, type Sandbox } from '../../sandbox/index.ts';
import { exceptionFeed, exceptionFeedQuery } from '../../src/exceptions/feeds.ts';
import { documentFeed } from '../../src/documents/feeds.ts';
import { linxBatchFeed, linxBatchFeedQuery } from '../../src/linx/feeds.ts';
import type { FeedEvent, Subscriber } from '../../src/subscriptions/subscriber.ts';
import type { PlatformStore } from '../../sandbox/data/store.ts';
import { accountOf } from '../support/expected.ts';
import { MemoryBuckets, type BucketPolicy } from '../../src/budgets/bucket.ts';
import { RequestBudget } from '../../src/budgets/ledger.ts';
import type { FeedShare } from '../../src/subscriptions/share.ts';
import { drain, hubOver, POLL_MS, type HubUnderTest } from './support.ts';

const ACME = 'demo-token-acme';
const GLOBEX = 'demo-token-globex';

let sandbox: Sandbox;
let under: HubUnderTest;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
afterEach(() => under?.close());

function fresh(limits?: Parameters<typeof hubOver>[1], ledger?: Parameters<typeof hubOver>[2]): HubUnderTest {
  sandbox.store.reset();
  sandbox.faults.clear();
  sandbox.resetRequests();
  under = hubOver(sandbox.url, limits, ledger);
  return under;
}

/** Every poll's client draws from one bucket store on the test's clock, under `policy`; `keys` collects the callers asked for. */
function budgeted(policy: BucketPolicy, keys: string[] = []): Parameters<typeof hubOver>[2] {
  let buckets: MemoryBuckets | undefined;
  return (callerKey, manual) => {
    buckets ??= new MemoryBuckets(100, () => manual.now());
    keys.push(callerKey);
    return new RequestBudget(buckets, policy, callerKey);
  };
}

/** An assignee filter's id, one per feed of a test that opens many. */
const assignee = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** The GET paths the sandbox received, in order. */
const reads = () => sandbox.requests.map((request) => `${request.method} ${request.path}`);

/** What a live step changed in `account`'s exceptions, as the feed sends it: oldest first, equal times by id. */
function changedExceptions(account: string, updatedAt: string): ExceptionRecord[] {
  return sandbox.store.exceptions(account).filter((record) => record.updatedAt === updatedAt).sort((a, b) => (a.id < b.id ? -1 : 1));
}

const nodes = (events: readonly FeedEvent[]) => events.map((event) => ('value' in event ? (event.value as { node: ExceptionRecord }).node.id : event.error.message));

describe('one shared poller per token, field and arguments', () => {
  it('reads the platform once per interval for every subscriber of the same feed, and sends each the same changes, oldest first', async () => {
    const { hub, clock, session, polls } = fresh();
    const acme = accountOf(sandbox, ACME);
    const subscribers = [0, 1, 2].map(() => hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery(null), null));
    // The same filter spelt differently is the same feed.
    subscribers.push(hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery({ status: [] }), undefined));
    expect(hub.pollers).toBe(1);

    clock.advance(0);
    expect(await polls()).toEqual(['ok']);
    expect(reads()).toEqual(['GET /exceptions']);
    expect(subscribers.map((subscriber) => subscriber.queued)).toEqual([0, 0, 0, 0]);

    sandbox.live.step();
    clock.advance(POLL_MS);
    expect(await polls()).toEqual(['ok']);
    expect(reads()).toEqual(['GET /exceptions', 'GET /exceptions']);
    expect(sandbox.requests[1]!.query).toBe('page=0&size=50&sort=updatedAt%2CDESC');
    const expected = changedExceptions(acme, '2026-10-08T00:01:00.000+0000').map((record) => record.id);
    expect(expected.length).toBeGreaterThan(0);
    for (const subscriber of subscribers) expect(nodes(await drain(subscriber, expected.length))).toEqual(expected);

    // Nothing changed: nothing sent, one read.
    clock.advance(POLL_MS);
    expect(await polls()).toEqual(['ok']);
    expect(reads()).toHaveLength(3);
    expect(subscribers.map((subscriber) => subscriber.queued)).toEqual([0, 0, 0, 0]);
  });

  it('never shares a poller across tokens, and stops a poller when its last subscriber leaves', async () => {
    const { hub, clock, session, polls } = fresh();
    const mine = hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery(null), null);
    const theirs = hub.openList(session(GLOBEX), exceptionFeed, exceptionFeedQuery(null), null);
    expect(hub.pollers).toBe(2);
    clock.advance(0);
    expect(await polls(2)).toEqual(['ok', 'ok']);
    expect(sandbox.requests.map((request) => request.authorization).sort()).toEqual([`Bearer ${ACME}`, `Bearer ${GLOBEX}`]);

    await mine.return();
    expect([hub.pollers, hub.open]).toEqual([1, 1]);
    await theirs.return();
    expect([hub.pollers, hub.open, clock.pending]).toEqual([0, 0, 0]);
    clock.advance(10 * POLL_MS);
    expect(reads()).toHaveLength(2);
  });

  it('resumes from an edge cursor: the changes after it, nothing before it again', async () => {
    const { hub, clock, session, polls } = fresh();
    const acme = accountOf(sandbox, ACME);
    const first = hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery(null), null);
    clock.advance(0);
    await polls();
    sandbox.live.step();
    sandbox.live.step();
    clock.advance(POLL_MS);
    await polls();
    const expected = [
      ...changedExceptions(acme, '2026-10-08T00:01:00.000+0000'),
      ...changedExceptions(acme, '2026-10-08T00:02:00.000+0000'),
    ].map((record) => record.id);
    const events = await drain(first, expected.length);
    expect(nodes(events)).toEqual(expected);
    await first.return();

    // A client back with the first edge's cursor gets every later change at the next poll.
    const cursor = (events[0] as { value: { cursor: string } }).value.cursor;
    const again = hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery(null), cursor);
    clock.advance(0);
    await polls();
    expect(nodes(await drain(again, expected.length - 1))).toEqual(expected.slice(1));
    expect(again.queued).toBe(0);
  });

  it('refuses bad arguments, another feed\'s or caller\'s cursor and a caller over its limit before any platform call', async () => {
    const { hub, clock, session, polls } = fresh({ perToken: 1 });
    const one = hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery(null), null);
    clock.advance(0);
    await polls();
    sandbox.live.step();
    clock.advance(POLL_MS);
    await polls();
    const cursor = ((await drain(one, 1))[0] as { value: { cursor: string } }).value.cursor;
    await one.return();
    sandbox.resetRequests();

    const refusal = (open: () => Subscriber) => {
      try {
        open();
      } catch (error) {
        return (error as { extensions: Record<string, unknown> }).extensions;
      }
      throw new Error('not refused');
    };
    expect(refusal(() => hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery({ status: ['NEW'] }), cursor))).toEqual({ code: 'BAD_USER_INPUT', argumentName: 'after', reason: 'CURSOR_OTHER_CONNECTION' });
    expect(refusal(() => hub.openList(session(GLOBEX), exceptionFeed, exceptionFeedQuery(null), cursor))).toEqual({ code: 'BAD_USER_INPUT', argumentName: 'after', reason: 'CURSOR_OTHER_CALLER' });
    expect(refusal(() => hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery(null), `${cursor.slice(0, -2)}AA`))).toEqual({ code: 'BAD_USER_INPUT', argumentName: 'after', reason: 'CURSOR_TAMPERED' });
    expect(refusal(() => hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery(null), 'nonsense'))).toEqual({ code: 'BAD_USER_INPUT', argumentName: 'after', reason: 'CURSOR_MALFORMED' });
    expect(refusal(() => hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery({ timeZone: 'Mars/Olympus' }), null))).toEqual({ code: 'BAD_USER_INPUT', field: ['filter', 'timeZone'] });
    expect(refusal(() => hub.openList(session(ACME), linxBatchFeed, linxBatchFeedQuery({ templateId: 't', templateVersionId: 'v', status: 'ACTIVE' }), null))).toEqual({ code: 'BAD_USER_INPUT', field: ['filter', 'status'] });
    expect(refusal(() => hub.openRecord(session(ACME), documentFeed, '..'))).toEqual({ code: 'BAD_USER_INPUT' });
    expect(refusal(() => hub.openList(session(undefined), exceptionFeed, exceptionFeedQuery(null), null))).toEqual({ code: 'UNAUTHENTICATED' });
    hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery(null), null);
    expect(refusal(() => hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery(null), null))).toEqual({ code: 'RATE_LIMITED', limit: 'SUBSCRIPTIONS_PER_TOKEN' });
    expect(sandbox.requests).toEqual([]);
  });

  it('sends a document now, then only when a field other than its content URLs changes', async () => {
    const { hub, clock, session, polls } = fresh();
    const id = sandbox.examples().documentsByStatus.find((document) => document.status === 'UPLOADED')!.id;
    const subscriber = hub.openRecord(session(ACME), documentFeed, id);
    clock.advance(0);
    await polls();
    const [now] = await drain(subscriber, 1);
    expect(now).toMatchObject({ value: { id, status: 'UPLOADED', receivedAt: 0 } });
    // Read again a second later: new URL signatures, same document.
    clock.advance(POLL_MS);
    await polls();
    expect(subscriber.queued).toBe(0);
    (sandbox.store as PlatformStore).saveDocument({ ...sandbox.store.document(id)!, status: 'SCANNED', updatedAt: '2026-11-01T00:00:00.000+0000' });
    clock.advance(POLL_MS);
    await polls();
    expect(await drain(subscriber, 1)).toMatchObject([{ value: { id, status: 'SCANNED', updatedAt: '2026-11-01T00:00:00.000+0000', receivedAt: 2 * POLL_MS } }]);
    // A late subscriber gets the document at once, from the last poll.
    const late = hub.openRecord(session(ACME), documentFeed, id);
    expect(late.queued).toBe(1);
    expect(reads()).toEqual([`GET /v1/documents/${id}`, `GET /v1/documents/${id}`, `GET /v1/documents/${id}`]);
  });

  it('applies no outcome from another replica that was read before its own last one (held up in a store that hung)', async () => {
    const { hub, clock, session, polls } = fresh();
    const id = sandbox.examples().documentsByStatus.find((document) => document.status === 'UPLOADED')!.id;
    const subscriber = hub.openRecord(session(ACME), documentFeed, id);
    clock.advance(POLL_MS);
    await polls();
    const [uploaded] = await drain(subscriber, 1);
    expect(uploaded).toMatchObject({ value: { id, status: 'UPLOADED', receivedAt: POLL_MS } });
    (sandbox.store as PlatformStore).saveDocument({ ...sandbox.store.document(id)!, status: 'SCANNED', updatedAt: '2026-11-01T00:00:00.000+0000' });
    clock.advance(POLL_MS);
    await polls();
    expect(await drain(subscriber, 1)).toMatchObject([{ value: { id, status: 'SCANNED', receivedAt: 2 * POLL_MS } }]);

    // The other replica's poll of the document as it was, read before this one's, arrives now.
    const poller = hub.poller(`${session(ACME).identity!.tokenKey}\0documentChanged\0${id}`)!;
    const stale = (uploaded as { value: { receivedAt: number } }).value;
    poller.receive({ kind: 'data', data: { ...stale, receivedAt: undefined }, at: POLL_MS / 2 });
    expect(subscriber.queued).toBe(0);
    // One read after it is news.
    poller.receive({ kind: 'data', data: { ...stale, receivedAt: undefined }, at: 3 * POLL_MS });
    expect(subscriber.queued).toBe(1);
  });

  it('ends a missing or foreign document with NOT_FOUND, and every subscription of a token the platform refuses with UNAUTHENTICATED', async () => {
    const { hub, clock, session, polls } = fresh();
    const foreign = sandbox.examples(accountOf(sandbox, GLOBEX)).documentsByStatus[0]!.id;
    const document = hub.openRecord(session(ACME), documentFeed, foreign);
    clock.advance(0);
    await polls();
    expect(await drain(document, 2)).toMatchObject([{ final: true, error: { extensions: { code: 'NOT_FOUND' } } }]);
    expect(hub.pollers).toBe(0);

    const made = [0, 1].map(() => hub.openList(session('made-up-token'), exceptionFeed, exceptionFeedQuery(null), null));
    made.push(hub.openRecord(session('made-up-token'), documentFeed, foreign));
    expect(hub.pollers).toBe(2);
    clock.advance(0);
    await polls();
    for (const subscriber of made) expect(await drain(subscriber, 2)).toMatchObject([{ final: true, error: { extensions: { code: 'UNAUTHENTICATED' } } }]);
    expect([hub.pollers, hub.open]).toEqual([0, 0]);
  });

  it('retries a failing platform at each interval and tells subscribers after five failing polls, without ending them', async () => {
    const { hub, clock, session, polls } = fresh();
    const subscriber = hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery(null), null);
    clock.advance(0);
    await polls();
    sandbox.faults.set('exceptions', { status: 503, times: 5 });
    for (let n = 0; n < 5; n++) {
      clock.advance(POLL_MS);
      expect(await polls()).toEqual(['failed']);
    }
    expect(await drain(subscriber, 1)).toMatchObject([{ final: false, error: { extensions: { code: 'UPSTREAM_ERROR', failedPolls: 5 } } }]);
    sandbox.live.step();
    clock.advance(POLL_MS);
    expect(await polls()).toEqual(['ok']);
    expect(subscriber.queued).toBeGreaterThan(0);
    expect(subscriber.ended).toBe(false);
  });

  it('counts every record whose time cannot be read, logs it once per feed, and sends the records it can place', async () => {
    const { hub, clock, session, polls, unreadable, warnings } = fresh();
    const acme = accountOf(sandbox, ACME);
    // The exceptions feed, with one record's time spelt as no contract date-time is, once it has changed.
    const unplaceable = new Set<string>();
    const feed = { ...exceptionFeed, time: (record: ExceptionRecord) => (unplaceable.has(record.id) ? 'Tue, 08 Oct 2026 00:01:00 GMT' : record.updatedAt) };
    const subscriber = hub.openList(session(ACME), feed, exceptionFeedQuery(null), null);
    clock.advance(0);
    expect(await polls()).toEqual(['ok']);
    expect(unreadable).toEqual([]);

    sandbox.live.step();
    const changed = changedExceptions(acme, '2026-10-08T00:01:00.000+0000').map((record) => record.id);
    expect(changed.length).toBeGreaterThan(1);
    unplaceable.add(changed[0]!);
    clock.advance(POLL_MS);
    expect(await polls()).toEqual(['ok']);
    expect(nodes(await drain(subscriber, changed.length - 1))).toEqual(changed.slice(1));
    expect(subscriber.queued).toBe(0);

    // Read again at the next poll: counted again, not logged again.
    clock.advance(POLL_MS);
    expect(await polls()).toEqual(['ok']);
    expect(unreadable).toEqual([{ field: 'exceptionsChanged', count: 1 }, { field: 'exceptionsChanged', count: 1 }]);
    expect(warnings.map(({ field, time, count, msg }) => ({ field, time, count, msg }))).toEqual([{
      field: 'exceptionsChanged',
      time: 'Tue, 08 Oct 2026 00:01:00 GMT',
      count: 1,
      msg: 'subscriptions: this feed read records whose time is not a date-time the contract allows; they are not sent, and subscription_record_times_unreadable_total counts them',
    }]);
  });

  it('drops a subscriber that does not read past its queue, with a final error, and stops the poller it was the last of', async () => {
    const { hub, clock, session, polls } = fresh({ queueLimit: 2 });
    const slow = hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery(null), null);
    clock.advance(0);
    await polls();
    for (let n = 0; n < 3; n++) sandbox.live.step();
    clock.advance(POLL_MS);
    await polls();
    expect(await drain(slow, 5)).toMatchObject([{ final: true, error: { extensions: { code: 'RATE_LIMITED', limit: 'SUBSCRIBER_QUEUE' } } }]);
    expect([hub.open, hub.pollers]).toEqual([0, 0]);
  });

  it('draws every poll from the caller\'s budget: a poll the bucket cannot pay is skipped, and its changes come with the next one it can', async () => {
    // One platform call every two intervals, on the test's clock.
    const policy = { name: 'platform-calls', perSecond: 1_000 / (2 * POLL_MS), burst: 1 };
    const keys: string[] = [];
    const { hub, clock, session, polls } = fresh({}, budgeted(policy, keys));
    const acme = accountOf(sandbox, ACME);
    const subscriber = hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery(null), null);
    clock.advance(0);
    expect(await polls()).toEqual(['ok']);
    sandbox.live.step();
    clock.advance(POLL_MS);
    expect(await polls()).toEqual(['skipped']);
    expect(subscriber.queued).toBe(0);
    clock.advance(POLL_MS);
    expect(await polls()).toEqual(['ok']);
    const expected = changedExceptions(acme, '2026-10-08T00:01:00.000+0000').map((record) => record.id);
    expect(nodes(await drain(subscriber, expected.length))).toEqual(expected);
    expect(reads()).toEqual(['GET /exceptions', 'GET /exceptions']);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^token:[0-9a-f]{32}$/);
  });
  it('keeps twenty feeds of one token within its budget (1/s, burst 5): the burst at once, then one poll a second among them all', async () => {
    const { hub, clock, session, polls } = fresh({}, budgeted({ name: 'platform-calls', perSecond: 1, burst: 5 }));
    for (let n = 0; n < 20; n++) hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery({ assignedTo: [assignee(n)] }), null);
    clock.advance(0);
    const outcomes = await polls(20);
    const seconds = 10;
    for (let second = 1; second <= seconds; second++) {
      clock.advance(POLL_MS);
      outcomes.push(...(await polls(20)));
    }

    // The bound: burst + elapsed seconds × rate + 1; the bucket gives exactly burst + elapsed seconds.
    expect(reads().length).toBeLessThanOrEqual(5 + seconds + 1);
    expect(reads()).toEqual(Array.from({ length: 5 + seconds }, () => 'GET /exceptions'));
    expect(outcomes.filter((outcome) => outcome === 'ok')).toHaveLength(5 + seconds);
    expect(outcomes.filter((outcome) => outcome === 'skipped')).toHaveLength(20 * (seconds + 1) - (5 + seconds));
  });

  it('takes turns among a token\'s feeds when its budget cannot pay every poll, and tells a feed skipped five intervals in a row once', async () => {
    const { hub, clock, session, polls } = fresh({}, budgeted({ name: 'platform-calls', perSecond: 1, burst: 5 }));
    const subscribers = Array.from({ length: 20 }, (_, n) => hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery({ assignedTo: [assignee(n)] }), null));
    const feedOf = (query: string) => Array.from({ length: 20 }, (_, n) => n).find((n) => query.includes(assignee(n)))!;
    // Which feeds were read at each interval.
    const readAt: number[][] = [];
    let seen = 0;
    const interval = async () => {
      await polls(20);
      readAt.push(sandbox.requests.slice(seen).map((request) => feedOf(request.query)));
      seen = sandbox.requests.length;
    };
    clock.advance(0);
    await interval();
    const seconds = 60;
    for (let second = 1; second <= seconds; second++) {
      clock.advance(POLL_MS);
      await interval();
    }

    // The budget's bound as before: the burst, then one a second.
    expect(readAt.map((feeds) => feeds.length)).toEqual([5, ...Array.from({ length: seconds }, () => 1)]);
    // At every interval, no feed has been polled more than once more than any other.
    const polled = Array.from({ length: 20 }, () => 0);
    for (const feeds of readAt) {
      for (const feed of feeds) polled[feed]! += 1;
      expect(Math.max(...polled) - Math.min(...polled)).toBeLessThanOrEqual(1);
    }
    // Told once per run of five or more intervals in a row without a poll, not at every skip.
    for (let feed = 0; feed < 20; feed++) {
      let run = 0;
      let runs = 0;
      for (const feeds of readAt) {
        run = feeds.includes(feed) ? 0 : run + 1;
        if (run === 5) runs += 1;
      }
      const told = (await drain(subscribers[feed]!, subscribers[feed]!.queued)).map((event) => ('error' in event ? event.error.extensions : event));
      expect(runs).toBeGreaterThan(1);
      expect(told).toEqual(Array.from({ length: runs }, () => ({ code: 'RATE_LIMITED', limit: 'RATE_LIMIT_PER_SECOND', skippedPolls: 5, retryAfter: 1 })));
    }
  });
});

describe('a replica that finds another replica polling', () => {
  it('asks for the lease again when the other\'s runs out, or at its next interval if that comes first', async () => {
    sandbox.store.reset();
    sandbox.resetRequests();
    const answers: (true | { heldForMs: number })[] = [{ heldForMs: 1_800 }, { heldForMs: 250 }, true];
    const asked: number[] = [];
    const share: FeedShare = {
      lead: () => {
        asked.push(under.clock.now());
        return Promise.resolve(answers.shift()!);
      },
      publish: () => undefined,
      listen: () => () => undefined,
      release: () => undefined,
      close: () => Promise.resolve(),
    };
    under = hubOver(sandbox.url, {}, undefined, share);
    const { hub, clock, session, polls } = under;
    /** Resolves once the tick under way has scheduled the next one. */
    const scheduled = async () => {
      while (clock.pending === 0) await new Promise((resolve) => setImmediate(resolve));
    };
    hub.openList(session(ACME), exceptionFeed, exceptionFeedQuery(null), null);
    clock.advance(0);
    await scheduled();
    // Held for 1 800 ms more: asked again at the next interval.
    clock.advance(POLL_MS - 1);
    expect(asked).toEqual([0]);
    clock.advance(1);
    await scheduled();
    // Held for 250 ms more: asked again a millisecond after it runs out, not at the next interval.
    clock.advance(250);
    expect(asked).toEqual([0, POLL_MS]);
    clock.advance(1);
    expect(await polls()).toEqual(['ok']);
    expect([asked, reads()]).toEqual([[0, POLL_MS, POLL_MS + 251], ['GET /exceptions']]);
  });
});
