import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { accountOf, sortRecords } from '../support/expected.ts';
import { bearer, postGraphQL } from '../support/graphql-client.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { accountsFromSandbox, startAccountsSubgraph, type AccountsData } from '../../examples/accounts-subgraph/accounts-subgraph.ts';

// docs/federation.md's router recipes, run as written with Node 24: the supergraph composed by its
// compose script, then served by its Apollo Gateway and its Hive Gateway, over this gateway (behind a
// proxy that records the headers it is sent) and the accounts subgraph (which records its own).

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC = readFileSync(new URL('../../docs/federation.md', import.meta.url), 'utf8');
const snippet = (file: string) => new RegExp(`\`\`\`js\\n(// ${file.replace('.', '\\.')}\\n[\\s\\S]*?)\`\`\``).exec(DOC)![1]!;
const composeCommand = /^node compose-supergraph\.mjs .*$/m.exec(DOC)![0];

const run = promisify(execFile);
const NODE = join(ROOT, 'node_modules/.bin/node');

let stack: Stack;
let accounts: AccountsData;
let accountsSubgraph: Awaited<ReturnType<typeof startAccountsSubgraph>>;
let proxy: Server;
let app: string;
let composeOutput: string;
/** The Authorization header of each request that reached each subgraph (`null`: none). */
const received = { platform: [] as (string | null)[], accounts: [] as (string | null)[] };
const routers: Record<string, { child: ChildProcess; url: string }> = {};

