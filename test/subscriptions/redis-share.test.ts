import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { createClient } from '@redis/client';
import pino from 'pino';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { exceptionFeed, exceptionFeedQuery } from '../../src/exceptions/feeds.ts';
import { queryString } from '../../src/platform/client.ts';
import { parseCaller } from '../../src/request/caller-token.ts';
import { RedisFeedShare } from '../../src/subscriptions/index.ts';
import type { FeedEvent } from '../../src/subscriptions/subscriber.ts';
import { accountOf } from '../support/expected.ts';
import { hasRedisServer, startRedisServer, type RedisServer } from '../support/redis-server.ts';
import { sleep } from '../support/time.ts';
import { closedPort } from '../platform/support.ts';
import { drain, hubOver, POLL_MS, type HubUnderTest } from './support.ts';

const ACME = 'demo-token-acme';

if (!hasRedisServer && process.env.CI) throw new Error('redis-server is missing but CI is set: install it with apt-get install redis-server');

let sandbox: Sandbox;
let redis: RedisServer;
const hubs: HubUnderTest[] = [];

beforeAll(async () => {
  if (!hasRedisServer) return;
  [sandbox, redis] = await Promise.all([startSandbox(), startRedisServer()]);
});
afterAll(async () => {
  for (const hub of hubs) hub.close();
  await sandbox?.close();
  await redis?.stop();
});

const replica = async () => {
  const hub = hubOver(sandbox.url, {}, undefined, await RedisFeedShare.connect(redis.url, pino({ level: 'silent' }), 250));
  hubs.push(hub);
  return hub;
};
const reads = () => sandbox.requests.filter((request) => request.path === '/exceptions').length;
const nodes = (events: readonly FeedEvent[]) => events.map((event) => ('value' in event ? (event.value as { node: { id: string } }).node.id : event.error.message));

(hasRedisServer ? describe : describe.skip)('one poller per feed across replicas on one Redis', () => {
  it('one replica polls and the others receive its outcomes; when it dies, another takes the lease and misses no change', async () => {
    const [a, b] = [await replica(), await replica()];
    const acme = accountOf(sandbox, ACME);
    const mine = [0, 1, 2, 3, 4].map(() => a.hub.openList(a.session(ACME), exceptionFeed, exceptionFeedQuery(null), null));
    const theirs = [0, 1, 2, 3, 4].map(() => b.hub.openList(b.session(ACME), exceptionFeed, exceptionFeedQuery(null), null));
    const key = `${parseCaller(`Bearer ${ACME}`).key}\0exceptionsChanged\0${queryString(exceptionFeedQuery(null))}`;
    // Both replicas listen before the first poll is published: Redis counts two subscribers on the feed's channel.
    const channel = `gateway-feed:${createHash('sha256').update(key).digest('base64url')}`;
    const probe = createClient({ url: redis.url });
    await probe.connect();
    while ((await probe.pubSubNumSub(channel))[channel] !== 2) await sleep(10);
    await probe.close();

    a.clock.advance(0);
    expect(await a.polls()).toEqual(['ok']);
    expect(await b.polls()).toEqual(['received']);
    // B's tick finds A's lease: no read of its own.
    await b.hub.poller(key)!.tick();
    expect(reads()).toBe(1);

    sandbox.live.step();
    a.clock.advance(POLL_MS);
    expect(await a.polls()).toEqual(['ok']);
    expect(await b.polls()).toEqual(['received']);
    const first = sandbox.store.exceptions(acme).filter((record) => record.updatedAt === '2026-10-08T00:01:00.000+0000').map((record) => record.id).sort();
    for (const subscriber of [...mine, ...theirs]) expect(nodes(await drain(subscriber, first.length))).toEqual(first);
    expect(reads()).toBe(2);

    // A dies: it polls no more and its lease runs out (two intervals). A change made right away reaches B's subscribers once B polls.
    sandbox.live.step();
    const second = sandbox.store.exceptions(acme).filter((record) => record.updatedAt === '2026-10-08T00:02:00.000+0000').map((record) => record.id).sort();
    let takeovers = 0;
    while (reads() === 2) {
      takeovers += 1;
      await b.hub.poller(key)!.tick();
      if (reads() === 2) await sleep(POLL_MS / 4);
    }
    expect(takeovers).toBeGreaterThan(1);
    expect(reads()).toBe(3);
    for (const subscriber of theirs) expect(nodes(await drain(subscriber, second.length))).toEqual(second);
    expect(theirs.map((subscriber) => subscriber.queued)).toEqual([0, 0, 0, 0, 0]);
  });
});

