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

/** How many requests the log keeps by default: a few MB, enough for any test or benchmark window. */
export const DEFAULT_RECORDED_REQUESTS = 10_000;

/**
 * Every request both hosts received, in order. Counters are exact; the list
 * is a ring buffer of the most recent `capacity` entries, so a long session
 * (`npm start` serving for days, a load test) keeps a constant footprint.
 */
export class RequestLog {
  readonly #slots: (RecordedRequest | undefined)[];
  /** Index of the oldest entry. */
  #start = 0;
  #size = 0;
  #summary: RequestSummary = RequestLog.#emptySummary();

  constructor(capacity: number = DEFAULT_RECORDED_REQUESTS) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`request log capacity must be a positive integer, got ${capacity}`);
    this.#slots = new Array<RecordedRequest | undefined>(capacity);
  }

  static #emptySummary(): RequestSummary {
    const byRoute = Object.fromEntries([...ROUTE_NAMES, 'unknown'].map((route) => [route, 0])) as Record<RouteName | 'unknown', number>;
    return { total: 0, byRoute, byHost: { api: 0, content: 0 } };
  }

  get capacity(): number {
    return this.#slots.length;
  }

  /** The kept entries, oldest first (a copy). */
  get requests(): RecordedRequest[] {
    const list: RecordedRequest[] = [];
    for (let i = 0; i < this.#size; i++) list.push(this.#slots[(this.#start + i) % this.#slots.length]!);
    return list;
  }

  record(entry: RecordedRequest): void {
    const capacity = this.#slots.length;
    if (this.#size < capacity) {
      this.#slots[(this.#start + this.#size) % capacity] = entry;
      this.#size += 1;
    } else {
      // Full: the newest entry takes the oldest one's slot.
      this.#slots[this.#start] = entry;
      this.#start = (this.#start + 1) % capacity;
    }
    this.#summary.total += 1;
    this.#summary.byRoute[entry.route] += 1;
    this.#summary.byHost[entry.host] += 1;
  }

  reset(): void {
    this.#slots.fill(undefined);
    this.#start = 0;
    this.#size = 0;
    this.#summary = RequestLog.#emptySummary();
  }

  summary(): RequestSummary {
    return structuredClone(this.#summary);
  }
}
