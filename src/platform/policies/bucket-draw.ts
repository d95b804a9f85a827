import type { Policy } from '../policy.ts';

/**
 * The caller's calls budget (src/budgets/), attempt by attempt: every attempt about to be sent,
 * retries included, is drawn from the operation's reservation, and past it from the caller's bucket
 * at the moment it goes; one the bucket cannot pay is not sent (the ledger throws CallNotSent,
 * answered RATE_LIMITED with `retryAfter`). What was drawn is what the platform received, and
 * each attempt drawn is counted here (RequestCalls.attemptSent), nowhere else.
 */
export const bucketDraw: Policy = {
  name: 'bucket draw',
  send(call, next) {
    const caller = call.caller;
    if (caller === undefined) return next(call);
    const ledger = caller.ledger;
    const drawing = ledger?.draw(call.signal);
    if (drawing === undefined) {
      caller.attemptSent();
      return next(call);
    }
    return drawing.then(() => {
      caller.attemptSent();
      return next(call);
    });
  },
};
