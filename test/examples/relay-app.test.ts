import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { accountOf, sortRecords } from '../support/expected.ts';
import { startProductionGateway, type ProductionGateway } from '../support/gateway-process.ts';
import { bearer, postGraphQL } from '../support/graphql-client.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { copyExample, installExample, npmIn } from '../support/example-project.ts';

// examples/relay-app/ run as its README says, from a temporary folder outside this checkout: install,
// the API schema printed by this checkout, `npm run relay` with no manifest yet, and the gateway in
// production with the manifest it wrote, running the app's operation by its id.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

let app: string;
let relay: { stdout: string; stderr: string };
let stack: Stack;
let gateway: ProductionGateway | undefined;

beforeAll(async () => {
  app = copyExample('relay-app');
  await installExample(app);
  await run('npm', ['run', '--silent', 'supergraph', '--', '--api', '--out', join(app, 'schema.graphql')], { cwd: ROOT });
  relay = await npmIn(app, ['run', '--silent', 'relay']);
  stack = await startStack();
}, 300_000);

afterAll(async () => {
  await gateway?.process.stop();
  await stack?.close();
  if (app) rmSync(app, { recursive: true, force: true });
});

describe('examples/relay-app', () => {
  it('compiles on its first run, with no manifest yet, into a manifest of its one operation by SHA-256', () => {
    const manifest = JSON.parse(readFileSync(join(app, 'trusted-documents.json'), 'utf8')) as Record<string, string>;
    expect(Object.entries(manifest).map(([id, text]) => [id === createHash('sha256').update(text).digest('hex'), /^query (\w+)/.exec(text)?.[1]])).toEqual([[true, 'exceptionsInboxQuery']]);
    expect(existsSync(join(app, 'src/__generated__/exceptionsInboxQuery.graphql.ts'))).toBe(true);
    expect(relay.stderr).toBe('');
  });

  it('runs its operation by id on a production gateway reading that manifest', async () => {
    const [id] = Object.keys(JSON.parse(readFileSync(join(app, 'trusted-documents.json'), 'utf8')) as Record<string, string>);
    gateway = await startProductionGateway({ UPSTREAM_URL: stack.sandbox.url, TRUSTED_DOCUMENTS: join(app, 'trusted-documents.json') });
    const records = sortRecords(stack.sandbox.store.exceptions(accountOf(stack.sandbox, stack.acme)), [[(e) => e.createdAt, 'DESC']]);
    expect(await postGraphQL(`${gateway.origin}/graphql`, { doc_id: id, variables: { count: 2 } } as never, bearer(stack.acme))).toEqual({
      status: 200,
      body: { data: { exceptions: { totalCount: records.length, nodes: records.slice(0, 2).map((e) => ({ id: e.id, status: e.status })) } } },
    });
  }, 60_000);
});
