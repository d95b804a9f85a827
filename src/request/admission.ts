/**
 * What the front door's admission (src/budgets/) learned of one HTTP request: whose budget pays
 * and how its token fared. Set once by the admission stage (`admit`, scope.ts), read by the
 * request's context (every operation of a batch) and its platform client. It lives here, with the
 * rest of the request's identity, so the context reads it without importing the budgets.
 */
export interface Admission {
  /** `token:<hash>` or `address:<address>` (TRUSTED_PROXIES applied, an IPv6 address by its /64): whose bucket pays. */
  readonly callerKey: string;
  readonly caller: 'token' | 'address';
  /** The bearer token's key (tokenKey of caller-token.ts), computed once for the request's platform client too. */
  readonly tokenKey: string | undefined;
  /** Whether the platform refused this request's token (401). */
  refusedByPlatform: boolean;
  /** Attempts the platform was sent for this request so far (its context sets it; none before). */
  callsSent?: () => number;
}
