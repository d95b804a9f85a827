import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { exampleTabs, PLACEHOLDER_VALUES, type ExampleValues } from '../../src/playground/examples.ts';
import { assetPathOf, createPlayground, type Playground } from '../../src/playground/index.ts';
import type { PlaygroundPageConfig } from '../../src/playground/page-config.ts';

// test/http/playground.test.ts serves the playground through its HTTP stage; these tests call
// createPlayground's handlers directly: the page with a recording response, the bundle's files
// through a bare server that routes by assetPathOf alone.

const MISSING_BUNDLE =
  'The GraphQL playground is not built. Run `npm run build:playground` (node --disable-warning=ExperimentalWarning scripts/build-playground.ts) and reload.\n';

const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; worker-src 'self'; " +
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Cache-Control': 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};

/** What a handler did to a response: its status, headers, body and how many times it was ended. */
interface Recorded {
  statusCode: number;
  headers: Record<string, string | number>;
  body: string | undefined;
  ended: number;
}

function recorder(): { res: ServerResponse; recorded: Recorded } {
  const recorded: Recorded = { statusCode: 200, headers: {}, body: undefined, ended: 0 };
  const res = {
    set statusCode(value: number) {
      recorded.statusCode = value;
    },
    get statusCode() {
      return recorded.statusCode;
    },
    setHeader(name: string, value: string | number) {
      recorded.headers[name] = value;
      return this;
    },
    end(body?: string) {
      recorded.body = body;
      recorded.ended += 1;
      return this;
    },
  };
  return { res: res as unknown as ServerResponse, recorded };
}

const request = (method: string, url = '/graphql') => ({ method, url }) as IncomingMessage;

