import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient, type Client } from 'graphql-sse';
import { startProductionGateway, type ProductionGateway } from '../support/gateway-process.ts';
import { until } from '../support/time.ts';

const ACME = 'demo-token-acme';
// An acceptance's account, and that account's acceptances: a field of the event that reads the platform.
const FEED = `subscription Added($account: ID!) {
  documentAcceptancesAdded(financialAccountId: $account) { node { id financialAccount { id documentAcceptances(first: 1) { totalCount } } } }
}`;

interface Added {
  documentAcceptancesAdded: { node: { id: string; financialAccount: { id: string; documentAcceptances: { totalCount: number } } } };
}

let gateway: ProductionGateway;
let client: Client;

beforeAll(async () => {
  // The shortest deadline there is: an event comes later than it, counted from the subscribe.
  // Reads not shared between requests: what an event's subscribers share is the gateway's own doing.
  gateway = await startProductionGateway({ SUBSCRIPTION_POLL_MS: '250', REQUEST_DEADLINE_MS: '100', UPSTREAM_SHARE_READS: 'false' });
  client = createClient({ url: `${gateway.origin}/graphql`, headers: { authorization: `Bearer ${ACME}` }, retryAttempts: 0 });
});
afterAll(async () => {
  client.dispose();
  await gateway.process.stop();
});

async function admin<T>(path: string, method = 'GET'): Promise<T> {
  return (await (await fetch(`${gateway.platform}/__sandbox/${path}`, { method })).json()) as T;
}

describe('an event\'s fields that read the platform', () => {
  it('run with a deadline of their own, however long after the subscribe the event comes', async () => {
    const [acme] = (await admin<{ businessAccounts: { financialAccounts: string[] }[] }>('fixtures')).businessAccounts;
    const accounts = acme!.financialAccounts;
    const streams = accounts.map((account) => client.iterate<Added>({ query: FEED, variables: { account } }));
    const firsts = streams.map((stream) => stream.next());
    // Every feed polled once (its watermark set) and the deadline of the subscribe long gone.
    for (;;) {
      const { requests } = await admin<{ requests: { path: string }[] }>('requests?detail=1');
      if (requests.filter((request) => request.path === '/v1/acceptances').length >= 2 * accounts.length) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const { changes } = await admin<{ changes: { kind: string; id: string; financialAccountId?: string }[] }>('live/step', 'POST');
    const arrived = changes.find((change) => change.kind === 'acceptance' && accounts.includes(change.financialAccountId!))!;
    const first = await firsts[accounts.indexOf(arrived.financialAccountId!)]!;

    const count = await fetch(`${gateway.origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ACME}` },
      body: JSON.stringify({ query: 'query($a: ID!) { documentAcceptances(financialAccountId: $a, first: 1) { totalCount } }', variables: { a: arrived.financialAccountId } }),
    });
    const { data } = (await count.json()) as { data: { documentAcceptances: { totalCount: number } } };
    expect(first.value).toEqual({
      data: { documentAcceptancesAdded: { node: { id: arrived.id, financialAccount: { id: arrived.financialAccountId, documentAcceptances: { totalCount: data.documentAcceptances.totalCount } } } } },
    });
    await Promise.all(streams.map((stream) => stream.return?.()));
  });

  it('run once for every subscription of one token running the same document with the same variables', async () => {
    const [acme] = (await admin<{ businessAccounts: { financialAccounts: string[] }[] }>('fixtures')).businessAccounts;
    const accounts = acme!.financialAccounts;
    const SUBSCRIBERS = 3;
    const streams = accounts.map((account) => Array.from({ length: SUBSCRIBERS }, () => client.iterate<Added>({ query: FEED, variables: { account } })));
    const firsts = streams.map((ofAccount) => ofAccount.map((stream) => stream.next()));
    // Every subscription open before the watermarks are set, so each is owed the change made next.
    await until('every subscription open', async () => {
      const metrics = await (await fetch(`${gateway.admin}/metrics`)).text();
      return /^subscriptions_open\{transport="sse"\} (\d+)$/m.exec(metrics)?.[1] === String(accounts.length * SUBSCRIBERS) || undefined;
    }, 20_000, 20);
    await fetch(`${gateway.platform}/__sandbox/requests`, { method: 'DELETE' });
    // One poller per account however many subscribe; each polled (its watermark set) after the log was emptied.
    await until('every account\'s feed polled', async () => {
      const { requests } = await admin<{ requests: { path: string; query: string }[] }>('requests?detail=1');
      return new Set(requests.filter((request) => request.path === '/v1/acceptances').map((request) => request.query)).size >= accounts.length || undefined;
    }, 20_000, 20);
    const { changes } = await admin<{ changes: { kind: string; id: string; financialAccountId?: string }[] }>('live/step', 'POST');
    const arrived = changes.find((change) => change.kind === 'acceptance' && accounts.includes(change.financialAccountId!))!;
    const received = await Promise.all(firsts[accounts.indexOf(arrived.financialAccountId!)]!);

    const { requests } = await admin<{ requests: { path: string; query: string }[] }>('requests?detail=1');
    // The event's own field: the account's acceptances without the feed's sort.
    const eventReads = requests.filter((request) => request.path === '/v1/acceptances' && request.query.includes(arrived.financialAccountId!) && !request.query.includes('sort='));
    expect(eventReads).toHaveLength(1);
    const totalCount = received[0]!.value?.data?.documentAcceptancesAdded.node.financialAccount.documentAcceptances.totalCount;
    expect(typeof totalCount).toBe('number');
    const expected = {
      data: { documentAcceptancesAdded: { node: { id: arrived.id, financialAccount: { id: arrived.financialAccountId, documentAcceptances: { totalCount } } } } },
    };
    expect(received.map((result) => result.value)).toEqual(Array.from({ length: SUBSCRIBERS }, () => expected));
    await Promise.all(streams.flat().map((stream) => stream.return?.()));
  });
});
