import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient, type Client } from 'graphql-sse';
import { startProductionGateway, type ProductionGateway } from '../support/gateway-process.ts';
import { until } from '../support/time.ts';

// The gateway process with a budget that cannot pay every feed's poll: one platform call a second
// for six feeds of one token polled every 250 ms. The feeds take turns on what it pays, and each
// subscriber is told, once, when its feed's last five polls were not paid; none starves.

const TOKEN = 'demo-token-acme';
const FEEDS = 6;
const assignee = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

interface Told {
  code: string;
  limit: string;
  skippedPolls: number;
  retryAfter: number;
  requestId: string;
}

let gateway: ProductionGateway;
let client: Client;

beforeAll(async () => {
  gateway = await startProductionGateway({ SUBSCRIPTION_POLL_MS: '250', RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '10' });
  client = createClient({ url: `${gateway.origin}/graphql`, headers: { authorization: `Bearer ${TOKEN}` }, retryAttempts: 0 });
}, 60_000);
afterAll(async () => {
  client?.dispose();
  await gateway?.process.stop();
});

/** The platform reads of each feed so far, by its assignee filter. */
async function readsPerFeed(): Promise<number[]> {
  const { requests } = (await (await fetch(`${gateway.platform}/__sandbox/requests?detail=1`)).json()) as { requests: { path: string; query: string }[] };
  return Array.from({ length: FEEDS }, (_, n) => requests.filter((request) => request.path === '/exceptions' && request.query.includes(assignee(n))).length);
}

describe('feeds of one token on a budget that cannot pay every poll', () => {
  it('take turns, and each subscriber is told once each time its feed has gone five polls unpaid', async () => {
    const told: Told[][] = Array.from({ length: FEEDS }, () => []);
    const streams = Array.from({ length: FEEDS }, (_, n) => {
      const stream = client.iterate<unknown>({ query: `subscription { exceptionsChanged(filter: { assignedTo: ["${assignee(n)}"] }) { node { id } } }` });
      void (async () => {
        for await (const result of stream) {
          for (const error of (result as { errors?: { extensions: Told }[] }).errors ?? []) told[n]!.push(error.extensions);
        }
      })().catch(() => undefined);
      return stream;
    });
    // Every feed told twice: five unpaid polls in a row, then a paid one, then five unpaid again.
    await until('every subscriber told twice', () => told.every((events) => events.length >= 2) || undefined, 60_000);
    for (const events of told) for (const event of events.slice(0, 2)) expect(event).toEqual({ code: 'RATE_LIMITED', limit: 'RATE_LIMIT_PER_SECOND', skippedPolls: 5, retryAfter: expect.any(Number), requestId: expect.any(String) });
    // Turns: no feed has been read more than two times more than another.
    const reads = await readsPerFeed();
    expect(Math.min(...reads)).toBeGreaterThan(1);
    expect(Math.max(...reads) - Math.min(...reads)).toBeLessThanOrEqual(2);
    // Told once a run of unpaid polls, not at every skip: at most one event per paid poll, and one more.
    told.forEach((events, n) => expect(events.length).toBeLessThanOrEqual(reads[n]! + 1));
    await Promise.all(streams.map((stream) => stream.return?.()));
  }, 90_000);
});
