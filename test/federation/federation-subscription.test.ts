import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient } from 'graphql-sse';
import { watchOutput } from '../support/gateway-process.ts';

// `npm run federation`'s Hive Gateway carries this subgraph's subscriptions: a client subscribes at
// the router over SSE, the router subscribes to this subgraph over SSE, a change made in the sandbox
// reaches the client.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let child: ChildProcess;
let exited: Promise<number | null>;
let endpoint: string;
let sandbox: string;

beforeAll(async () => {
  child = spawn('npm', ['run', '--silent', 'federation', '--', '--port', '0'], {
    cwd: ROOT,
    // The sandbox changes only when this test steps it: the change it sees is one it made.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SUBSCRIPTION_POLL_MS: '250', SANDBOX_LIVE: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const stdout = watchOutput(child.stdout!, exited);
  watchOutput(child.stderr!);
  endpoint = (await stdout.waitFor(/^Supergraph ready at (\S+) /m, 90_000))[1]!;
  sandbox = (await stdout.waitFor(/over the sandbox at (\S+)\)$/m, 10_000))[1]!;
  await stdout.waitFor(/^Ctrl-C stops everything\.$/m, 10_000);
}, 120_000);

afterAll(async () => {
  if (child?.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
  await exited;
});

describe('npm run federation: a subscription through Hive Gateway', () => {
  it('delivers a change made in the sandbox to a client subscribed at the router', async () => {
    const client = createClient({ url: endpoint, headers: { authorization: 'Bearer demo-token-acme' } });
    const iterator = client.iterate<{ exceptionsChanged: { node: { id: string } } }>({ query: 'subscription { exceptionsChanged { cursor node { id status } } }' });
    const first = iterator.next();
    // The subgraph's poller starts once the router has subscribed: step until the feed has something to send.
    let received: Awaited<typeof first> | undefined;
    void first.then((result) => (received = result));
    const changed = new Set<string>();
    const acme = ((await (await fetch(`${sandbox}/__sandbox/fixtures`)).json()) as { businessAccounts: { businessAccountId: string; token: string }[] }).businessAccounts.find((account) => account.token === 'demo-token-acme')!.businessAccountId;
    while (received === undefined) {
      const { changes } = (await (await fetch(`${sandbox}/__sandbox/live/step`, { method: 'POST' })).json()) as { changes: { kind: string; id: string; businessAccountId: string }[] };
      for (const change of changes) if (change.businessAccountId === acme && (change.kind === 'arrived' || change.kind === 'status')) changed.add(change.id);
      await Promise.race([first, new Promise((resolve) => setTimeout(resolve, 500))]);
    }
    expect(changed.has(received.value!.data!.exceptionsChanged.node.id)).toBe(true);
    await iterator.return?.();
    client.dispose();
  });
});
