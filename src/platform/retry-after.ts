/**
 * The platform's `Retry-After` (RFC 9110 §10.2.3), read one way for every reader: the retries policy
 * (how long to wait) and the failure mapping (`retryAfter` of a RATE_LIMITED answer). It is
 * delay-seconds (digits only) or an HTTP date; anything else (`0x10`, `1e3`, `1.5`, `-5`, a loose
 * date) is unreadable, as if absent.
 */

/** Milliseconds from `now` (epoch milliseconds) the header asks to wait, never negative; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: number): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1_000;
  // An HTTP date starts with a day name; V8's lenient Date.parse would read '1.5' or '-5' as a date in 2001.
  if (!/^[A-Za-z]{3,9},? /.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
