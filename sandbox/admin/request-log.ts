import { ROUTE_NAMES } from './faults.ts';
import type { RouteName } from './faults.ts';

export interface RecordedRequest {
  host: 'api' | 'content';
  method: string;
  route: RouteName | 'unknown';
  path: string;
  /** The raw query string, without '?'. */
  query: string;
  /** The Authorization header exactly as received. */
  authorization?: string;
  /** The x-request-id header, when the caller sent one. */
  requestId?: string;
  /** Epoch ms at arrival. */
  at: number;
}

export interface RequestSummary {
  total: number;
  byRoute: Record<RouteName | 'unknown', number>;
  byHost: Record<'api' | 'content', number>;
}

/**
 * Every request both hosts received, in order. Counters are exact; the list
 * keeps the most recent `limit` entries so that a long load test cannot
 * exhaust memory.
 */
export class RequestLog {
  readonly requests: RecordedRequest[] = [];
  readonly #limit: number;
  #summary: RequestSummary = RequestLog.#emptySummary();

  constructor(limit: number) {
    this.#limit = limit;
  }

  static #emptySummary(): RequestSummary {
    const byRoute = Object.fromEntries([...ROUTE_NAMES, 'unknown'].map((route) => [route, 0])) as Record<RouteName | 'unknown', number>;
    return { total: 0, byRoute, byHost: { api: 0, content: 0 } };
  }

  record(entry: RecordedRequest): void {
    if (this.requests.length >= this.#limit) this.requests.splice(0, Math.max(1, Math.floor(this.#limit / 10)));
    this.requests.push(entry);
    this.#summary.total += 1;
    this.#summary.byRoute[entry.route] += 1;
    this.#summary.byHost[entry.host] += 1;
  }

  reset(): void {
    this.requests.length = 0;
    this.#summary = RequestLog.#emptySummary();
  }

  summary(): RequestSummary {
    return structuredClone(this.#summary);
  }
}
