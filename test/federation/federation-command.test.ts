import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { accountsFromSandbox, type AccountsData } from '../../examples/accounts-subgraph/accounts-subgraph.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { accountOf, sortRecords } from '../support/expected.ts';
import { watchOutput, type OutputWatch } from '../support/gateway-process.ts';
import { bearer, postGraphQL } from '../support/graphql-client.ts';

// `npm run federation` as a user runs it: the sandbox, this gateway, the example accounts subgraph
// and Hive Gateway in one command; a query that spans both subgraphs, the router's refusal on cost as
// docs/federation.md shows it, and one SIGTERM that stops everything with exit code 0.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC = readFileSync(new URL('../../docs/federation.md', import.meta.url), 'utf8');

let child: ChildProcess;
let exited: Promise<number | null>;
let stdout: OutputWatch;
let stderr: OutputWatch;
let endpoint: string;
/** A sandbox of the same deterministic seed, for the expected data. */
let reference: Sandbox;
let accounts: AccountsData;

beforeAll(async () => {
  reference = await startSandbox();
  const acme = accountOf(reference, 'demo-token-acme');
  accounts = accountsFromSandbox(reference, reference.store.documents(acme).slice(0, 2).map((document) => document.id));
  child = spawn('npm', ['run', '--silent', 'federation', '--', '--port', '0'], {
    cwd: ROOT,
    // Live mode on, as a user gets it, with steps far apart: the answers are the seeded data.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SANDBOX_LIVE_INTERVAL_MS: '3600000' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  stdout = watchOutput(child.stdout!, exited);
  stderr = watchOutput(child.stderr!);
  endpoint = (await stdout.waitFor(/^Supergraph ready at (\S+) /m, 90_000))[1]!;
  await stdout.waitFor(/^Ctrl-C stops everything\.$/m, 10_000);
}, 120_000);

afterAll(async () => {
  if (child?.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  await reference?.close();
});

describe('npm run federation', () => {
  it('prints the router, both subgraphs, a query that spans them and a subscription', () => {
    const lines = stdout.text().split('\n');
    expect(lines.map((line) => line.replace(/:\d+/g, ':PORT'))).toEqual([
      'Supergraph ready at http://127.0.0.1:PORT/graphql (Hive Gateway; demand control: maxCost 1000)',
      '  subgraph platform: http://127.0.0.1:PORT/graphql (this gateway, over the sandbox at http://127.0.0.1:PORT)',
      '  subgraph accounts: http://127.0.0.1:PORT/ (examples/accounts-subgraph/)',
      'A query that spans both subgraphs (demo token of Acme Payroll Inc):',
      expect.stringMatching(/^ {2}curl -s http:\/\/127\.0\.0\.1:PORT\/graphql -H 'content-type: application\/json' -H 'authorization: Bearer demo-token-acme' -d '\{"query":"\{ documentsToReview /),
      'A subscription through the router (SSE to the client and to this subgraph; the sandbox changes records every 3600 s):',
      `  curl -sN http://127.0.0.1:PORT/graphql -H 'accept: text/event-stream' -H 'content-type: application/json' -H 'authorization: Bearer demo-token-acme' -d '{"query":"subscription { exceptionsChanged { cursor node { id status updatedAt } } }"}'`,
      'Ctrl-C stops everything.',
      '',
    ]);
    expect(stderr.text()).toBe('');
  });

  it('answers the printed query with data from both subgraphs', async () => {
    const query = (JSON.parse(/-d '(.*)'$/m.exec(stdout.text())![1]!) as { query: string }).query;
    const acme = accountOf(reference, 'demo-token-acme');
    const newest = sortRecords(reference.store.exceptions(acme), [[(e) => e.createdAt, 'DESC']]).slice(0, 2);
    const kind = { BANK_ACCOUNT_VERIFICATION: 'FinancialAccount', CUSTOMER: 'CustomerAccount', TRANSACTION: 'Transaction' } as const;
    expect(await postGraphQL(endpoint, { query }, bearer('demo-token-acme'))).toEqual({
      status: 200,
      body: {
        data: {
          documentsToReview: accounts.documentsToReview.map((id) => ({ name: reference.store.document(id)!.name, status: reference.store.document(id)!.status })),
          exceptions: { nodes: newest.map((e) => ({ category: e.category, entity: { name: accounts.names[kind[e.category]].get(e.entityId) } })) },
        },
      },
    });
  });

  it("answers docs/federation.md's first example as written, with data from both subgraphs and no error", async () => {
    const query = /```graphql\n([\s\S]*?)```/.exec(DOC)![1]!;
    const acme = accountOf(reference, 'demo-token-acme');
    const newest = sortRecords(reference.store.exceptions(acme), [[(e) => e.createdAt, 'DESC']]).slice(0, 5);
    // A Financial Account's acceptances, as this subgraph answers them on its own.
    const platform = /^ {2}subgraph platform: (\S+) /m.exec(stdout.text())![1]!;
    const acceptances = async (financialAccountId: string) => {
      const answer = await postGraphQL(platform, { query: `{ documentAcceptances(financialAccountId: "${financialAccountId}", first: 2) { edges { node { documentId accepted respondedAt } } pageInfo { hasNextPage } } }` }, bearer('demo-token-acme'));
      return (answer.body.data as { documentAcceptances: unknown }).documentAcceptances;
    };
    const entity = async (e: (typeof newest)[number]) =>
      e.category === 'BANK_ACCOUNT_VERIFICATION' ? { name: accounts.names.FinancialAccount.get(e.entityId), documentAcceptances: await acceptances(e.entityId) } : {};
    const holderName = (id: string) => accounts.names.CustomerAccount.get(id) ?? accounts.names.BeneficialOwner.get(id);
    const expected = {
      exceptions: { nodes: await Promise.all(newest.map(async (e) => ({ status: e.status, entity: await entity(e) }))) },
      documentsToReview: accounts.documentsToReview.map((id) => {
        const document = reference.store.document(id)!;
        return { name: document.name, status: document.status, holder: holderName(document.holderId) === undefined ? {} : { name: holderName(document.holderId) } };
      }),
    };
    expect(newest.some((e) => e.category === 'BANK_ACCOUNT_VERIFICATION')).toBe(true);
    expect(await postGraphQL(endpoint, { query }, bearer('demo-token-acme'))).toEqual({ status: 200, body: { data: expected } });
  });

  it('refuses a query priced over maxCost as docs/federation.md shows: HTTP 200, an error per field', async () => {
    const shown = /client\s+sees:\n\n```http\nPOST \/graphql\n\n(\{.*\})\n\nHTTP\/1\.1 200 OK\n\n([\s\S]*?)\n```/.exec(DOC)!;
    const answer = await postGraphQL(endpoint, JSON.parse(shown[1]!), bearer('demo-token-acme'));
    expect(answer).toEqual({ status: 200, body: JSON.parse(shown[2]!) });
  });

  it('stops everything on one SIGTERM and exits 0', async () => {
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout.text()).toMatch(/\nSIGTERM: stopping Hive Gateway, the accounts subgraph, the gateway and the sandbox\n$/);
    expect(stderr.text()).toBe('');
    // Nothing listens any more.
    await expect(fetch(endpoint)).rejects.toThrow('fetch failed');
  });
});
