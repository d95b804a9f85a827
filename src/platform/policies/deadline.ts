import type { Policy } from '../policy.ts';

/**
 * The request's deadline (REQUEST_DEADLINE_MS) and its caller hanging up (src/request/deadline.ts),
 * as one place in the list: a call whose request has been stopped goes no further, and is reported
 * as stopped (a call queued behind others, say a loader's concurrency limit, may start after its
 * request ended). Further down the signal is only waited on, never checked for: a policy that waits
 * (the token gate's probe, the bulkhead's slot, the retries' back-off, the bucket draw past the
 * reservation) ends its wait when it fires, and the transport stops an attempt in flight.
 */
export const deadline: Policy = {
  name: 'deadline',
  send(call, next) {
    const signal = call.signal;
    if (signal !== undefined && signal.aborted) return Promise.reject(signal.reason);
    return next(call);
  },
};
