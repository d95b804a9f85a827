import { execFile, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import type { ExceptionRecord } from '../../sandbox/data/records.ts';
import { copyExample, installExample, npmIn, spawnNpmIn } from '../support/example-project.ts';
import { accountOf, isoInstant, sortRecords } from '../support/expected.ts';
import { startProductionGateway, watchOutput, type ProductionGateway } from '../support/gateway-process.ts';
import { sleep, until } from '../support/time.ts';

// examples/typed-web-app/ as its README runs it, from a temporary folder outside this checkout:
// installed from the registry (npm's cache first), its types and persisted documents generated from
// the gateway's API schema, built with Vite, and served by `vite preview`, which passes /graphql on to
// a gateway in production mode that runs only the documents of that build's manifest. Real Chromium
// opens the queue, pages with the Relay cursor, and sees a change of the platform arrive live.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const CHROMIUM = '/usr/bin/chromium';
const browserAvailable = existsSync(CHROMIUM);
if (!browserAvailable && process.env.CI) throw new Error(`${CHROMIUM} is missing but CI is set: install it with apt-get install chromium`);
if (!browserAvailable) console.warn(`Skipping the typed-web-app browser test: ${CHROMIUM} not found (apt-get update && apt-get install -y chromium)`);
const itInBrowser = browserAvailable ? it : it.skip;

/** The app's page size (src/ExceptionsQueue.tsx). */
const PAGE_SIZE = 5;

let app: string;
let sandbox: Sandbox;
let gateway: ProductionGateway | undefined;
let preview: ChildProcess | undefined;
let context: BrowserContext | undefined;
let userDataDir: string | undefined;
const typoFolders: string[] = [];

beforeAll(async () => {
  app = copyExample('typed-web-app');
  await installExample(app);
  // As the README says: the gateway's API schema printed from its checkout into the app.
  await run('npm', ['run', '--silent', 'supergraph', '--', '--api', '--out', join(app, 'schema.graphql')], { cwd: ROOT });
  await npmIn(app, ['run', '--silent', 'build']);
}, 300_000);

afterAll(async () => {
  await context?.close();
  if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
  if (preview?.pid !== undefined && preview.exitCode === null && preview.signalCode === null) process.kill(-preview.pid, 'SIGTERM');
  await gateway?.process.stop();
  await sandbox?.close();
  for (const folder of [app, ...typoFolders]) if (folder) rmSync(folder, { recursive: true, force: true });
});

/** A fresh copy of the app sharing the installed packages, with `edit` applied to one source file. */
function copyWithEdit(file: string, edit: (text: string) => string): string {
  const folder = copyExample('typed-web-app');
  typoFolders.push(folder);
  symlinkSync(join(app, 'node_modules'), join(folder, 'node_modules'));
  copyFileSync(join(app, 'schema.graphql'), join(folder, 'schema.graphql'));
  const path = join(folder, file);
  const before = readFileSync(path, 'utf8');
  const after = edit(before);
  expect(after).not.toBe(before);
  writeFileSync(path, after);
  return folder;
}

/** `npm run typecheck` in `folder`: its exit code and everything it printed. */
async function typecheck(folder: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await npmIn(folder, ['run', '--silent', 'typecheck']);
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe('examples/typed-web-app: types', () => {
  it("is docs/web-clients.md's codegen.ts, as written", () => {
    const doc = readFileSync(join(ROOT, 'docs/web-clients.md'), 'utf8');
    const kit = doc.slice(doc.indexOf('### The typed kit'));
    expect(readFileSync(join(ROOT, 'examples/typed-web-app/codegen.ts'), 'utf8')).toBe(/```ts\n([\s\S]*?)```/.exec(kit)![1]);
  });

  it('typechecks as committed, and fails on a field misspelt in a document, naming it', async () => {
    expect(await typecheck(app)).toMatchObject({ code: 0 });
    const misspelt = copyWithEdit('src/ExceptionRow.tsx', (text) => text.replace(/^(\s+)status$/m, '$1stauts'));
    const { code, output } = await typecheck(misspelt);
    expect(code).not.toBe(0);
    expect(output).toContain('Cannot query field "stauts" on type "Exception"');
  }, 120_000);

  it('fails on a field misspelt where a component reads its data, naming it', async () => {
    const misspelt = copyWithEdit('src/ExceptionRow.tsx', (text) => text.replace('{exception.status}', '{exception.stauts}'));
    const { code, output } = await typecheck(misspelt);
    expect(code).not.toBe(0);
    expect(output).toMatch(/src\/ExceptionRow\.tsx\(\d+,\d+\): error TS2551: Property 'stauts' does not exist on type/);
  }, 120_000);
});

/** The cells of every row of the queue, as a person reads them. */
const rowsOf = (page: Page) => page.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)));

/** A row as the app shows an exception: the platform's record through the gateway. */
const row = (record: ExceptionRecord) => [record.id, record.status, record.category, record.type, record.description ?? '', isoInstant(record.createdAt)];

/** Resolves once the queue shows `expected` (or rejects with what it shows after `timeoutMs`). */
async function rowsBecome(page: Page, expected: unknown[][], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (JSON.stringify(await rowsOf(page)) !== JSON.stringify(expected)) {
    if (Date.now() > deadline) {
      expect(await rowsOf(page)).toEqual(expected);
      return;
    }
    await sleep(50);
  }
}

