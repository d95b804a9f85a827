import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Router } from 'express';
import { exampleTabs, PLACEHOLDER_VALUES, type ExampleValues } from './examples.ts';
import type { PlaygroundPageConfig } from './page-config.ts';
import { PROJECT_ROOT } from '../project-root.ts';

export type { ExampleValues } from './examples.ts';
export { sandboxExampleValues } from './sandbox-examples.ts';

/** Where `scripts/build-playground.ts` writes the bundle. */
export const DEFAULT_DIST_DIR = fileURLToPath(new URL('playground/dist/', PROJECT_ROOT));

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

/** A browser navigating to the endpoint, as opposed to a GraphQL client doing a GET. */
function wantsPage(req: Request): boolean {
  if (req.query.query !== undefined) return false;
  return req.accepts(['application/graphql-response+json', 'application/json', 'text/html']) === 'text/html';
}

/**
 * The self-hosted GraphiQL playground: `GET <endpoint>` from a browser answers
 * the page, `/playground/*` its bundle. Every other request to the endpoint
 * passes through untouched to the GraphQL server mounted after this router.
 */
export function playgroundRouter(options: PlaygroundOptions): Router {
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

  const router = express.Router();
  router.get(options.endpoint, (req, res, next) => {
    if (!wantsPage(req)) {
      next();
      return;
    }
    res.vary('Accept');
    if (!bundled()) {
      res.status(503).type('text/plain').send(MISSING_BUNDLE);
      return;
    }
    res.set(PAGE_HEADERS);
    res.type('html').send(html);
  });
  router.use(ASSETS_PATH, express.static(distDir, { index: false, fallthrough: true, setHeaders: (res) => res.set(ASSET_HEADERS) }));
  router.use(ASSETS_PATH, (_req, res) => {
    if (bundled()) res.status(404).type('text/plain').send('Not found\n');
    else res.status(503).type('text/plain').send(MISSING_BUNDLE);
  });
  return router;
}
