import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { accountOf, sortRecords } from '../support/expected.ts';
import { startProductionGateway, type ProductionGateway } from '../support/gateway-process.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { copyExample, installExample, npmIn } from '../support/example-project.ts';

// examples/apollo-client-app/ run as its README says, from a temporary folder outside this checkout:
// installed from npm's cache, its manifest built, the gateway started in production with that manifest
// (trusted documents only), and `npm start` paging with Apollo Client by ids only.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOC = readFileSync(join(ROOT, 'docs/web-clients.md'), 'utf8');
const section = DOC.slice(DOC.indexOf('Apollo Client does not send the text it was written with'));

let app: string;
let stack: Stack;
let gateway: ProductionGateway | undefined;

beforeAll(async () => {
  app = copyExample('apollo-client-app');
  await installExample(app);
  await npmIn(app, ['run', '--silent', 'manifest']);
  stack = await startStack();
}, 300_000);

afterAll(async () => {
  await gateway?.process.stop();
  await stack?.close();
  if (app) rmSync(app, { recursive: true, force: true });
});

describe('examples/apollo-client-app', () => {
  it("holds docs/web-clients.md's manifest config and client module as written", () => {
    expect(readFileSync(join(ROOT, 'examples/apollo-client-app/persisted-query-manifest.config.json'), 'utf8')).toBe(/```json\n([\s\S]*?)```/.exec(section)![1]);
    expect(readFileSync(join(ROOT, 'examples/apollo-client-app/src/apollo-client.js'), 'utf8')).toBe(/```js\n(\/\/ src\/apollo-client\.js\n[\s\S]*?)```/.exec(section)![1]);
  });

  it('builds its manifest, and pages through a production gateway that runs only that manifest', async () => {
    const manifest = JSON.parse(readFileSync(join(app, 'persisted-query-manifest.json'), 'utf8')) as { operations: { name: string }[] };
    expect(manifest.operations.map((operation) => operation.name)).toEqual(['OpenExceptions']);
    gateway = await startProductionGateway({ UPSTREAM_URL: stack.sandbox.url, TRUSTED_DOCUMENTS: join(app, 'persisted-query-manifest.json'), TRUSTED_DOCUMENTS_ONLY: 'true' });
    const { stdout, stderr } = await npmIn(app, ['start', '--silent'], { GATEWAY_URL: `${gateway.origin}/graphql`, TOKEN: stack.acme });
    const records = sortRecords(stack.sandbox.store.exceptions(accountOf(stack.sandbox, stack.acme)), [[(e) => e.createdAt, 'DESC']]);
    const page = (n: number) => `page ${n + 1} of ${records.length} exceptions: ${records.slice(3 * n, 3 * n + 3).map((e) => `${e.id} ${e.status}`).join(', ')}\n`;
    expect({ stdout, stderr }).toEqual({ stdout: page(0) + page(1), stderr: '' });
  }, 60_000);
});
