import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { buildPlayground } from '../../scripts/build-playground.ts';
import { testConfig } from '../../src/settings/config.ts';
import { createLogger } from '../../src/logger.ts';
import { exampleTabs, PLACEHOLDER_VALUES } from '../../src/playground/examples.ts';
import { sandboxExampleValues } from '../../src/playground/index.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { startGateway, type Gateway } from '../../src/server.ts';
import { sortRecords } from '../support/expected.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));

// CI installs Chromium (.ci/run), so there the test must run; a workstation
// without it skips with a message rather than failing.
const browserAvailable = existsSync(CHROMIUM);
if (!browserAvailable && process.env.CI) throw new Error(`${CHROMIUM} is missing but CI is set: install it with apt-get install chromium`);
if (!browserAvailable) {
  console.warn(`Skipping the playground browser test: ${CHROMIUM} not found (apt-get update && apt-get install -y chromium)`);
}
const describeInBrowser = browserAvailable ? describe : describe.skip;

/** Monaco draws spaces as no-break spaces; compare on plain text. */
const plain = (text: string) => text.replace(/\u00a0/g, ' ');

/** The variables of the first example tab, which GraphiQL sends with whatever operation that tab holds. */
const FIRST_TAB_VARIABLES = JSON.parse(exampleTabs(PLACEHOLDER_VALUES, '')[0]!.variables) as Record<string, unknown>;

/** Short polls, so that a change made in the sandbox reaches the page within one interval. */
const SUBSCRIPTION_POLL_MS = '250';

