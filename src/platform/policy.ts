import type { Answer, UpstreamRequest } from './upstream-call.ts';

/**
 * One platform call on its way through the policies (policies/index.ts): what the client asked for
 * (UpstreamRequest), plus what the policies before a stage learned or decided about it. A policy
 * that changes what later policies see passes a new object on (`{ ...call, signal }`); the fields a
 * policy fills in (`readKey`, `attemptTimedOut`) are read only by the policies after it.
 */
export interface PlatformCall extends UpstreamRequest {
  /** Headers sent with every attempt besides Authorization and Accept (`x-request-id`, `traceparent`, a policy's own). */
  readonly headers: Record<string, string>;
  /** How many requests wait on the call (more than one for a shared read): a failure counts that many times. */
  readonly callers: () => number;
  /** The shared-read key (credentials + path and query), built once by the shared-reads policy. */
  readKey?: string;
  /** Set when the call joined another request's identical read in flight: it cost the platform nothing. */
  joined?: boolean;
  /**
   * Told by the retries policy when an attempt timed out, before any retry is considered; false
   * forbids the retry. Set by the breaker, which so learns of the timeout at once.
   */
  attemptTimedOut?: () => boolean;
}

/** The rest of the list after a policy: sends the call on and resolves with whatever the platform answered. */
export type Next = (call: PlatformCall) => Promise<Answer>;

/**
 * One named piece of a platform call's way, in the manner of undici's interceptors: it may refuse
 * the call, wait, change what the rest sees, call `next` once, several times (retries) or not at all
 * (a joined shared read), and learn from what `next` answered or threw. The last policy (transport)
 * never calls `next`.
 */
export interface Policy {
  readonly name: string;
  send(call: PlatformCall, next: Next): Promise<Answer>;
}

/** The list as one function: the first policy runs first, and each one's `next` is the one after it. */
export function compose(policies: readonly Policy[]): Next {
  const end: Next = () => Promise.reject(new Error('the last platform policy must not call next (it is the transport)'));
  return policies.reduceRight<Next>((next, policy) => (call) => policy.send(call, next), end);
}
