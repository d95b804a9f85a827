import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { playgroundStage } from '../../src/http/playground.ts';
import type { PlaygroundOptions } from '../../src/playground/index.ts';
import type { PlaygroundPageConfig } from '../../src/playground/page-config.ts';
import { startStack, type Stack } from '../support/stack.ts';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

const VALUES: NonNullable<PlaygroundOptions['examples']> = {
  financialAccountId: 'fa-1',
  templateId: 'tpl-1',
  templateVersionId: 'tpl-1-v2',
  documentId: 'doc-1',
  updateInput: { id: 'doc-2', documentType: 'OTHER', name: '</script><script>alert(1)</script>', description: 'd' },
};

let bundleDir: string;
let emptyDir: string;

/** A server with only the playground's stage, over a stand-in bundle, so the page logic is tested without building. */
async function serve(options: Partial<PlaygroundOptions>): Promise<{ url: string; close(): Promise<void> }> {
  const stage = await playgroundStage({ endpoint: '/graphql', distDir: bundleDir, ...options });
  const server: Server = createServer((req, res) =>
    stage(req, res, () => {
      res.writeHead(418, { 'content-type': 'text/plain' }).end('next handler');
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function configOf(html: string): PlaygroundPageConfig {
  const match = /<script type="application\/json" id="playground-config">(.*?)<\/script>/s.exec(html);
  expect(match).not.toBeNull();
  return JSON.parse(match![1]!) as PlaygroundPageConfig;
}

beforeAll(async () => {
  bundleDir = await mkdtemp(join(tmpdir(), 'playground-bundle-'));
  await mkdir(join(bundleDir, 'workers'));
  await writeFile(join(bundleDir, 'playground.js'), 'console.log("bundle");\n');
  await writeFile(join(bundleDir, 'playground.css'), 'body{margin:0}\n');
  await writeFile(join(bundleDir, 'workers', 'json.worker.js'), 'self.onmessage=()=>{};\n');
  emptyDir = await mkdtemp(join(tmpdir(), 'playground-empty-'));
});
afterAll(async () => {
  await rm(bundleDir, { recursive: true, force: true });
  await rm(emptyDir, { recursive: true, force: true });
});

describe('playground stage', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    server = await serve({ demoToken: 'demo-token-acme', examples: VALUES });
  });
  afterAll(() => server.close());

  it('answers a browser navigating to the endpoint with the page, locked to its own origin', async () => {
    const response = await fetch(`${server.url}/graphql`, { headers: { accept: BROWSER_ACCEPT } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('vary')).toBe('Accept');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp.split('; ')).toEqual(expect.arrayContaining(["default-src 'self'", "script-src 'self'", "connect-src 'self'", "worker-src 'self'"]));
    const html = await response.text();
    expect(html).toContain('<link rel="icon" href="data:,">');
    expect(html).toContain('<link rel="stylesheet" href="/playground/playground.css">');
    expect(html).toContain('<script src="/playground/playground.js"></script>');
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('pre-fills the demo token and one runnable example per area, with the given ids', async () => {
    const config = configOf(await (await fetch(`${server.url}/graphql`, { headers: { accept: BROWSER_ACCEPT } })).text());
    const headers = '{\n  "Authorization": "Bearer demo-token-acme"\n}';
    expect(config.endpoint).toBe('/graphql');
    expect(config.assetsPath).toBe('/playground/');
    expect(config.persistHeaders).toBe(true);
    expect(config.defaultHeaders).toBe(headers);
    expect(config.tabs.map((tab) => /^(query|mutation) (\w+)/m.exec(tab.query)?.slice(1))).toEqual([
      ['query', 'ExceptionsPage'],
      ['query', 'LinxBatches'],
      ['query', 'DocumentAcceptances'],
      ['query', 'Document'],
      ['mutation', 'UpdateDocument'],
    ]);
    expect(config.tabs.every((tab) => tab.headers === headers)).toBe(true);
    expect(config.tabs.map((tab) => JSON.parse(tab.variables) as unknown)).toEqual([
      { filter: { status: ['NEW', 'IN_PROGRESS'], category: 'BANK_ACCOUNT_VERIFICATION' }, first: 5, after: null, orderBy: [{ field: 'CREATED_AT', direction: 'DESC' }] },
      { filter: { templateId: 'tpl-1', templateVersionId: 'tpl-1-v2' }, first: 5, after: null },
      { financialAccountId: 'fa-1', first: 5, after: null, orderBy: [{ field: 'RESPONDED_AT', direction: 'DESC' }] },
      { id: 'doc-1' },
      { input: VALUES.updateInput },
    ]);
  });

  it('keeps values from closing the configuration script element', async () => {
    const html = await (await fetch(`${server.url}/graphql`, { headers: { accept: BROWSER_ACCEPT } })).text();
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).toContain('\\u003c/script>\\u003cscript>alert(1)\\u003c/script>');
  });

  it('passes every non-browser request to the endpoint on to the next handler', async () => {
    const passes = [
      fetch(`${server.url}/graphql`, { headers: { accept: 'application/json' } }),
      fetch(`${server.url}/graphql`, { headers: { accept: 'application/graphql-response+json' } }),
      fetch(`${server.url}/graphql`, { headers: { accept: '*/*' } }),
      fetch(`${server.url}/graphql`),
      // A GET operation from a browser address bar is a GraphQL request, not a visit.
      fetch(`${server.url}/graphql?query=%7B__typename%7D`, { headers: { accept: BROWSER_ACCEPT } }),
      fetch(`${server.url}/graphql`, { method: 'POST', headers: { accept: BROWSER_ACCEPT, 'content-type': 'application/json' }, body: '{"query":"{__typename}"}' }),
    ];
    for (const response of await Promise.all(passes)) {
      expect([response.status, await response.text()]).toEqual([418, 'next handler']);
    }
  });

  it('serves the bundle under /playground/ and nothing else there', async () => {
    const script = await fetch(`${server.url}/playground/playground.js`);
    expect([script.status, script.headers.get('content-type'), await script.text()]).toEqual([200, 'text/javascript; charset=utf-8', 'console.log("bundle");\n']);
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    const worker = await fetch(`${server.url}/playground/workers/json.worker.js`);
    expect(worker.status).toBe(200);
    const missing = await fetch(`${server.url}/playground/other.js`);
    expect([missing.status, await missing.text()]).toEqual([404, 'Not found\n']);
    const traversal = await fetch(`${server.url}/playground/..%2f..%2fpackage.json`);
    expect(traversal.status).toBe(404);
  });
});

describe('playground stage paths', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    server = await serve({});
  });
  afterAll(() => server.close());

  it('matches the endpoint and the assets path in any case, the endpoint with one trailing slash, HEAD as GET', async () => {
    for (const path of ['/GraphQL', '/graphql/']) {
      const page = await fetch(`${server.url}${path}`, { headers: { accept: BROWSER_ACCEPT } });
      expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    }
    const head = await fetch(`${server.url}/graphql`, { method: 'HEAD', headers: { accept: BROWSER_ACCEPT } });
    expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([200, 'text/html; charset=utf-8', '']);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
    const upper = await fetch(`${server.url}/PLAYGROUND/playground.css?v=1`);
    expect([upper.status, await upper.text()]).toEqual([200, 'body{margin:0}\n']);
  });

  it('answers 404 under the assets path for a folder, another method or a path beside it, and passes other paths on', async () => {
    const answers = await Promise.all([
      fetch(`${server.url}/playground`),
      fetch(`${server.url}/playground/workers/`),
      fetch(`${server.url}/playground/playground.js`, { method: 'POST', body: 'x' }),
    ]);
    for (const answer of answers) expect([answer.status, await answer.text()]).toEqual([404, 'Not found\n']);
    for (const path of ['/playgrounds/playground.js', '/graphql/playground.js', '/graphqlx']) {
      const answer = await fetch(`${server.url}${path}`, { headers: { accept: BROWSER_ACCEPT } });
      expect([path, answer.status, await answer.text()]).toEqual([path, 418, 'next handler']);
    }
  });
});

