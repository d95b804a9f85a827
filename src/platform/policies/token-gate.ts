import type { TokenVerdict, TokenVerdicts } from '../token-verdicts.ts';
import { ErrorCode } from '../../errors.ts';
import { RequestDeadlineExceeded } from '../../request/deadline.ts';
import { transportError } from '../error-mapping.ts';
import { PlatformError } from '../platform-error.ts';
import type { PlatformCall, Policy } from '../policy.ts';
import type { Answer } from '../upstream-call.ts';
import type { SharedReads } from '../shared-reads.ts';

/** What a failed call shows of the token: a 401 refuses it, any other answer of the platform accepts it. */
function verdictOf(error: unknown): TokenVerdict {
  if (!(error instanceof PlatformError)) return 'unknown';
  const status = (error.extensions.upstream as { status?: number } | undefined)?.status;
  if (status === undefined || status >= 500) return 'unknown';
  return status === 401 ? 'refused' : 'accepted';
}

/**
 * The token gate (TokenVerdicts, src/platform/token-verdicts.ts): an unknown token's calls go one at
 * a time until the platform has answered one of them (one more after each PROBE_PATIENCE_MS without
 * an answer), and a refused token's are not sent at all. A call that joins a
 * shared read in flight costs the platform nothing and is not gated. The platform's verdict on the
 * token is learned here from the mapped outcome of the rest of the list.
 */
export function tokenGate(reads: SharedReads): Policy {
  /** Learns the token's verdict from how the rest of the list ended, and hands the outcome on. */
  const learnFrom = (call: PlatformCall, tokens: TokenVerdicts, key: string, probe: boolean, sending: Promise<Answer>): Promise<Answer> =>
    sending.then(
      (answer) => {
        tokens.report(key, 'accepted', probe, call.route);
        return answer;
      },
      (error: unknown) => {
        const outcome = verdictOf(error);
        if (outcome === 'refused') call.caller!.options.onTokenRefused?.();
        tokens.report(key, outcome, probe, call.route);
        throw error;
      },
    );
  return {
    name: 'token gate',
    async send(call, next) {
      const tokens = call.caller?.options.tokens;
      const key = call.caller?.tokenKey;
      if (tokens === undefined || key === undefined || reads.joinsCall(call)) return next(call);
      // An accepted token, nearly every call: sent in this turn, without the wait's promise.
      if (tokens.verdict(key) === 'accepted') return learnFrom(call, tokens, key, false, next(call));
      let admission: Awaited<ReturnType<typeof tokens.admit>>;
      try {
        admission = await tokens.admit(key, call.signal, call.route);
      } catch (reason) {
        // Stopped while waiting for the probe: answered as a call stopped in flight would be.
        throw reason instanceof RequestDeadlineExceeded ? transportError('timeout', reason.message) : transportError('cancelled', 'the caller closed the connection');
      }
      if (admission === 'refused') throw new PlatformError(ErrorCode.UNAUTHENTICATED, 'The platform rejected the access token (not sent: the platform refused this token moments ago)');
      return learnFrom(call, tokens, key, admission === 'probe', next(call));
    },
  };
}