/** Forwards to this gateway, noting the Authorization header the router sent. */
function startRecordingProxy(target: string): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.platform.push(req.headers.authorization ?? null);
      const headers: Record<string, string> = { 'content-type': req.headers['content-type'] ?? 'application/json' };
      if (req.headers.authorization !== undefined) headers.authorization = req.headers.authorization;
      fetch(target, { method: req.method, headers, body: Buffer.concat(chunks) })
        .then(async (response) => {
          res.writeHead(response.status, { 'content-type': response.headers.get('content-type') ?? 'application/json' });
          res.end(Buffer.from(await response.arrayBuffer()));
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Runs a recipe file with PORT=0 and answers the URL it prints once it listens. */
function startRouter(file: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(NODE, [file], { cwd: app, env: { PATH: process.env.PATH ?? '', PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not start: ${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Supergraph ready at (http:\/\/localhost:\d+\/\S*)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1]! });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${file} exited with ${code}: ${output}`)));
  });
}

beforeAll(async () => {
  stack = await startStack();
  const documents = stack.sandbox.store.documents(accountOf(stack.sandbox, stack.acme));
  accounts = accountsFromSandbox(stack.sandbox, [documents[0]!.id, documents[1]!.id, documents[0]!.id]);
  accountsSubgraph = await startAccountsSubgraph(accounts, (headers) => received.accounts.push((headers.authorization as string | undefined) ?? null));
  proxy = await startRecordingProxy(`${stack.gateway.url}/graphql`);
  app = await mkdtemp(join(tmpdir(), 'router-recipes-'));
  // The router app's dependencies are this repository's.
  symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'));
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'router', private: true, type: 'module' }));
  for (const file of ['compose-supergraph.mjs', 'supergraph-gateway.mjs', 'hive-gateway.mjs']) await writeFile(join(app, file), snippet(file));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/graphql`;
  const command = composeCommand.replace('https://bff.example.com/graphql', proxyUrl).replace('https://accounts.example.com/graphql', accountsSubgraph.url);
  const [, ...args] = command.split(' ');
  composeOutput = (await run(NODE, args, { cwd: app })).stdout;
  routers.apollo = await startRouter('supergraph-gateway.mjs');
  routers.hive = await startRouter('hive-gateway.mjs');
}, 90_000);

afterAll(async () => {
  // Only when a test failed before the recipes were stopped.
  await Promise.all(Object.values(routers).map(({ child }) => (child.exitCode !== null || child.signalCode !== null ? undefined : new Promise((resolve) => child.once('exit', resolve).kill('SIGKILL')))));
  await accountsSubgraph?.stop();
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  await stack?.close();
  if (app) await rm(app, { recursive: true, force: true });
});

beforeEach(() => {
  received.platform.length = 0;
  received.accounts.length = 0;
});

const newestFirst = <T extends { id: string; createdAt: string }>(records: readonly T[]) => sortRecords(records, [[(r) => r.createdAt, 'DESC']]);

describe('docs/federation.md: composing with @theguild/federation-composition', () => {
  it('writes supergraph.graphql from both subgraphs and says so', () => {
    expect(composeOutput).toBe('Wrote supergraph.graphql (platform, accounts)\n');
    const sdl = readFileSync(join(app, 'supergraph.graphql'), 'utf8');
    expect(sdl).toContain('PLATFORM @join__graph(name: "platform"');
    expect(sdl).toContain(`ACCOUNTS @join__graph(name: "accounts", url: "${accountsSubgraph.url}")`);
  });
});

describe.each(['apollo', 'hive'])('docs/federation.md: the %s router recipe', (name) => {
  const query = (text: string, variables: Record<string, unknown> = {}, token: string | null = stack.acme) =>
    postGraphQL(routers[name]!.url, { query: text, variables }, token === null ? {} : bearer(token));

  it('pages through a connection, sending the token to this subgraph only', async () => {
    const records = newestFirst(stack.sandbox.store.exceptions(accountOf(stack.sandbox, stack.acme)));
    const page = 'query Page($after: String) { exceptions(first: 2, after: $after) { nodes { id status } pageInfo { hasNextPage endCursor } } }';
    const first = await query(page);
    const cursor = (first.body as { data: { exceptions: { pageInfo: { endCursor: string } } } }).data.exceptions.pageInfo.endCursor;
    const second = await query(page, { after: cursor });
    const nodes = (from: number) => records.slice(from, from + 2).map((e) => ({ id: e.id, status: e.status }));
    expect([first, second]).toEqual([
      { status: 200, body: { data: { exceptions: { nodes: nodes(0), pageInfo: { hasNextPage: true, endCursor: cursor } } } } },
      { status: 200, body: { data: { exceptions: { nodes: nodes(2), pageInfo: { hasNextPage: true, endCursor: expect.any(String) } } } } },
    ]);
    expect(received).toEqual({ platform: [`Bearer ${stack.acme}`, `Bearer ${stack.acme}`], accounts: [] });
  });

  it('resolves an entity of the other subgraph from this one, which never sees the token', async () => {
    const records = newestFirst(stack.sandbox.store.exceptions(accountOf(stack.sandbox, stack.acme))).slice(0, 5);
    const typename = { BANK_ACCOUNT_VERIFICATION: 'FinancialAccount', CUSTOMER: 'CustomerAccount', TRANSACTION: 'Transaction' } as const;
    const answer = await query(`{ exceptions(first: 5) { nodes { id entity { __typename
      ... on FinancialAccount { id name } ... on CustomerAccount { id name } ... on Transaction { id name } } } } }`);
    expect(answer).toEqual({
      status: 200,
      body: { data: { exceptions: { nodes: records.map((e) => ({ id: e.id, entity: { __typename: typename[e.category], id: e.entityId, name: accounts.names[typename[e.category]].get(e.entityId) } })) } } },
    });
    expect(received).toEqual({ platform: [`Bearer ${stack.acme}`], accounts: [null] });
  });

  it('resolves documents the other subgraph points at, fetched here with the token', async () => {
    const answer = await query('{ documentsToReview { id name status } }');
    const document = (id: string) => stack.sandbox.store.document(id)!;
    expect(answer).toEqual({ status: 200, body: { data: { documentsToReview: accounts.documentsToReview.map((id) => ({ id, name: document(id).name, status: document(id).status })) } } });
    expect(received).toEqual({ platform: [`Bearer ${stack.acme}`], accounts: [null] });
  });

  it('passes on this subgraph’s error for a caller without a token, sending no Authorization (not "undefined")', async () => {
    const answer = await query('{ exceptions(first: 1) { totalCount } }', {}, null);
    expect(answer.status).toBe(200);
    const { data, errors } = answer.body as { data: unknown; errors: { message: string; path: string[]; extensions: { code: string } }[] };
    expect([data, errors.map((e) => [e.message, e.path, e.extensions.code])]).toEqual([
      { exceptions: null },
      [['Send the platform access token as "Authorization: Bearer <token>"', ['exceptions'], 'UNAUTHENTICATED']],
    ]);
    expect(received).toEqual({ platform: [null], accounts: [] });
  });
});

describe('docs/federation.md: the Hive Gateway recipe prices operations from the cost directives', () => {
  const post = (text: string) => postGraphQL(routers.hive!.url, { query: text }, bearer(stack.acme));
  const pages = (count: number, first: number) => `{ ${Array.from({ length: count }, (_, i) => `p${i}: exceptions(first: ${first}) { nodes { id } }`).join(' ')} }`;

  it('refuses a query the directives price over maxCost before this subgraph sees it', async () => {
    // 10 pages of 100: (1 connection + 100 nodes) × 10 = 1010 > 1000, read from @listSize's `first`.
    const answer = await post(pages(10, 100));
    const refusal = (i: number) => ({
      message: 'Operation estimated cost 1010 exceeded configured maximum 1000',
      locations: [{ line: 1, column: 3 + 44 * i }],
      path: [`p${i}`],
      extensions: { code: 'COST_ESTIMATED_TOO_EXPENSIVE', cost: { estimated: 1010, max: 1000 } },
    });
    expect(answer).toEqual({
      status: 200,
      body: { data: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, null])), errors: Array.from({ length: 10 }, (_, i) => refusal(i)) },
    });
    expect(received).toEqual({ platform: [], accounts: [] });
  });

  it('sends the same query with pages of 1 (cost 20) in one fetch, with the token', async () => {
    const newest = newestFirst(stack.sandbox.store.exceptions(accountOf(stack.sandbox, stack.acme)))[0]!;
    const answer = await post(pages(10, 1));
    expect(answer).toEqual({ status: 200, body: { data: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, { nodes: [{ id: newest.id }] }])) } });
    expect(received).toEqual({ platform: [`Bearer ${stack.acme}`], accounts: [] });
  });
});

describe('docs/federation.md: the router recipes stop on SIGTERM', () => {
  it('Hive Gateway exits 0; Apollo Gateway stops and ends by the signal, as Apollo Server does', async () => {
    const ended = (child: ChildProcess) => new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
    const [hive, apollo] = [ended(routers.hive!.child), ended(routers.apollo!.child)];
    routers.hive!.child.kill('SIGTERM');
    routers.apollo!.child.kill('SIGTERM');
    expect(await Promise.all([hive, apollo])).toEqual([[0, null], [null, 'SIGTERM']]);
  });
});
