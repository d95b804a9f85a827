import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Admission } from './admission.ts';
import { requestIdFrom } from './request-id.ts';

/**
 * One HTTP request's own state, created once when the request reaches the server (the front
 * door, src/http/front-door.ts) and reachable two ways: from the request object, for the front
 * door's stages and the context factory (`requestScopeOf`), and, for code that has no request
 * object (errors, log lines, platform calls), as the scope the request's handling runs in
 * (`currentRequestId`). So an answer, its log lines and its platform calls (their
 * `x-request-id`, events and spans) all carry the same id. Code running outside a request
 * (start-up, a function a test calls directly) has no id, and nothing invents one: tests run the
 * code they check inside `runWithRequestId`.
 */
export class RequestScope {
  readonly #headers: IncomingHttpHeaders;
  #id: string | undefined;
  /** What the front door's admission (src/budgets/) decided for this request; set once, by `admit`. */
  admission: Admission | undefined;

  constructor(headers: IncomingHttpHeaders, id?: string) {
    this.#headers = headers;
    this.#id = id;
  }

  /** The caller's `x-request-id` when sane, else a fresh one: decided on the first read, the same after. */
  get requestId(): string {
    return (this.#id ??= requestIdFrom(this.#headers));
  }
}

const scope = new AsyncLocalStorage<RequestScope>();

/** The headers of a scope made for a given id (`runWithRequestId`): its id is never read from them. */
const NO_HEADERS: IncomingHttpHeaders = Object.freeze({});

/** Where a request keeps its scope: a property of its own, so finding it is one load, not a lookup. */
const SCOPE = Symbol('request scope');

type ScopedRequest = IncomingMessage & { [SCOPE]?: RequestScope };

/**
 * The scope of `req`, created on the first call: the front door creates it when the request
 * arrives; a stage run without the front door (a test) gets one on its first use.
 */
export function requestScopeOf(req: IncomingMessage): RequestScope {
  return ((req as ScopedRequest)[SCOPE] ??= new RequestScope(req.headers));
}

/** Runs `serve(...args)` (and everything it starts) as the handling of the request whose scope this is. */
export function runInScope<Args extends unknown[], T>(requestScope: RequestScope, serve: (...args: Args) => T, ...args: Args): T {
  return scope.run(requestScope, serve, ...args);
}

/** Runs `serve` (and everything it starts) as the handling of a request with the id `requestId`. */
export function runWithRequestId<T>(requestId: string, serve: () => T): T {
  return scope.run(new RequestScope(NO_HEADERS, requestId), serve);
}

/** The scope whose handling is running; undefined outside a request. */
export function currentRequestScope(): RequestScope | undefined {
  return scope.getStore();
}

/** The id of the request whose handling is running; undefined outside a request. */
export function currentRequestId(): string | undefined {
  return scope.getStore()?.requestId;
}

/** Records the admission of a request (the admission stage does, once) in the request's scope. */
export function admit(req: IncomingMessage, admission: Admission): void {
  requestScopeOf(req).admission = admission;
}

/** The admission of a request that went through the GraphQL route's stages; undefined for any other. */
export function admissionOf(req: IncomingMessage | undefined): Admission | undefined {
  return req === undefined ? undefined : requestScopeOf(req).admission;
}
