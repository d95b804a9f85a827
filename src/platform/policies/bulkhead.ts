import { breakerKey } from '../breaker.ts';
import { Bulkhead } from '../bulkhead.ts';
import type { Policy } from '../policy.ts';

/** Per platform route (breaker key) a bound on calls in flight and waiting, across every request of the process. */
export class RouteBulkheads {
  readonly #maxInFlight: number;
  readonly #queue: number;
  /** Route name → its bulkhead, so a call's lookup is one Map read. */
  readonly #byRoute = new Map<string, Bulkhead>();
  /** Breaker key → its bulkhead. Route names are fixed in code, so both maps are bounded. */
  readonly #byKey = new Map<string, Bulkhead>();

  constructor(limits: { maxInFlight: number; queue: number }) {
    this.#maxInFlight = limits.maxInFlight;
    this.#queue = limits.queue;
  }

  for(route: string): Bulkhead {
    let bulkhead = this.#byRoute.get(route);
    if (bulkhead === undefined) {
      const key = breakerKey(route);
      bulkhead = this.#byKey.get(key);
      if (bulkhead === undefined) {
        bulkhead = new Bulkhead(this.#maxInFlight, this.#queue);
        this.#byKey.set(key, bulkhead);
      }
      this.#byRoute.set(route, bulkhead);
    }
    return bulkhead;
  }

  /** Calls in flight and waiting for a slot, per breaker key (routes not used yet are absent), for metrics. */
  load(): { route: string; inFlight: number; queued: number }[] {
    return [...this.#byKey].map(([route, bulkhead]) => ({ route, inFlight: bulkhead.inFlight, queued: bulkhead.queued }));
  }
}

/**
 * The route's bulkhead (bulkhead.ts): a call waits for one of the route's slots, so a hung route can
 * hold neither every socket nor every caller; it holds the slot for all its attempts. A call whose
 * request was stopped while it waited goes no further (its slot handed over as the signal fired).
 */
export function bulkheadPolicy(bulkheads: RouteBulkheads): Policy {
  return {
    name: 'bulkhead',
    async send(call, next) {
      const bulkhead = bulkheads.for(call.route);
      const queued = bulkhead.acquire(call.signal);
      if (queued !== undefined) await queued;
      try {
        if (queued !== undefined && call.signal?.aborted) throw call.signal.reason;
        return await next(call);
      } finally {
        bulkhead.release();
      }
    },
  };
}
