import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The id of the HTTP request being served, decided once when the request
 * reaches the GraphQL endpoint. Refusals Apollo Server makes before a request
 * has a context (CSRF, batching, a body without a query) and every error it
 * formats read it from here, so every error answer and its log line carry the
 * same id as the request's context.
 */
const scope = new AsyncLocalStorage<string>();

/** Runs `serve` (and everything it starts) as the handling of the request `requestId`. */
export function runWithRequestId<T>(requestId: string, serve: () => T): T {
  return scope.run(requestId, serve);
}

/** The id of the request whose handling is running, if any. */
export function currentRequestId(): string | undefined {
  return scope.getStore();
}
