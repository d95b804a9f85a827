import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient, type Client } from 'graphql-sse';
import { startProductionGateway, type ProductionGateway } from '../support/gateway-process.ts';
import { until } from '../support/time.ts';
import { logLines } from './support/http.ts';

// WORKERS=2 without Redis: one poller per feed for the whole instance, its lease kept by the
// primary, its outcomes handed to the other worker's subscribers (src/subscriptions/worker-share.ts).

const FEED = 'subscription { exceptionsChanged { node { id } } }';
const SUBSCRIBERS = 4;

interface Changed {
  exceptionsChanged: { node: { id: string } };
}

let gateway: ProductionGateway;
let client: Client;

beforeAll(async () => {
  gateway = await startProductionGateway({ WORKERS: '2', LOG_LEVEL: 'info', SUBSCRIPTION_POLL_MS: '250' }, 40_000);
  await until('the workers-started line', () => logLines(gateway.process.stdout()).find((line) => line.msg === 'workers started'), 20_000);
  // Distinct connections: each subscription its own request, handed to the workers in turn.
  client = createClient({ url: `${gateway.origin}/graphql`, headers: { authorization: 'Bearer demo-token-acme' }, retryAttempts: 0 });
}, 120_000);
afterAll(async () => {
  client?.dispose();
  await gateway?.process.stop();
});

/** The group's `subscription_polls_total` by outcome, from the primary's admin listener. */
async function polls(): Promise<Record<string, number>> {
  const metrics = await (await fetch(`${gateway.admin}/metrics`)).text();
  return Object.fromEntries([...metrics.matchAll(/^subscription_polls_total\{outcome="(\w+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
}

describe('subscriptions across the workers of one instance', () => {
  it('share one poller per feed: one worker polls, the other receives its outcomes, and a change reaches every subscriber', async () => {
    const streams = Array.from({ length: SUBSCRIBERS }, () => client.iterate<Changed>({ query: FEED }));
    const firsts = streams.map((stream) => stream.next());
    const started = await until(
      'every subscription started',
      () => {
        const lines = logLines(gateway.process.stdout()).filter((line) => line.msg === 'subscription started');
        return lines.length === SUBSCRIBERS ? lines : undefined;
      },
      20_000,
    );
    expect(new Set(started.map((line) => line.pid)).size).toBe(2);
    // The worker without the lease makes no platform read of the feed: it applies what the other polled.
    await until('outcomes received from the polling worker', async () => ((await polls()).received ?? 0) >= 2 || undefined, 20_000);

    const [acme] = ((await (await fetch(`${gateway.platform}/__sandbox/fixtures`)).json()) as { businessAccounts: { businessAccountId: string }[] }).businessAccounts;
    const step = (await (await fetch(`${gateway.platform}/__sandbox/live/step`, { method: 'POST' })).json()) as { changes: { kind: string; id: string; businessAccountId?: string }[] };
    // The Acme exceptions the step changed, as the feed sends them (one step: one time, ids ascending).
    const changed = [...new Set(step.changes.filter((change) => change.businessAccountId === acme!.businessAccountId && (change.kind === 'arrived' || change.kind === 'status')).map((change) => change.id))].sort();
    const received = await Promise.all(firsts);
    expect(received.map((result) => result.value?.data?.exceptionsChanged.node.id)).toEqual(Array.from({ length: SUBSCRIBERS }, () => changed[0]));
    await Promise.all(streams.map((stream) => stream.return?.()));
  });
});
