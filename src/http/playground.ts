import type { IncomingMessage } from 'node:http';
import Negotiator from 'negotiator';
import type { PlaygroundOptions } from '../playground/index.ts';
import { send } from '../send.ts';
import { pathOf, type Stage } from './stage.ts';

/**
 * Where the playground is served: a browser's GET (or HEAD) of the endpoint gets the page, and
 * `/playground/*` the bundle's files (src/playground/); every other request passes on. The page's
 * module is loaded only where the playground is on, so production start-up does not pay for it.
 */
export async function playgroundStage(options: PlaygroundOptions): Promise<Stage> {
  const { createPlayground, assetPathOf } = await import('../playground/index.ts');
  const playground = createPlayground(options);
  const endpoint = options.endpoint.toLowerCase();
  return (req, res, next) => {
    const path = pathOf(req);
    if (req.method === 'GET' || req.method === 'HEAD') {
      const lower = path.toLowerCase();
      // The endpoint as Express routes matched it: any case, one trailing slash allowed.
      if ((lower === endpoint || lower === `${endpoint}/`) && wantsPage(req)) return playground.page(req, res);
    }
    const asset = assetPathOf(req.url ?? '/');
    if (asset === undefined) return next();
    playground.asset(req, res, asset);
  };
}

const PAGE_TYPES = ['application/graphql-response+json', 'application/json', 'text/html'];

/** A request that prefers HTML to JSON and asks no query: a browser visiting, as opposed to a GraphQL client's GET. */
function wantsPage(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  if (accept === undefined || !accept.includes('html')) return false;
  if (new URL(req.url ?? '/', 'http://gateway').searchParams.has('query')) return false;
  return new Negotiator(req).mediaType(PAGE_TYPES) === 'text/html';
}

/** A browser navigating to the endpoint. */
function isBrowserNavigation(req: IncomingMessage): boolean {
  return req.method === 'GET' && wantsPage(req);
}

const PLAYGROUND_OFF_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>GraphQL endpoint</title></head>
<body>
<p>This is the GraphQL endpoint of the gateway. The playground is off (off by default in production): set <code>PLAYGROUND=true</code> to serve it here.</p>
<p>GraphQL clients send <code>POST /graphql</code> with a JSON body.</p>
</body>
</html>
`;

/**
 * Where the playground is not served: a browser opening the endpoint gets a short page saying so
 * (404: there is no page here), instead of the JSON refusal meant for GraphQL clients. Every other
 * request passes on.
 */
export const playgroundOffStage: Stage = (req, res, next) => {
  if (!isBrowserNavigation(req)) {
    next();
    return;
  }
  res.setHeader('Vary', 'Origin, Accept');
  send(res, 404, 'text/html; charset=utf-8', PLAYGROUND_OFF_PAGE);
};
