import { setMaxListeners } from 'node:events';
import type { ServerResponse } from 'node:http';

/** Why a request's platform calls were stopped: its deadline passed. */
export class RequestDeadlineExceeded extends Error {
  override name = 'RequestDeadlineExceeded';
  readonly deadlineMs: number;

  constructor(deadlineMs: number) {
    super(`request deadline of ${deadlineMs} ms`);
    this.deadlineMs = deadlineMs;
  }
}

/** Why a request's platform calls were stopped: the caller closed the connection before the answer. */
export class CallerGone extends Error {
  override name = 'CallerGone';

  constructor() {
    super('the caller closed the connection');
  }
}

/**
 * The abort signal of one GraphQL request: it fires when `deadlineMs` have
 * passed since the request started, or when the caller's connection closes
 * before the response was written, whichever comes first. Every platform call
 * of the request (in flight, queued or waiting for a retry) listens to it.
 *
 * Costs one timer and one listener per request, none per platform call. With a
 * `response`, the timer is cleared when the response is done; without one
 * (in-process use) it is unref'd and fires harmlessly after the request.
 */
export function requestSignal(deadlineMs: number, response?: ServerResponse): AbortSignal {
  const controller = new AbortController();
  // Every concurrent platform call of the request adds a listener; the default cap of 10 would only warn.
  setMaxListeners(0, controller.signal);
  const timer = setTimeout(() => controller.abort(new RequestDeadlineExceeded(deadlineMs)), deadlineMs);
  if (response) {
    response.once('close', () => {
      clearTimeout(timer);
      if (!response.writableFinished) controller.abort(new CallerGone());
    });
  } else {
    timer.unref();
  }
  return controller.signal;
}
