import type { IncomingMessage } from 'node:http';
import Negotiator from 'negotiator';
import type { PlaygroundOptions } from '../playground/index.ts';
import { isGraphQLPath, pathOf, type Stage } from './stage.ts';

/**
 * Where the playground is served: a GET (or HEAD) of the endpoint, and any other path but the
 * operator's, go to its router (src/playground/), which answers a browser the page and
 * `/playground/*` the bundle, and passes anything else back to the next stage. Express serves these and nothing else; it is loaded only where the
 * playground is on, so production start-up does not pay for it.
 */
export async function playgroundStage(options: PlaygroundOptions): Promise<Stage> {
  const [{ default: express }, { playgroundRouter }] = await Promise.all([import('express'), import('../playground/index.ts')]);
  const app = express();
  app.disable('x-powered-by');
  // The page changes with nothing a tag would track; the bundle's files keep express.static's own.
  app.set('etag', false);
  app.use(playgroundRouter(options));
  // An Express app is itself a node-style handler; with a third argument it calls that when nothing answered.
  const serve = app as unknown as Stage;
  return (req, res, next) => {
    // A GraphQL client's POST never concerns the playground.
    if (req.method !== 'GET' && req.method !== 'HEAD' && isGraphQLPath(pathOf(req))) return next();
    serve(req, res, (error?: unknown) => next(error));
  };
}

const PAGE_TYPES = ['application/graphql-response+json', 'application/json', 'text/html'];

/** A browser navigating to the endpoint (it prefers HTML to JSON and asks no query), as opposed to a GraphQL client's GET. */
function isBrowserNavigation(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  if (req.method !== 'GET' || accept === undefined || !accept.includes('html')) return false;
  if (new URL(req.url ?? '/', 'http://gateway').searchParams.has('query')) return false;
  return new Negotiator(req).mediaType(PAGE_TYPES) === 'text/html';
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
  res.statusCode = 404;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(PLAYGROUND_OFF_PAGE));
  res.setHeader('Vary', 'Origin, Accept');
  res.end(PLAYGROUND_OFF_PAGE);
};
