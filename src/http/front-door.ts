import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { clip } from '../client-text.ts';
import { currentRequestId, currentRequestScope, requestScopeOf, runInScope, type RequestScope } from '../request/scope.ts';
import { refuseUnexpected } from './refusal.ts';
import { pathOf, type Stage } from './stage.ts';

/** Longest request path written to a log line: the path is the client's choice. */
const MAX_LOGGED_PATH_CHARS = 200;

/**
 * The server's one request listener: every request gets its scope (src/request/scope.ts: its id,
 * and what the stages learn of it, such as the admission), then goes through
 * `stages` in order until one answers. The list is the whole request path, written once in
 * request-path.ts: the operator's routes and the playground, then the GraphQL endpoint's stages
 * (web-client headers, admission, body, batch limit, trusted documents, …) and, last, the GraphQL
 * handler. A stage that reports a failure (`next(error)`) or throws ends the list there: the
 * failure is logged and answered 500 on the spot (or the connection cut when the answer has begun).
 */
export function frontDoor(stages: readonly Stage[], logger: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  const failed = (req: IncomingMessage, res: ServerResponse, thrown: unknown) => {
    // A rejection without a reason is still a failure: the log must show one.
    const error = thrown ?? new Error('request failed without a reason');
    logger.error({ requestId: currentRequestId(), path: clip(pathOf(req), MAX_LOGGED_PATH_CHARS), err: error }, 'request failed');
    if (res.headersSent) res.destroy(error as Error);
    else refuseUnexpected(res);
  };

  const serve = (req: IncomingMessage, res: ServerResponse, requestScope: RequestScope) => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error !== undefined && error !== null) return failed(req, res, error);
      // A stage that calls back from a stream's events (the body reader) is outside the request's
      // scope there: every later stage (refusals, Apollo, the context) must still read its id.
      if (currentRequestScope() !== requestScope) return runInScope(requestScope, next);
      const stage = stages[index++];
      // The GraphQL handler, last, always answers; running off the end would leave the request hanging.
      if (stage === undefined) return failed(req, res, new Error('no stage answered the request'));
      try {
        stage(req, res, next);
      } catch (thrown) {
        failed(req, res, thrown);
      }
    };
    next();
  };

  // The request's scope is made here, once, where the request starts: its id (decided on first
  // read) and what the stages learn of it (the admission).
  return (req: IncomingMessage, res: ServerResponse) => {
    const requestScope = requestScopeOf(req);
    runInScope(requestScope, serve, req, res, requestScope);
  };
}
