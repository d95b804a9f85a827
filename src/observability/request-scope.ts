import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import { requestIdFrom } from '../request-id.ts';

/**
 * The id of the HTTP request being served, decided once when the request
 * reaches the server (`serveInRequestScope`, the server's only request
 * listener). The GraphQL context, refusals made before or around Apollo
 * Server, every error it formats and every log line read it from here, so
 * an answer, its log lines and its platform calls all carry the same id.
 */
const scope = new AsyncLocalStorage<string>();

/** Runs `serve` (and everything it starts) as the handling of the request `requestId`. */
export function runWithRequestId<T>(requestId: string, serve: () => T): T {
  return scope.run(requestId, serve);
}

/** Decides the request's id (the caller's `x-request-id` when sane, else a fresh one) and serves it in its scope. */
export function serveInRequestScope<T>(req: IncomingMessage, serve: () => T): T {
  return scope.run(requestIdFrom(req.headers), serve);
}

/** The id of the request whose handling is running, if any. */
export function currentRequestId(): string | undefined {
  return scope.getStore();
}

/**
 * The id of `req`, from the scope it is served in. The header is read only
 * for a request served outside `serveInRequestScope` (a listener of a test's
 * own server), where nothing else has decided one.
 */
export function requestIdOf(req: IncomingMessage): string {
  return scope.getStore() ?? requestIdFrom(req.headers);
}
