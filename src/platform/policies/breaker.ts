import { RequestDeadlineExceeded } from '../../request/deadline.ts';
import { CircuitOpen, type RouteBreakers } from '../breaker.ts';
import type { Clock } from '../clock.ts';
import type { Policy } from '../policy.ts';
import { CallNotSent } from '../upstream-call.ts';

/**
 * The first half of the route's circuit breaker, before the bulkhead: an open breaker that is still
 * cooling down refuses at once, so a call is not made to wait for a slot only to be refused.
 */
export function breakerGate(breakers: RouteBreakers): Policy {
  return {
    name: 'breaker gate',
    send(call, next) {
      if (breakers.for(call.route).refusing()) return Promise.reject(new CircuitOpen());
      return next(call);
    },
  };
}

/**
 * The route's circuit breaker (breaker.ts), once the call holds a slot: it admits the call (a
 * half-open breaker's probe is the call that actually goes) and learns from the rest of the list
 * what the call showed of the platform's health. Evidence of failure: a 5xx answer, a network
 * error, an attempt that timed out (told by the retries policy at once, before any retry, and once
 * per call), and a call the request deadline stopped after it had waited a response timeout's
 * worth. A caller hanging up, a deadline shorter than that, or a call a policy did not send
 * (CallNotSent) says nothing about the platform. A shared call's failure counts once for each
 * caller still waiting on it: those requests would each have made, and failed, the same call.
 */
export function breakerPolicy(breakers: RouteBreakers, responseTimeoutMs: number, clock: Clock): Policy {
  return {
    name: 'breaker',
    async send(call, next) {
      const breaker = breakers.for(call.route);
      if (!breaker.admit()) throw new CircuitOpen();
      const sent = clock.now();
      let told = false;
      const attemptTimedOut = (): boolean => {
        if (!told) {
          told = true;
          breaker.failed(call.callers());
        }
        // No retry once the breaker has opened (or this call was its probe): it would only wait again.
        return breaker.state === 'closed';
      };
      let answer;
      try {
        answer = await next({ ...call, attemptTimedOut });
      } catch (error) {
        if (told) throw error;
        if (error instanceof CallNotSent) breaker.released();
        else if (!call.signal?.aborted) breaker.failed(call.callers());
        else if (call.signal.reason instanceof RequestDeadlineExceeded && clock.now() - sent >= responseTimeoutMs) breaker.failed();
        else breaker.released();
        throw error;
      }
      if (answer.status >= 500) {
        if (!told) breaker.failed(call.callers());
      } else {
        breaker.succeeded();
      }
      return answer;
    },
  };
}
