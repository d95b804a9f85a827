import { ErrorCode } from '../../../src/errors.ts';
import { PlatformError } from '../../../src/platform/platform-error.ts';
import type { Policy } from '../../../src/platform/policy.ts';
import type { CallTally } from '../../../src/platform/request-calls.ts';
import { CallNotSent } from '../../../src/platform/upstream-call.ts';

/**
 * A policy that keeps state and reads the request, whole in this file: it lets each request send at
 * most `perRequest` attempts (retries included) and counts, across requests, the attempts it refused.
 * Per-request state is keyed by the call's request (`call.caller.tally`: one per GraphQL request,
 * shared by a batch's operations) in a WeakMap, so it goes with the request; the rest lives in the
 * closure. Nothing else is changed to add it: one line in a list of policies.
 */
export function attemptsPerRequest(perRequest: number): Policy & { refused(): number } {
  const sent = new WeakMap<CallTally, number>();
  let refused = 0;
  return {
    name: 'attempts per request',
    refused: () => refused,
    send(call, next) {
      const request = call.caller?.tally;
      if (request === undefined) return next(call);
      const count = sent.get(request) ?? 0;
      if (count >= perRequest) {
        refused++;
        return Promise.reject(new CallNotSent(new PlatformError(ErrorCode.RATE_LIMITED, `at most ${perRequest} attempts per request`, { retryAfter: 1 })));
      }
      sent.set(request, count + 1);
      return next(call);
    },
  };
}
