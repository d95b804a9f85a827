import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * One stage of the front door. It answers the request itself (and does not call `next`), or calls
 * `next()` to pass it on to the following stage. `next(error)` reports a failure nobody expected;
 * the front door answers it at once with a 500 (front-door.ts). Expected refusals (a body too
 * large, a budget spent, …) are answered by the stage that finds them, through `refuse`.
 * Works on plain Node requests and responses.
 */
export type Stage = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** The path of a request, without its query string; from an absolute-form target (`GET http://host/path`) too. */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  if (!url.startsWith('/')) return URL.canParse(url) ? new URL(url).pathname : url;
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/**
 * Whether the request is for the GraphQL endpoint: `/graphql` and the paths below it, in any case
 * (the endpoint's paths as Express's `app.use('/graphql')` matched them).
 */
export function isGraphQLPath(path: string): boolean {
  if (path.length < 8) return false;
  const head = path.slice(0, 8).toLowerCase();
  return head === '/graphql' && (path.length === 8 || path[8] === '/');
}
