import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chromium, type BrowserContext } from 'playwright-core';
import { accountOf, sortRecords } from '../support/expected.ts';
import { startStack, type Stack } from '../support/stack.ts';

// A single-page app on its own development server (Vite's default port 5173)
// calling the gateway on another origin with the demo token, in a real browser:
// what CORS has to make work, and what it has to keep refusing.

const CHROMIUM = '/usr/bin/chromium';
const APP_PORT = 5173;
const browserAvailable = existsSync(CHROMIUM);
if (!browserAvailable && process.env.CI) throw new Error(`${CHROMIUM} is missing but CI is set: install it with apt-get install chromium`);
if (!browserAvailable) console.warn(`Skipping the browser-app test: ${CHROMIUM} not found (apt-get update && apt-get install -y chromium)`);
const describeInBrowser = browserAvailable ? describe : describe.skip;

/** The whole app: one query with the demo token, its nodes listed, or the error shown. */
const APP_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Exceptions inbox</title><link rel="icon" href="data:,"></head>
<body>
<p id="status">loading</p>
<ul id="exceptions"></ul>
<script>
const gateway = new URLSearchParams(location.search).get('gateway');
fetch(gateway + '/graphql', {
  method: 'POST',
  headers: { 'Content-Type': 'application/json', Authorization: 'Bearer demo-token-acme' },
  body: JSON.stringify({ query: 'query Inbox($n: Int) { exceptions(first: $n) { totalCount nodes { id status } } }', variables: { n: 3 } }),
})
  .then((response) => response.json())
  .then(({ data, errors }) => {
    if (errors) throw new Error(errors[0].message);
    for (const node of data.exceptions.nodes) {
      const item = document.createElement('li');
      item.textContent = node.id + ' ' + node.status;
      document.getElementById('exceptions').append(item);
    }
    document.getElementById('status').textContent = 'total ' + data.exceptions.totalCount;
  })
  .catch((error) => { document.getElementById('status').textContent = 'failed: ' + error.message; });
</script>
</body>
</html>
`;

/**
 * The app's static server, at `port` or, when another process holds it, at a
 * free port. A real server, not Playwright's request routing: with routing on,
 * Playwright answers CORS preflights itself and the gateway's policy is never asked.
 */
async function serveApp(port: number, host = '127.0.0.1'): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(APP_PAGE);
  });
  const listen = (at: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(at, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  try {
    await listen(port);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    console.warn(`Port ${port} is taken: the app is served on a free port instead (still an http://localhost origin)`);
    await listen(0);
  }
  return server;
}

describeInBrowser('a browser app on http://localhost:5173', () => {
  let stack: Stack;
  let app: Server;
  let appPort: number;
  let context: BrowserContext;
  let userDataDir: string;
  /** Method, path and Origin of every request the gateway received. */
  const received: [string, string, string][] = [];

  beforeAll(async () => {
    [stack, app] = await Promise.all([startStack({ NODE_ENV: 'development' }), serveApp(APP_PORT)]);
    // Ahead of the gateway's own listener, so the URL is seen before Express rewrites it.
    stack.gateway.server.prependListener('request', (req: { method?: string; url?: string; headers: Record<string, unknown> }) => {
      received.push([req.method ?? '', req.url ?? '', String(req.headers.origin)]);
    });
    appPort = (app.address() as AddressInfo).port;
    userDataDir = await mkdtemp(join(tmpdir(), 'browser-app-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
    await new Promise<void>((resolve) => (app ? app.close(() => resolve()) : resolve()));
    await stack?.close();
  });

  async function open(origin: string) {
    const page = await context.newPage();
    received.length = 0;
    await page.goto(`${origin}/?gateway=${encodeURIComponent(stack.gateway.url)}`);
    await page.locator('#status').filter({ hasNotText: 'loading' }).waitFor({ timeout: 15_000 });
    return { page };
  }

  it('runs a query with the demo token and shows the data', async () => {
    const expected = sortRecords(stack.sandbox.store.exceptions(accountOf(stack.sandbox, stack.acme)), [[(e) => e.createdAt, 'DESC']]);
    stack.sandbox.resetRequests();
    const { page } = await open(`http://localhost:${appPort}`);
    expect(received).toEqual([
      ['OPTIONS', '/graphql', `http://localhost:${appPort}`],
      ['POST', '/graphql', `http://localhost:${appPort}`],
    ]);
    expect(await page.locator('#status').innerText()).toBe(`total ${expected.length}`);
    expect(await page.locator('#exceptions li').allInnerTexts()).toEqual(expected.slice(0, 3).map((e) => `${e.id} ${e.status}`));
    // The token travelled through the gateway to the platform, once.
    expect(stack.platformCalls().map((r) => [r.route, r.authorization])).toEqual([['exceptions', 'Bearer demo-token-acme']]);
    await page.close();
  }, 120_000);

  it('is refused by the browser when served from an origin the gateway does not allow', async () => {
    stack.sandbox.resetRequests();
    // The same app from another origin: 127.0.0.2 is loopback too, but no development-server origin the gateway allows.
    const other = await serveApp(0, '127.0.0.2');
    const origin = `http://127.0.0.2:${(other.address() as AddressInfo).port}`;
    const { page } = await open(origin).finally(() => other.close());
    expect(await page.locator('#status').innerText()).toBe('failed: Failed to fetch');
    expect(await page.locator('#exceptions li').count()).toBe(0);
    // The preflight got no allow header, so the query itself was never sent.
    expect(received).toEqual([['OPTIONS', '/graphql', origin]]);
    expect(stack.platformCalls()).toEqual([]);
    await page.close();
  }, 120_000);
});