/** The page as the playground builds it for `config`, written out here to compare whole. */
function expectedPage(config: PlaygroundPageConfig, configJson: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Platform GraphQL playground</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${config.assetsPath}playground.css">
</head>
<body>
<div id="playground"></div>
<script type="application/json" id="playground-config">${configJson}</script>
<script src="${config.assetsPath}playground.js"></script>
</body>
</html>
`;
}

let bundleDir: string;
let emptyDir: string;

beforeAll(async () => {
  bundleDir = await mkdtemp(join(tmpdir(), 'playground-index-bundle-'));
  await writeFile(join(bundleDir, 'playground.js'), 'console.log("bundle");\n');
  emptyDir = await mkdtemp(join(tmpdir(), 'playground-index-empty-'));
});
afterAll(async () => {
  await rm(bundleDir, { recursive: true, force: true });
  await rm(emptyDir, { recursive: true, force: true });
});

describe('assetPathOf', () => {
  it.each([
    ['/playground/playground.js', '/playground.js'],
    ['/playground/workers/json.worker.js?v=2', '/workers/json.worker.js?v=2'],
    ['/PlayGround/Playground.CSS', '/Playground.CSS'],
    ['/playground/', '/'],
    ['/playground', '/'],
    ['/playground?v=1', '/?v=1'],
  ])('takes %s as the bundle path %s', (url, path) => {
    expect(assetPathOf(url)).toBe(path);
  });

  it.each(['/playgrounds/playground.js', '/playgroun', '/', '', '/graphql', 'playground/playground.js', '/x/playground/playground.js', '/playground#x'])(
    'takes %j as no bundle path',
    (url) => {
      expect(assetPathOf(url)).toBeUndefined();
    },
  );
});

describe("the playground's page", () => {
  it('is the page holding its configuration, with the headers that lock it to its origin', () => {
    const playground = createPlayground({ endpoint: '/graphql', demoToken: 'demo-token-acme', distDir: bundleDir });
    const { res, recorded } = recorder();
    playground.page(request('GET'), res);
    const headers = '{\n  "Authorization": "Bearer demo-token-acme"\n}';
    const config: PlaygroundPageConfig = {
      endpoint: '/graphql',
      tabs: exampleTabs(PLACEHOLDER_VALUES, headers),
      defaultHeaders: headers,
      persistHeaders: true,
      assetsPath: '/playground/',
    };
    const html = expectedPage(config, JSON.stringify(config).replace(/</g, '\\u003c'));
    expect(recorded).toEqual({
      statusCode: 200,
      headers: { Vary: 'Accept', ...PAGE_HEADERS, 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(html) },
      body: html,
      ended: 1,
    });
  });

  it('answers HEAD with the headers of the page, its length included, and no body', () => {
    const playground = createPlayground({ endpoint: '/graphql', distDir: bundleDir });
    const [get, head] = [recorder(), recorder()];
    playground.page(request('GET'), get.res);
    playground.page(request('HEAD'), head.res);
    expect(head.recorded).toEqual({ ...get.recorded, body: undefined });
    expect(get.recorded.headers['Content-Length']).toBe(Buffer.byteLength(get.recorded.body!));
  });

  it('escapes in its configuration what would end the script element or a JavaScript line, and reads back the same values', () => {
    const examples: ExampleValues = {
      ...PLACEHOLDER_VALUES,
      documentId: 'a</script><b>\u2028c\u2029d é',
    };
    const { res, recorded } = recorder();
    createPlayground({ endpoint: '/api/graphql', examples, distDir: bundleDir }).page(request('GET'), res);
    const json = /<script type="application\/json" id="playground-config">(.*)<\/script>\n<script src=/s.exec(recorded.body!)![1]!;
    expect(json).not.toMatch(/[<\u2028\u2029]/);
    expect(json).toContain('a\\u003c/script>\\u003cb>\\u2028c\\u2029d é');
    // Its length is counted in bytes: the é is two.
    expect(recorded.headers['Content-Length']).toBe(Buffer.byteLength(recorded.body!));
    expect(recorded.headers['Content-Length']).not.toBe(recorded.body!.length);
    const config = JSON.parse(json) as PlaygroundPageConfig;
    expect(config).toEqual({
      endpoint: '/api/graphql',
      tabs: exampleTabs(examples, '{\n  "Authorization": "Bearer <your access token>"\n}'),
      defaultHeaders: '{\n  "Authorization": "Bearer <your access token>"\n}',
      persistHeaders: false,
      assetsPath: '/playground/',
    });
  });

  it('is 503 with the command that builds the bundle while the bundle is missing, without the page headers', () => {
    const playground = createPlayground({ endpoint: '/graphql', distDir: emptyDir });
    for (const method of ['GET', 'HEAD']) {
      const { res, recorded } = recorder();
      playground.page(request(method), res);
      expect(recorded).toEqual({
        statusCode: 503,
        headers: { Vary: 'Accept', 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(MISSING_BUNDLE) },
        body: MISSING_BUNDLE,
        ended: 1,
      });
    }
  });
});

describe("the playground's bundle files", () => {
  /** A server that hands every path assetPathOf takes to `playground.asset`, and notes the request's URL after each. */
  async function serve(playground: Playground): Promise<{ url: string; urlsAfter: string[]; close(): Promise<void> }> {
    const urlsAfter: string[] = [];
    const server: Server = createServer((req, res) => {
      const path = assetPathOf(req.url!);
      if (path === undefined) return void res.writeHead(418).end();
      playground.asset(req, res, path);
      urlsAfter.push(req.url!);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      urlsAfter,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  it("serves a file of the bundle with headers that keep it to this origin, and gives the request its URL back", async () => {
    const server = await serve(createPlayground({ endpoint: '/graphql', distDir: bundleDir }));
    try {
      const response = await fetch(`${server.url}/playground/playground.js?v=1`);
      expect([response.status, await response.text()]).toEqual([200, 'console.log("bundle");\n']);
      expect([response.headers.get('x-content-type-options'), response.headers.get('cross-origin-resource-policy')]).toEqual(['nosniff', 'same-origin']);
      expect(response.headers.get('content-security-policy')).toBeNull();
      expect(server.urlsAfter).toEqual(['/playground/playground.js?v=1']);
    } finally {
      await server.close();
    }
  });

  it('answers a path the bundle lacks with 404, or with 503 and the build command while the bundle is missing', async () => {
    const built = await serve(createPlayground({ endpoint: '/graphql', distDir: bundleDir }));
    const unbuilt = await serve(createPlayground({ endpoint: '/graphql', distDir: emptyDir }));
    try {
      const missing = await fetch(`${built.url}/playground/other.js`);
      expect([missing.status, missing.headers.get('content-type'), await missing.text()]).toEqual([404, 'text/plain; charset=utf-8', 'Not found\n']);
      const notBuilt = await fetch(`${unbuilt.url}/playground/playground.js`);
      expect([notBuilt.status, notBuilt.headers.get('content-type'), await notBuilt.text()]).toEqual([503, 'text/plain; charset=utf-8', MISSING_BUNDLE]);
      expect([...built.urlsAfter, ...unbuilt.urlsAfter]).toEqual(['/playground/other.js', '/playground/playground.js']);
    } finally {
      await Promise.all([built.close(), unbuilt.close()]);
    }
  });
});
