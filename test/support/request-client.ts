import { runWithRequestId } from '../../src/request/scope.ts';
import { PlatformClient, type PlatformClientOptions, type Query } from '../../src/platform/client.ts';
import type { PolicyChain } from '../../src/platform/policy-chain.ts';

/**
 * The platform client of one request, with each call made inside that request's scope, as the
 * server's request listener does for a GraphQL request (src/http/front-door.ts): its
 * `x-request-id` and its call events carry `requestId` (its errors carry none until formatError answers them).
 */
export class RequestClient extends PlatformClient {
  readonly #requestId: string;

  constructor(http: PolicyChain, authorization: string | undefined, requestId: string, signal?: AbortSignal, options?: PlatformClientOptions) {
    super(http, authorization, signal, options);
    this.#requestId = requestId;
  }

  override get(route: string, path: string, query?: Query): Promise<unknown> {
    return runWithRequestId(this.#requestId, () => super.get(route, path, query));
  }

  override getUncached(route: string, path: string, query?: Query): Promise<unknown> {
    return runWithRequestId(this.#requestId, () => super.getUncached(route, path, query));
  }

  override put(route: string, path: string, body: unknown): Promise<unknown> {
    return runWithRequestId(this.#requestId, () => super.put(route, path, body));
  }

  override segment(value: string): string {
    return runWithRequestId(this.#requestId, () => super.segment(value));
  }
}