(hasRedisServer ? describe : describe.skip)('a feed\'s lease on Redis', () => {
  it('is taken by one replica and renewed by it; another learns how long it has left', async () => {
    const [a, b] = await Promise.all([RedisFeedShare.connect(redis.url, pino({ level: 'silent' }), 250), RedisFeedShare.connect(redis.url, pino({ level: 'silent' }), 250)]);
    try {
      const probe = createClient({ url: redis.url });
      await probe.connect();
      // A replica defers to another's lease only while it listens on the feed's channel.
      const stops = [a.listen('the lease feed', () => undefined), b.listen('the lease feed', () => undefined)];
      const channel = `gateway-feed:${createHash('sha256').update('the lease feed').digest('base64url')}`;
      while ((await probe.pubSubNumSub(channel))[channel] !== 2) await sleep(10);
      // Each replica's command connection comes up in the background; until then it polls for itself (true) and sets no lease.
      const lease = `gateway-feed-lease:${createHash('sha256').update('the lease feed').digest('base64url')}`;
      while ((await a.lead('the lease feed', 60_000)) !== true || (await probe.pTTL(lease)) <= 0) await sleep(10);
      let held = await b.lead('the lease feed', 60_000);
      while (held === true) {
        await sleep(10);
        held = await b.lead('the lease feed', 60_000);
      }
      await probe.close();
      expect(held).toEqual({ heldForMs: expect.any(Number) });
      expect((held as { heldForMs: number }).heldForMs).toBeGreaterThan(50_000);
      expect((held as { heldForMs: number }).heldForMs).toBeLessThanOrEqual(60_000);
      expect(await a.lead('the lease feed', 60_000)).toBe(true);
      a.release('the lease feed');
      // Released: the other takes it (the release is sent before the lead, on one connection each; wait for it).
      let taken = await b.lead('the lease feed', 60_000);
      while (taken !== true) {
        await sleep(10);
        taken = await b.lead('the lease feed', 60_000);
      }
      expect(await a.lead('the lease feed', 60_000)).toEqual({ heldForMs: expect.any(Number) });
      // A key without an expiry under the lease's name (none of a replica's) is held a whole lease, not "taken".
      const other = createClient({ url: redis.url });
      await other.connect();
      await other.set(lease, 'not a replica');
      await other.close();
      expect(await a.lead('the lease feed', 60_000)).toEqual({ heldForMs: 60_000 });
      for (const stop of stops) stop();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

(hasRedisServer ? describe : describe.skip)('a replica whose shared Redis hangs', () => {
  it('polls its feeds itself after the store timeout while Redis is stopped, and defers to the lease again once it answers', async () => {
    const hung = await startRedisServer();
    const connect = () => RedisFeedShare.connect(hung.url, pino({ level: 'silent' }), 250);
    const [a, b] = await Promise.all([connect(), connect()]);
    try {
      const stops = [a.listen('a hung feed', () => undefined), b.listen('a hung feed', () => undefined)];
      const channel = `gateway-feed:${createHash('sha256').update('a hung feed').digest('base64url')}`;
      const probe = createClient({ url: hung.url });
      await probe.connect();
      while ((await probe.pubSubNumSub(channel))[channel] !== 2) await sleep(10);
      await probe.close();
      while ((await a.lead('a hung feed', 60_000)) !== true) await sleep(10);
      while ((await b.lead('a hung feed', 60_000)) === true) await sleep(10);

      // Stopped, Redis still holds both connections open and takes every write: each lead is
      // answered by the timeout, and both replicas poll for themselves.
      hung.child.kill('SIGSTOP');
      expect(await Promise.all([a.lead('a hung feed', 60_000), b.lead('a hung feed', 60_000)])).toEqual([true, true]);
      // A subscription sent while Redis hangs is not waited on past the timeout either.
      const late = b.listen('a feed opened during the hang', () => undefined);
      expect(await b.lead('a feed opened during the hang', 60_000)).toBe(true);
      late();

      hung.child.kill('SIGCONT');
      // Answering again, A's lease (renewed by its leads) holds, and B defers to it.
      let held = await b.lead('a hung feed', 60_000);
      while (held === true) {
        await sleep(10);
        held = await b.lead('a hung feed', 60_000);
      }
      expect(held).toEqual({ heldForMs: expect.any(Number) });
      expect(await a.lead('a hung feed', 60_000)).toBe(true);
      for (const stop of stops) stop();
    } finally {
      hung.child.kill('SIGCONT');
      await Promise.all([a.close(), b.close()]);
      await hung.stop();
    }
  });

  it('keeps a feed polling through the hang: each interval\'s poll is made by this replica', async () => {
    const hung = await startRedisServer();
    const hub = hubOver(sandbox.url, {}, undefined, await RedisFeedShare.connect(hung.url, pino({ level: 'silent' }), 250));
    hubs.push(hub);
    try {
      sandbox.resetRequests();
      hub.hub.openList(hub.session(ACME), exceptionFeed, exceptionFeedQuery(null), null);
      hub.clock.advance(0);
      expect(await hub.polls()).toEqual(['ok']);
      hung.child.kill('SIGSTOP');
      for (let interval = 1; interval <= 3; interval++) {
        hub.clock.advance(POLL_MS);
        expect(await hub.polls()).toEqual(['ok']);
      }
      expect(reads()).toBe(4);
    } finally {
      hung.child.kill('SIGCONT');
      await hung.stop();
    }
  });
});

describe('a replica whose shared Redis is down', () => {
  it('starts without waiting for it, and polls every feed itself while it is away', async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    const share = await RedisFeedShare.connect(url, pino({ level: 'silent' }), 250);
    try {
      const stop = share.listen('a feed', () => undefined);
      expect(await share.lead('a feed', 1_000)).toBe(true);
      stop();
    } finally {
      await share.close();
    }
  });
});
