import type { PlainResponse } from 'got';
import type { PlatformError } from './platform-error.ts';
import type { RequestCalls } from './request-calls.ts';

/** What every upstream call reports, for logs, metrics and traces. */
export interface UpstreamCallEvent {
  route: string;
  method: 'GET' | 'PUT';
  /** HTTP status, or 0 when no answer arrived. */
  status: number;
  durationMs: number;
  retries: number;
  /** The request that made the call (src/request/scope.ts); none for a call made outside a request. */
  requestId: string | undefined;
  /** Public error code when the call failed. */
  errorCode?: string;
  /** True when the answer came from an identical call another request already had in flight (no call of its own). */
  shared?: boolean;
}

export type UpstreamObserver = (event: UpstreamCallEvent) => void;

/** A platform call's span, started before the call is sent so the platform can continue its trace. */
export interface UpstreamSpan {
  /** W3C `traceparent` naming this span, sent with the call. */
  readonly traceparent: string | undefined;
  end(event: UpstreamCallEvent): void;
}

export interface UpstreamTracer {
  startUpstream(requestId: string | undefined, route: string, method: 'GET' | 'PUT'): UpstreamSpan;
}

export interface UpstreamRequest {
  route: string;
  method: 'GET' | 'PUT';
  /** Path plus query, already encoded, starting with `/`. */
  pathAndQuery: string;
  authorization: string;
  body?: unknown;
  /** The GraphQL request's deadline and cancellation (src/request/deadline.ts); stops the call, its retries and their waits. */
  signal?: AbortSignal;
  /** The request the call belongs to (PlatformClient's): its token gate, calls budget and bucket draw. None for a call of no request. */
  caller?: RequestCalls;
}

export interface UpstreamResponse {
  status: number;
  body: string;
}

/** One platform answer, whatever its status: an attempt's, or after the retries policy the last attempt's with the retries it took. */
export interface Answer {
  status: number;
  body: string;
  headers: PlainResponse['headers'];
  retries: number;
}

/**
 * Sends one call and resolves with whatever the platform answered. `signal` stops it; `callers`
 * is how many requests wait on it (more than one for a shared read), which the breaker
 * counts as that many failures when it fails.
 */
export type Exchange = (signal: AbortSignal | undefined, callers: () => number) => Promise<Answer>;

/** Why a call was not sent although nothing failed: a policy refused it (its budget is spent). Says nothing of the platform's health. */
export class CallNotSent extends Error {
  override name = 'CallNotSent';
  /** What the caller is answered. */
  readonly answer: PlatformError;

  constructor(answer: PlatformError) {
    super(answer.message);
    this.answer = answer;
  }
}
