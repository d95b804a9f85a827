import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { accountsFromSandbox, startAccountsSubgraph, type AccountsData } from '../../examples/accounts-subgraph/accounts-subgraph.ts';
import { accountOf, sortRecords } from '../support/expected.ts';
import { bearer, postGraphQL } from '../support/graphql-client.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { copyExample, installExample, npmIn } from '../support/example-project.ts';

// examples/hive-gateway/ and examples/apollo-gateway/, docs/federation.md's router recipes as projects
// of their own, run as their READMEs say from temporary folders outside this checkout: installed from
// npm's cache, composing this gateway (subgraph platform) with the example accounts subgraph, then
// serving a query that spans both, the token reaching this gateway.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC = readFileSync(join(ROOT, 'docs/federation.md'), 'utf8');
const snippet = (file: string) => new RegExp(`\`\`\`js\\n(// ${file.replace('.', '\\.')}\\n[\\s\\S]*?)\`\`\``).exec(DOC)![1]!;
const NODE = join(ROOT, 'node_modules/.bin/node');

const PROJECTS = { 'hive-gateway': 'hive-gateway.mjs', 'apollo-gateway': 'supergraph-gateway.mjs' } as const;
type Project = keyof typeof PROJECTS;

let stack: Stack;
let accounts: AccountsData;
let accountsSubgraph: Awaited<ReturnType<typeof startAccountsSubgraph>>;
const folders: Partial<Record<Project, string>> = {};
const composed: Partial<Record<Project, string>> = {};
const routers: { child: ChildProcess; exited: Promise<number | null> }[] = [];

beforeAll(async () => {
  stack = await startStack();
  const documents = stack.sandbox.store.documents(accountOf(stack.sandbox, stack.acme));
  accounts = accountsFromSandbox(stack.sandbox, [documents[0]!.id, documents[1]!.id]);
  accountsSubgraph = await startAccountsSubgraph(accounts);
  // Both projects at once: each install waits on npm's cache and the disk as much as on a core.
  await Promise.all((Object.keys(PROJECTS) as Project[]).map(async (project) => {
    const folder = copyExample(project);
    folders[project] = folder;
    await installExample(folder);
    composed[project] = (await npmIn(folder, ['run', '--silent', 'compose', '--', `platform=${stack.gateway.url}/graphql`, `accounts=${accountsSubgraph.url}`])).stdout;
  }));
}, 480_000);

afterAll(async () => {
  for (const { child, exited } of routers) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  }
  await accountsSubgraph?.stop();
  await stack?.close();
  for (const folder of Object.values(folders)) rmSync(folder, { recursive: true, force: true });
});

/** `node <file>` in the project's folder with PORT=0, once it prints where it serves. */
function startRouter(project: Project): Promise<{ url: string; child: ChildProcess; exited: Promise<number | null> }> {
  const child = spawn(NODE, [PROJECTS[project]], { cwd: folders[project], env: { PATH: process.env.PATH ?? '', PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  routers.push({ child, exited });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Supergraph ready at (http:\/\/localhost:\d+\/\S*)/.exec(output);
      if (match) resolve({ url: match[1]!, child, exited });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => reject(new Error(`${project} exited with ${code}: ${output}`)));
  });
}

describe.each(Object.keys(PROJECTS) as Project[])('examples/%s', (project) => {
  it("holds docs/federation.md's files as written", () => {
    for (const file of ['compose-supergraph.mjs', PROJECTS[project]]) expect(readFileSync(join(ROOT, 'examples', project, file), 'utf8')).toBe(snippet(file));
  });

  it('composes both subgraphs and serves a query across them from its own folder, then stops on SIGTERM', async () => {
    expect(composed[project]).toBe('Wrote supergraph.graphql (platform, accounts)\n');
    const router = await startRouter(project);
    const query = '{ documentsToReview { name status } exceptions(first: 2) { nodes { category entity { ... on FinancialAccount { name } ... on CustomerAccount { name } ... on Transaction { name } } } } }';
    const newest = sortRecords(stack.sandbox.store.exceptions(accountOf(stack.sandbox, stack.acme)), [[(e) => e.createdAt, 'DESC']]).slice(0, 2);
    const kind = { BANK_ACCOUNT_VERIFICATION: 'FinancialAccount', CUSTOMER: 'CustomerAccount', TRANSACTION: 'Transaction' } as const;
    expect(await postGraphQL(router.url, { query }, bearer(stack.acme))).toEqual({
      status: 200,
      body: {
        data: {
          documentsToReview: accounts.documentsToReview.map((id) => ({ name: stack.sandbox.store.document(id)!.name, status: stack.sandbox.store.document(id)!.status })),
          exceptions: { nodes: newest.map((e) => ({ category: e.category, entity: { name: accounts.names[kind[e.category]].get(e.entityId) } })) },
        },
      },
    });
    router.child.kill('SIGTERM');
    await router.exited;
    // As docs/federation.md says: Hive Gateway's recipe exits 0, Apollo Server ends by the signal.
    expect({ code: router.child.exitCode, signal: router.child.signalCode }).toEqual(project === 'hive-gateway' ? { code: 0, signal: null } : { code: null, signal: 'SIGTERM' });
  }, 60_000);
});
