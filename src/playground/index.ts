import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import serveStatic from 'serve-static';
import { exampleTabs, PLACEHOLDER_VALUES, type ExampleValues } from './examples.ts';
import type { PlaygroundPageConfig } from './page-config.ts';
import { PROJECT_ROOT } from '../project-root.ts';
import { send } from '../send.ts';

export type { ExampleValues } from './examples.ts';
export { sandboxExampleValues } from './sandbox-examples.ts';

/** Where `scripts/build-playground.ts` writes the bundle. */
const DEFAULT_DIST_DIR = fileURLToPath(new URL('playground/dist/', PROJECT_ROOT));

const ASSETS_PATH = '/playground/';
const BUNDLE_FILE = 'playground.js';

export interface PlaygroundOptions {
  /** Path of the GraphQL endpoint; a browser's GET of it gets the page. */
  endpoint: string;
  /** Pre-filled as the Authorization header of every example tab (the embedded sandbox's demo token). */
  demoToken?: string;
  /** Ids the example operations use; placeholders when absent. */
  examples?: ExampleValues;
  /** The built bundle; defaults to playground/dist/. */
  distDir?: string;
}

const MISSING_BUNDLE =
  'The GraphQL playground is not built. Run `npm run build:playground` ' +
  '(node --disable-warning=ExperimentalWarning scripts/build-playground.ts) and reload.\n';

// Everything the page loads comes from this origin; the data: icon only stops the browser asking for /favicon.ico.
// Monaco sets inline styles on its elements, hence 'unsafe-inline' for styles (never for scripts).
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "worker-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The page's headers. It holds a bearer token (the headers editor) and runs
 * queries with it, so: no framing (clickjacking), no referrer leaving with the
 * URL, its own browsing-context group (no window.opener handle from another
 * site), and no powerful browser features.
 */
const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'Cache-Control': 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
};

/** The bundle's files are only for this page: other sites may not embed them. */
const ASSET_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** JSON inside a <script> element: `<` escaped so no value can close the element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function page(config: PlaygroundPageConfig): string {
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
<script type="application/json" id="playground-config">${scriptJson(config)}</script>
<script src="${config.assetsPath}${BUNDLE_FILE}"></script>
</body>
</html>
`;
}

/** A bundle file's path below the assets path (`/playground/…`), or undefined for any other path; matched as Express routes match, ignoring case. */
export function assetPathOf(url: string): string | undefined {
  const prefix = ASSETS_PATH.slice(0, -1);
  if (url.length < prefix.length || url.slice(0, prefix.length).toLowerCase() !== prefix) return undefined;
  const rest = url.slice(prefix.length);
  if (rest === '' || rest[0] === '?') return `/${rest}`;
  return rest[0] === '/' ? rest : undefined;
}

/** What the playground serves: its page (at the endpoint, to a browser) and the bundle's files. */
export interface Playground {
  /** Answers the page, or 503 with the build command while the bundle is missing. */
  page(req: IncomingMessage, res: ServerResponse): void;
  /** Answers a file of the bundle (`path` as assetPathOf gave it), or 404 (503 while the bundle is missing). */
  asset(req: IncomingMessage, res: ServerResponse, path: string): void;
}

/**
 * The self-hosted GraphiQL playground: its page, built once with the example tabs and token, and
 * its bundle's files, served by serve-static (ETag, Last-Modified, ranges, no path outside the folder).
 */
export function createPlayground(options: PlaygroundOptions): Playground {
  const distDir = options.distDir ?? DEFAULT_DIST_DIR;
  const headers = JSON.stringify({ Authorization: `Bearer ${options.demoToken ?? '<your access token>'}` }, null, 2);
  const html = page({
    endpoint: options.endpoint,
    tabs: exampleTabs(options.examples ?? PLACEHOLDER_VALUES, headers),
    defaultHeaders: headers,
    persistHeaders: options.demoToken !== undefined,
    assetsPath: ASSETS_PATH,
  });
  const bundled = () => existsSync(`${distDir}/${BUNDLE_FILE}`);
  const files = serveStatic(distDir, { index: false, fallthrough: true, redirect: false, setHeaders: (res) => setHeaders(res, ASSET_HEADERS) });
  const notFound = (res: ServerResponse) => {
    if (bundled()) sendText(res, 404, 'Not found\n');
    else sendText(res, 503, MISSING_BUNDLE);
  };

  return {
    page(req, res) {
      res.setHeader('Vary', 'Accept');
      if (!bundled()) return sendText(res, 503, MISSING_BUNDLE);
      setHeaders(res, PAGE_HEADERS);
      send(res, 200, 'text/html; charset=utf-8', html, req.method === 'HEAD');
    },
    asset(req, res, path) {
      // serve-static reads the file's path from the request's URL: relative to the assets path while it runs.
      const original = req.url;
      req.url = path;
      try {
        files(req, res, () => notFound(res));
      } finally {
        req.url = original;
      }
    },
  };
}

function setHeaders(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  for (const name in headers) res.setHeader(name, headers[name]!);
}

function sendText(res: ServerResponse, status: number, text: string): void {
  send(res, status, 'text/plain; charset=utf-8', text);
}