/** The open-subscription gauges of the gateway's /metrics, e.g. `subscriptions_open{transport="sse"} 1`. */
async function openSubscriptions(gatewayUrl: string): Promise<string[]> {
  const metrics = await (await fetch(`${gatewayUrl}/metrics`)).text();
  return [...metrics.matchAll(/^(subscriptions_open\{transport="\w+"\}|subscription_pollers) (\d+)$/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
}

describeInBrowser('playground in a browser', () => {
  let sandbox: Sandbox;
  let gateway: Gateway;
  let context: BrowserContext;
  let page: Page;
  let userDataDir: string;
  let bundleDir: string;
  const requested: string[] = [];
  const problems: string[] = [];
  /** Called with each list of exceptions the sandbox answers, just before it is sent. */
  let onExceptionsAnswer: (() => void) | undefined;
  /** Called with each message the gateway logs. */
  let onGatewayLog: ((message: string) => void) | undefined;

  beforeAll(async () => {
    // Built from the source as it is, beside the test: a playground/dist/ left from older source
    // (it is not committed, and only npm install rebuilds it) would test yesterday's playground.
    bundleDir = await buildPlayground(await mkdtemp(join(tmpdir(), 'playground-bundle-')));
    sandbox = await startSandbox({
      onAnswer: (answer) => {
        if (answer.route === 'exceptions') onExceptionsAnswer?.();
      },
    });
    const demo = sandbox.tokens.find((t) => t.token === 'demo-token-acme')!;
    gateway = await startGateway(testConfig({ HOST: '127.0.0.1', PLAYGROUND: 'true', SUBSCRIPTION_POLL_MS }), sandbox.url, {
      // The gateway logs when a subscription ends, right after its gauges have counted it out.
      logger: createLogger('info', { destination: { write: (line: string) => onGatewayLog?.((JSON.parse(line) as { msg: string }).msg) } }),
      demoToken: demo.token,
      exampleValues: sandboxExampleValues(sandbox.examples(demo.businessAccountId)),
      playgroundDistDir: bundleDir,
    });
    userDataDir = await mkdtemp(join(tmpdir(), 'playground-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      // Tall enough that the result pane renders the first two records whole, cursors (about 150 characters, wrapped) and all.
      viewport: { width: 1600, height: 1600 },
    });
    // On the context, not the page: requests of the Monaco workers count too.
    context.on('request', (request) => requested.push(request.url()));
    page = context.pages()[0] ?? (await context.newPage());
    // Anything the page's Content-Security-Policy blocks (scripts, styles, workers, fonts) is recorded.
    await context.addInitScript(() => {
      const seen: string[] = [];
      (globalThis as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
    if (bundleDir) await rm(bundleDir, { recursive: true, force: true });
    await gateway?.close();
    await new Promise<void>((resolve) => (gateway ? gateway.server.close(() => resolve()) : resolve()));
    await sandbox?.close();
  });

  it('runs the exceptions example against the sandbox and shows its records, loading nothing from elsewhere', async () => {
    const ba = sandbox.tokens.find((t) => t.token === 'demo-token-acme')!.businessAccountId;
    const expected = sortRecords(
      sandbox.store.exceptions(ba).filter((e) => ['NEW', 'IN_PROGRESS'].includes(e.status) && e.category === 'BANK_ACCOUNT_VERIFICATION'),
      [[(e) => e.createdAt, 'DESC']],
    );
    expect(expected.length).toBeGreaterThan(5);

    const introspected = page.waitForResponse((r) => r.request().method() === 'POST' && (r.request().postData() ?? '').includes('__schema'));
    const opened = await page.goto(`${gateway.url}/graphql`);
    expect(opened!.headers()).toMatchObject({
      'content-security-policy': expect.stringContaining("script-src 'self'"),
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
      'x-content-type-options': 'nosniff',
    });
    await page.locator('.graphiql-query-editor .view-lines').filter({ hasText: 'ExceptionsPage' }).waitFor({ timeout: 30_000 });
    expect((await introspected).status()).toBe(200);
    // The headers editor opens pre-filled with the demo token.
    await page.getByRole('button', { name: /headers/i }).first().click();
    // The editor renders its lines after the click: wait for them (a failure still times out here).
    const headersEditor = page.locator('.graphiql-editor-tool .view-lines').last();
    await headersEditor.filter({ hasText: 'demo-token-acme' }).waitFor({ timeout: 15_000 });
    await expect(headersEditor.innerText().then(plain)).resolves.toContain('"Authorization": "Bearer demo-token-acme"');

    sandbox.resetRequests();
    const executed = page.waitForResponse((r) => r.request().method() === 'POST' && (r.request().postData() ?? '').includes('ExceptionsPage'));
    await page.locator('.graphiql-execute-button').click();
    expect((await executed).status()).toBe(200);

    const response = page.locator('.graphiql-response .view-lines');
    try {
      await response.filter({ hasText: expected[0]!.id }).waitFor({ timeout: 15_000 });
    } catch (error) {
      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'playground-failure.png') });
      throw new Error(`The result pane never showed ${expected[0]!.id}; it shows:\n${plain(await response.innerText())}`, { cause: error });
    }
    const shown = plain(await response.innerText());
    expect(shown).toContain(`"totalCount": ${expected.length}`);
    expect(shown).toContain(`"id": "${expected[0]!.id}"`);
    // Long values wrap in the pane, so compare short ones: the entity is the exception's Financial Account.
    expect(shown.replace(/\s+/g, ' ')).toContain(`"__typename": "FinancialAccount", "id": "${expected[0]!.entityId}"`);
    expect(shown).toContain(`"id": "${expected[1]!.id}"`);
    expect(shown).not.toContain('"errors"');

    // The gateway forwarded the token from the headers editor to the platform.
    const platformCalls = sandbox.requests.filter((r) => r.host === 'api');
    expect(platformCalls.map((r) => [r.route, r.authorization])).toEqual([['exceptions', 'Bearer demo-token-acme']]);

    // The doc explorer lists the schema's root fields.
    await page.getByRole('button', { name: /documentation explorer/i }).click();
    await page.locator('.graphiql-doc-explorer').getByText('Query', { exact: true }).first().click();
    await page.locator('.graphiql-doc-explorer').getByText('linxBatches', { exact: true }).first().waitFor();

    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'playground.png') });

    const network = requested.filter((url) => !url.startsWith('data:'));
    expect(network).toEqual(expect.arrayContaining([
      `${gateway.url}/graphql`,
      `${gateway.url}/playground/playground.js`,
      `${gateway.url}/playground/playground.css`,
      `${gateway.url}/playground/workers/graphql.worker.js`,
    ]));
    expect(network.filter((url) => new URL(url).hostname !== '127.0.0.1')).toEqual([]);
    expect(problems).toEqual([]);
    // The policy let the bundle, its styles and the Monaco workers run: nothing was blocked.
    expect(await page.evaluate(() => (globalThis as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
  }, 90_000);

  /**
   * Loads the page as on a first visit (the example tabs, the first one open: ExceptionsPage, with
   * the demo token in its headers and an empty result pane) and empties its operation editor.
   */
  async function selectFirstExample(): Promise<void> {
    // The stored tabs are cleared once GraphiQL has left the page: none of its pending writes can follow.
    await page.goto('about:blank');
    await context.setStorageState({ cookies: [], origins: [] });
    await page.goto(`${gateway.url}/graphql`);
    await page.locator('.graphiql-query-editor .view-lines').filter({ hasText: 'ExceptionsPage' }).waitFor({ timeout: 30_000 });
    await page.locator('.graphiql-query-editor .view-lines').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
  }

  /**
   * Pastes `text` into the emptied editor and runs it with the keyboard at once, as a user who pastes and
   * presses Ctrl-Enter does. GraphiQL reads the operation from the editor 100 ms after an edit, so
   * the run still carries the replaced operation's name (ExceptionsPage).
   */
  async function pasteAndRun(text: string): Promise<void> {
    // One edit: typed key by key, Monaco would close each brace it opens.
    await page.keyboard.insertText(text);
    await page.keyboard.press('ControlOrMeta+Enter');
  }

  it('runs a query pasted over an example and run at once, before GraphiQL has read the new operation', async () => {
    const ba = sandbox.tokens.find((t) => t.token === 'demo-token-acme')!.businessAccountId;
    await selectFirstExample();
    // Handed the replaced operation's name, the playground runs the document's one operation, and sends no name.
    const executed = page.waitForResponse((r) => r.request().method() === 'POST' && (r.request().postData() ?? '').includes('totalCount'));
    await pasteAndRun('{ exceptions(first: 1) { totalCount } }');
    expect((await executed).request().postDataJSON()).toEqual({ query: '{ exceptions(first: 1) { totalCount } }', variables: FIRST_TAB_VARIABLES });
    const response = page.locator('.graphiql-response .view-lines');
    await response.filter({ hasText: 'totalCount' }).waitFor();
    expect(plain(await response.innerText()).replace(/\s+/g, '')).toBe(`{"data":{"exceptions":{"totalCount":${sandbox.store.exceptions(ba).length}}},"extensions":{"cost":{"requestedQueryCost":1,"actualQueryCost":1}}}`);
  }, 90_000);

  it('runs a subscription pasted over an example, shows the change made in the sandbox, and releases the stream when stopped', async () => {
    const ba = sandbox.tokens.find((t) => t.token === 'demo-token-acme')!.businessAccountId;
    expect(await openSubscriptions(gateway.url)).toEqual(['subscription_pollers 0', 'subscriptions_open{transport="multipart"} 0', 'subscriptions_open{transport="sse"} 0', 'subscriptions_open{transport="ws"} 0']);
    await selectFirstExample();
    // The feed starts from the gateway's first poll of the platform: make the change only after it.
    const firstPoll = new Promise<void>((resolve) => (onExceptionsAnswer = resolve));
    const streamed = page.waitForRequest((r) => r.method() === 'POST' && (r.postData() ?? '').includes('exceptionsChanged'));
    // Handed the replaced operation's name, the playground still sees the subscription and streams it.
    await pasteAndRun('subscription { exceptionsChanged { cursor node { id status } } }');
    const request = await streamed;
    expect(request.postDataJSON()).toEqual({ query: 'subscription { exceptionsChanged { cursor node { id status } } }', variables: FIRST_TAB_VARIABLES });
    await page.locator('.graphiql-query-editor .view-lines').filter({ hasText: 'exceptionsChanged' }).waitFor();
    expect([request.headers()['accept'], request.headers()['authorization']]).toEqual(['text/event-stream', 'Bearer demo-token-acme']);
    await firstPoll;
    onExceptionsAnswer = undefined;
    expect(await openSubscriptions(gateway.url)).toEqual(['subscription_pollers 1', 'subscriptions_open{transport="multipart"} 0', 'subscriptions_open{transport="sse"} 1', 'subscriptions_open{transport="ws"} 0']);

    // One step of the sandbox's live mode: exceptions of Acme arrive or change status.
    const changed = new Set(sandbox.live.step().filter((c) => c.businessAccountId === ba && (c.kind === 'arrived' || c.kind === 'status')).map((c) => c.id));
    expect(changed.size).toBeGreaterThan(0);
    // The feed sends them oldest first, (updatedAt, id); the pane shows the latest event, so the last of them.
    const [last] = sortRecords(sandbox.store.exceptions(ba).filter((e) => changed.has(e.id)), [[(e) => e.updatedAt, 'DESC'], [(e) => e.id, 'DESC']]);
    const response = page.locator('.graphiql-response .view-lines');
    try {
      await response.filter({ hasText: last!.id }).waitFor({ timeout: 15_000 });
    } catch (error) {
      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'playground-subscription-failure.png') });
      throw new Error(`The result pane never showed ${last!.id}; it shows:\n${plain(await response.innerText())}`, { cause: error });
    }
    // The cursor wraps over several lines of the pane: compare without whitespace, the cursor by its form.
    const event = plain(await response.innerText()).replace(/\s+/g, '');
    expect(event).toMatch(new RegExp(`^\\{"data":\\{"exceptionsChanged":\\{"cursor":"[\\w-]+","node":\\{"id":"${last!.id}","status":"${last!.status}"\\}\\}\\}\\}$`));

    // The run button turned into a stop button while the stream is open; stopping closes it.
    const ended = new Promise<void>((resolve) => (onGatewayLog = (message) => message === 'subscription ended' && resolve()));
    await page.getByRole('button', { name: /^Stop query/ }).click();
    await page.getByRole('button', { name: /^Execute query/ }).waitFor();
    // A stop that leaves the stream open (the gateway never ends the subscription) times out here.
    await ended;
    onGatewayLog = undefined;
    expect(await openSubscriptions(gateway.url)).toEqual(['subscription_pollers 0', 'subscriptions_open{transport="multipart"} 0', 'subscriptions_open{transport="sse"} 0', 'subscriptions_open{transport="ws"} 0']);
    // Stopping leaves the last event in the pane, with no error after it.
    expect(plain(await response.innerText()).replace(/\s+/g, '')).toBe(event);
    expect(problems).toEqual([]);
  }, 90_000);
});
