import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import { requestIdFrom } from './request-id.ts';

/**
 * The id of the HTTP request being served, decided once when the request
 * reaches the server (`serveInRequestScope`, the server's only request
 * listener), and read only from here: refusals made before or around Apollo
 * Server, every error it formats, every log line, platform call (its
 * `x-request-id`, event and span), so an answer, its log
 * lines and its platform calls all carry the same id. Code running outside a
 * request (start-up, a function a test calls directly) has no id, and nothing
 * invents one: tests run the code they check inside `runWithRequestId`.
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

/** The id of the request whose handling is running; undefined outside a request. */
export function currentRequestId(): string | undefined {
  return scope.getStore();
}
