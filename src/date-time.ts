// Calendar arithmetic and the platform's timestamps, in one place: the DateTime scalar reads
// them, cursors pack them. The platform writes instants as yyyy-MM-dd'T'HH:mm:ss.SSSZ, where
// Java's `Z` is an RFC 822 offset (`+0000`, no colon), not RFC 3339's `Z` or `+00:00`.

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days in `month` (1–12) of `year`, in the proleptic Gregorian calendar. */
export function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (MONTH_DAYS[month - 1] as number);
}

/**
 * True for a real calendar day and wall-clock time. `Date` would roll an impossible one over
 * (`2026-02-30` becomes March 2nd), so the fields are checked before any `Date` sees them.
 * Leap seconds are not accepted, as the platform's Java clock has none.
 */
function isRealDateTime(year: number, month: number, day: number, hour: number, minute: number, second: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) && hour < 24 && minute < 60 && second < 60;
}

/** The number written with the digits at [from, to) of `text`, or -1 when one is not a digit. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let index = from; index < to; index++) {
    const code = text.charCodeAt(index) - 48;
    if (code < 0 || code > 9) return -1;
    value = value * 10 + code;
  }
  return value;
}

/**
 * Epoch milliseconds of a timestamp in the platform's usual form, yyyy-MM-ddTHH:mm:ss.SSS+0000,
 * which `formatPlatformTimestamp` writes back exactly; null for any other text (other forms,
 * impossible dates, years before 1000 that Date.UTC would move to the 1900s). Read by hand,
 * without a regular expression or a Date: it runs for every date-time of every record answered.
 */
export function platformTimestampMillis(text: string): number | null {
  // yyyy-MM-ddTHH:mm:ss.SSS+0000: the separators at their places.
  if (text.length !== 28 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84) return null;
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58 || text.charCodeAt(19) !== 46 || !text.endsWith('+0000')) return null;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  const milli = digits(text, 20, 23);
  if (year < 1000 || hour < 0 || minute < 0 || second < 0 || milli < 0 || !isRealDateTime(year, month, day, hour, minute, second)) return null;
  return Date.UTC(year, month - 1, day, hour, minute, second, milli);
}

/** Epoch milliseconds in the platform's form, yyyy-MM-ddTHH:mm:ss.SSS+0000. */
export function formatPlatformTimestamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}+0000`;
}

// ISO 8601 date-time with an optional offset in any spelling: Z, ±HH, ±HHMM, ±HH:MM.
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * The instant an ISO 8601 date-time names, in UTC ISO form (`2026-03-04T10:15:30.123Z`), whatever
 * offset spelling it uses; without an offset it is read as UTC. Null for anything else, including
 * impossible days and times and offsets beyond ±23:59 (RFC 3339).
 */
export function toIsoInstant(text: string): string | null {
  // The usual form is rewritten rather than parsed into a Date: most date-times the platform sends.
  if (platformTimestampMillis(text) !== null) return `${text.slice(0, 23)}Z`;
  const match = INSTANT.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi, s = '00', frac = '', zone] = match;
  if (!isRealDateTime(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s))) return null;
  const offset = !zone || zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 3 ? `${zone}:00` : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  if (offset !== 'Z' && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4, 6)) > 59)) return null;
  const millis = `${frac}000`.slice(0, 3);
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${millis}${offset}`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