describe('playground stage without a demo token', () => {
  it('shows a placeholder token and does not keep typed headers in local storage', async () => {
    const server = await serve({});
    try {
      const config = configOf(await (await fetch(`${server.url}/graphql`, { headers: { accept: BROWSER_ACCEPT } })).text());
      expect(config.defaultHeaders).toBe('{\n  "Authorization": "Bearer <your access token>"\n}');
      expect(config.persistHeaders).toBe(false);
      expect(JSON.parse(config.tabs[2]!.variables)).toMatchObject({ financialAccountId: '<financial account id>' });
    } finally {
      await server.close();
    }
  });
});

describe('playground stage before the bundle is built', () => {
  it('answers 503 with the command that builds it', async () => {
    const server = await serve({ distDir: emptyDir });
    try {
      for (const path of ['/graphql', '/playground/playground.js']) {
        const response = await fetch(`${server.url}${path}`, { headers: { accept: BROWSER_ACCEPT } });
        expect(response.status).toBe(503);
        expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
        expect(await response.text()).toBe(
          'The GraphQL playground is not built. Run `npm run build:playground` (node --disable-warning=ExperimentalWarning scripts/build-playground.ts) and reload.\n',
        );
      }
    } finally {
      await server.close();
    }
  });
});

describe('gateway with the playground', () => {
  let enabled: Stack;
  let disabled: Stack;
  beforeAll(async () => {
    [enabled, disabled] = await Promise.all([startStack({ PLAYGROUND: 'true' }), startStack({ PLAYGROUND: 'false' })]);
  });
  afterAll(async () => {
    await Promise.all([enabled?.close(), disabled?.close()]);
  });

  it('leaves GraphQL requests to /graphql untouched', async () => {
    const post = await enabled.gql<{ __typename: string }>('{ __typename }');
    expect(post).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
    const get = await fetch(`${enabled.gateway.url}/graphql?query=%7B__typename%7D`, { headers: { accept: 'application/json', 'apollo-require-preflight': 'true' } });
    expect([get.status, await get.json()]).toEqual([200, { data: { __typename: 'Query' }, extensions: { cost: { requestedQueryCost: 0, actualQueryCost: 0 } } }]);
  });

  it('is not mounted when PLAYGROUND=false: a browser GET is told so, and its assets are not found', async () => {
    const page = await fetch(`${disabled.gateway.url}/graphql`, { headers: { accept: BROWSER_ACCEPT } });
    expect([page.status, page.headers.get('content-type')]).toEqual([404, 'text/html; charset=utf-8']);
    const text = await page.text();
    expect(text).toContain('The playground is off (off by default in production): set <code>PLAYGROUND=true</code> to serve it here.');
    expect(text).not.toContain('playground-config');
    const asset = await fetch(`${disabled.gateway.url}/playground/playground.js`, { headers: { 'x-request-id': 'asset-1' } });
    expect([asset.status, await asset.json()]).toEqual([
      404,
      { errors: [{ message: 'Not found: the GraphQL endpoint is POST /graphql', extensions: { code: 'NOT_FOUND', requestId: 'asset-1' } }] },
    ]);
  });
});
