import type { Policy } from '../policy.ts';
import type { SharedReads } from '../shared-reads.ts';

/**
 * Shared reads (shared-reads.ts): a GET identical to one another request has in flight joins it
 * instead of being sent. The rest of the list runs once, for the request that started the read, with
 * the read's own signal (stopped when the last caller has gone) and the count of its callers.
 */
export function sharedReadsPolicy(reads: SharedReads): Policy {
  return {
    name: 'shared reads',
    send(call, next) {
      const key = reads.keyOf(call);
      if (key === undefined) return next(call);
      const read = reads.inFlight(key);
      if (read !== undefined) call.joined = true;
      return reads.wait(read ?? reads.start(key, (signal, callers) => next({ ...call, signal, callers })), call.signal);
    },
  };
}
