import type { RouteBreakers } from '../breaker.ts';
import type { Clock } from '../clock.ts';
import type { Policy } from '../policy.ts';
import type { SharedReads } from '../shared-reads.ts';
import type { PlatformTransport } from '../transport.ts';
import { bucketDraw } from './bucket-draw.ts';
import { breakerGate, breakerPolicy } from './breaker.ts';
import { bulkheadPolicy, type RouteBulkheads } from './bulkhead.ts';
import { callsBudget } from './calls-budget.ts';
import { deadline } from './deadline.ts';
import { report, type Reporting } from './report.ts';
import { retries, type RetrySettings } from './retries.ts';
import { sharedReadsPolicy } from './shared-reads.ts';
import { tokenGate } from './token-gate.ts';
import { transportPolicy } from './transport.ts';

/** The process-wide parts the policies keep their state in (PolicyChain builds them once). */
export interface PolicyParts {
  reads: SharedReads;
  breakers: RouteBreakers;
  bulkheads: RouteBulkheads;
  transport: PlatformTransport;
  reporting: Reporting;
  retry: RetrySettings;
  responseTimeoutMs: number;
  clock: Clock;
}

/**
 * A platform call's way, top to bottom (docs/platform.md). Each policy is one file of this folder;
 * adding one is a file and a line here. Before `report` a refusal is the request's own (no event);
 * from `report` on, every call is reported once, and what the rest throws is mapped to a public code.
 */
export function platformPolicies(parts: PolicyParts): Policy[] {
  return [
    tokenGate(parts.reads), //                           an unknown token's calls one at a time, a refused one's not at all
    callsBudget, //                                      MAX_PLATFORM_CALLS_PER_REQUEST
    report(parts.reporting), //                          failure mapping, events, spans
    deadline, //                                         a stopped request's call goes no further
    sharedReadsPolicy(parts.reads), //                   an identical GET in flight is joined
    breakerGate(parts.breakers), //                      an open breaker refuses before the queue
    bulkheadPolicy(parts.bulkheads), //                  a slot among the route's calls in flight
    breakerPolicy(parts.breakers, parts.responseTimeoutMs, parts.clock), // admits, and learns each call's outcome
    retries(parts.retry, parts.clock), //                reads retried; each attempt goes on below
    bucketDraw, //                                       each attempt paid from the caller's budget
    transportPolicy(parts.transport), //                 got sends it
  ];
}