describe('examples/typed-web-app: in Chromium, on a production gateway trusting only its documents', () => {
  itInBrowser('shows the queue, loads the next page by its cursor, and shows a change of the platform without a reload', async () => {
    const manifestPath = join(app, 'src/gql/persisted-documents.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, string>;
    /** Operation name → its id in the manifest. */
    const ids = Object.fromEntries(Object.entries(manifest).map(([id, text]) => [/\b(?:query|subscription) (\w+)/.exec(text)?.[1], id]));
    expect(Object.keys(ids).sort()).toEqual(['ExceptionsChanged', 'ExceptionsQueue']);
    for (const id of Object.keys(manifest)) expect(id).toMatch(/^sha256:[0-9a-f]{64}$/);

    sandbox = await startSandbox({ scanDelayMs: 50 });
    gateway = await startProductionGateway({ UPSTREAM_URL: sandbox.url, TRUSTED_DOCUMENTS: manifestPath, TRUSTED_DOCUMENTS_ONLY: 'true', SUBSCRIPTION_POLL_MS: '250' });
    preview = spawnNpmIn(app, ['run', '--silent', 'preview', '--', '--host', '127.0.0.1', '--port', '0', '--strictPort'], { GATEWAY_URL: gateway.origin, NO_COLOR: '1' });
    const [, appUrl] = (await watchOutput(preview.stdout!).waitFor(/Local:\s+(http:\/\/127\.0\.0\.1:\d+\/)/, 60_000)) as [string, string];

    userDataDir = await mkdtemp(join(tmpdir(), 'typed-web-app-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    /** What the app sent to /graphql, in order. */
    const sent: Record<string, unknown>[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/graphql') sent.push(request.postDataJSON() as Record<string, unknown>);
    });
    /** The answers to the queue's pages, in order. */
    const pageAnswers: Promise<{ data: { exceptions: { pageInfo: { endCursor: string } } } }>[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/graphql' && (response.request().postDataJSON() as { operationName?: string }).operationName === 'ExceptionsQueue') pageAnswers.push(response.json());
    });
    let navigations = 0;
    page.on('framenavigated', (frame) => frame === page.mainFrame() && navigations++);

    const token = sandbox.tokens.find((t) => t.businessAccountName.toLowerCase().includes('acme'))!.token;
    const account = accountOf(sandbox, token);
    const newestFirst = () => sortRecords(sandbox.store.exceptions(account), [[(e) => e.createdAt, 'DESC']]);
    const records = newestFirst();
    expect(records.length).toBeGreaterThan(2 * PAGE_SIZE);

    await page.goto(appUrl);
    await page.getByLabel('Platform token').fill(token);
    await page.getByRole('button', { name: 'Open the queue' }).click();
    await rowsBecome(page, records.slice(0, PAGE_SIZE).map(row), 30_000);
    expect(await page.locator('#summary').innerText()).toBe(`${PAGE_SIZE} of ${records.length} exceptions`);

    await page.getByRole('button', { name: 'Load more' }).click();
    await rowsBecome(page, records.slice(0, 2 * PAGE_SIZE).map(row), 30_000);
    expect(await page.locator('#summary').innerText()).toBe(`${2 * PAGE_SIZE} of ${records.length} exceptions`);

    // Ids only, each a key of the manifest; the second page `after` the first page's endCursor.
    expect(sent.map((body) => [body.operationName, body.query, (body.extensions as { persistedQuery?: { sha256Hash?: string } }).persistedQuery?.sha256Hash]).sort()).toEqual([
      ['ExceptionsChanged', undefined, ids.ExceptionsChanged],
      ['ExceptionsQueue', undefined, ids.ExceptionsQueue],
      ['ExceptionsQueue', undefined, ids.ExceptionsQueue],
    ]);
    const pages = sent.filter((body) => body.operationName === 'ExceptionsQueue').map((body) => body.variables);
    expect(pages[0]).toEqual({ first: PAGE_SIZE });
    expect(pages[1]).toEqual({ first: PAGE_SIZE, after: (await pageAnswers[0]!).data.exceptions.pageInfo.endCursor });

    // Once the feed has polled (the exceptions by updatedAt, which the queue's pages never ask for), it
    // knows the list as it is: a change made after that is news to it.
    const polled = () => sandbox.requests.some((request) => request.path === '/exceptions' && decodeURIComponent(request.query).includes('updatedAt,DESC'));
    await until('the feed polled', () => polled() || undefined, 20_000, 20);
    const changes = sandbox.live.step().filter((change) => change.businessAccountId === account);
    const arrived = changes.find((change) => change.kind === 'arrived')!;
    const now = newestFirst();
    expect(now[0]!.id).toBe(arrived.id);
    await rowsBecome(page, now.slice(0, 2 * PAGE_SIZE + 1).map(row), 30_000);
    expect(await page.locator('#summary').innerText()).toBe(`${2 * PAGE_SIZE + 1} of ${records.length + 1} exceptions`);
    expect(navigations).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  }, 180_000);
});
