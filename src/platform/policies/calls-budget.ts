import { ErrorCode } from '../../errors.ts';
import { PlatformError } from '../platform-error.ts';
import type { Policy } from '../policy.ts';

/** The variable that sets the per-request call budget; a refusal names it in `extensions.limit`. */
const CALL_LIMIT_VARIABLE = 'MAX_PLATFORM_CALLS_PER_REQUEST';

/**
 * The calls budget of one request (MAX_PLATFORM_CALLS_PER_REQUEST): each call handed to the seam
 * counts, a joined shared read included, so what a request may do depends on its document alone;
 * past the budget a call fails without being sent.
 */
export const callsBudget: Policy = {
  name: 'calls budget',
  send(call, next) {
    const caller = call.caller;
    if (caller !== undefined) {
      const { maxCalls } = caller.options;
      if (caller.tally.calls >= maxCalls) {
        const error = new PlatformError(ErrorCode.BAD_USER_INPUT, `Query needs more than ${maxCalls} platform calls; at most ${maxCalls} are allowed per request`);
        Object.assign(error.extensions, { limit: CALL_LIMIT_VARIABLE, max: maxCalls });
        return Promise.reject(error);
      }
      caller.tally.calls++;
      caller.calls++;
    }
    return next(call);
  },
};
