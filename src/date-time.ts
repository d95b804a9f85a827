// Calendar arithmetic and the platform's date-times, in one place: the DateTime scalar, the feeds'
// positions and the cursors' sort keys all read an instant with `platformTimestampMillis`. The
// contract writes yyyy-MM-dd'T'HH:mm:ss.SSSZ "with a zone designator" and says no more: Java's `Z`
// pattern letter is an RFC 822 offset (`+0000`), RFC 3339 spells the same zone `Z` or `+00:00`, and
// a platform may write its local offset (`+02:00`, `-0530`). Every spelling names one instant, and
// date-times order by it.

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

/** The number written with the digits at [from, to) of `text`, or -1 when one is not a digit or the text ends before `to`. */
function digits(text: string, from: number, to: number): number {
  if (to > text.length) return -1;
  let value = 0;
  for (let index = from; index < to; index++) {
    const code = text.charCodeAt(index) - 48;
    if (code < 0 || code > 9) return -1;
    value = value * 10 + code;
  }
  return value;
}

/**
 * Epoch milliseconds of the platform's usual form exactly, yyyy-MM-ddTHH:mm:ss.SSS+0000 (the text
 * `formatPlatformTimestamp` writes back), or null for any other text: what a cursor packs as a
 * number, since it restores to the same text.
 */
export function platformFormMillis(text: string): number | null {
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

/** Milliseconds of 400 Gregorian years (146 097 days): Date.UTC reads years 0–99 as 1900–1999, so those are computed 400 years on. */
const FOUR_CENTURIES_MS = 146_097 * 86_400_000;

/** Date.UTC for any year 0–9999. */
function utcMillis(year: number, month: number, day: number, hour: number, minute: number, second: number, milli: number): number {
  return year < 100 ? Date.UTC(year + 400, month - 1, day, hour, minute, second, milli) - FOUR_CENTURIES_MS : Date.UTC(year, month - 1, day, hour, minute, second, milli);
}

/**
 * The platform's date-time rule: epoch milliseconds of an ISO 8601 date-time,
 * yyyy-MM-ddTHH:mm[:ss[.fraction]] (a fraction of 1–9 digits, cut to milliseconds) followed by a zone
 * designator in any spelling: `Z`, `+0000`, `+00:00`, `+02`, `+0200`, `-05:30`; offsets up to ±23:59.
 * A date-time without a designator is read as UTC (a DateTime input's wall time, which a filter's
 * `timeZone` places; the platform writes one). Null for anything else, including impossible days and
 * times. Read by hand, without a regular expression or a Date, the usual form first: it runs for every
 * date-time of every record a feed or a cursor reads.
 */
export function platformTimestampMillis(text: string): number | null {
  const exact = platformFormMillis(text);
  if (exact !== null) return exact;
  const length = text.length;
  if (length < 16 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(13) !== 58) return null;
  const t = text.charCodeAt(10);
  if (t !== 84 && t !== 116) return null;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  if (year < 0 || hour < 0 || minute < 0) return null;
  let at = 16;
  let second = 0;
  let milli = 0;
  if (text.charCodeAt(at) === 58) {
    second = digits(text, at + 1, at + 3);
    if (second < 0) return null;
    at += 3;
    if (text.charCodeAt(at) === 46) {
      let end = at + 1;
      while (end < length && end - at <= 9 && isDigit(text.charCodeAt(end))) end++;
      const count = end - at - 1;
      if (count === 0 || (end < length && isDigit(text.charCodeAt(end)))) return null;
      milli = digits(text, at + 1, at + 1 + Math.min(count, 3)) * (count === 1 ? 100 : count === 2 ? 10 : 1);
      at = end;
    }
  }
  if (!isRealDateTime(year, month, day, hour, minute, second)) return null;
  const local = utcMillis(year, month, day, hour, minute, second, milli);
  if (at === length) return local;
  const sign = text.charCodeAt(at);
  if ((sign === 90 || sign === 122) && at + 1 === length) return local;
  if (sign !== 43 && sign !== 45) return null;
  const offsetHours = digits(text, at + 1, at + 3);
  let offsetMinutes = 0;
  const rest = length - (at + 3);
  if (rest === 2) offsetMinutes = digits(text, at + 3, at + 5);
  else if (rest === 3 && text.charCodeAt(at + 3) === 58) offsetMinutes = digits(text, at + 4, at + 6);
  else if (rest !== 0) return null;
  if (offsetHours < 0 || offsetHours > 23 || offsetMinutes < 0 || offsetMinutes > 59) return null;
  const offset = (offsetHours * 60 + offsetMinutes) * 60_000;
  return sign === 43 ? local - offset : local + offset;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Epoch milliseconds in the platform's form, yyyy-MM-ddTHH:mm:ss.SSS+0000. */
export function formatPlatformTimestamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}+0000`;
}

/**
 * The instant an ISO 8601 date-time names (the rule of `platformTimestampMillis`), in UTC ISO form
 * (`2026-03-04T10:15:30.123Z`); null for anything the rule does not read.
 */
export function toIsoInstant(text: string): string | null {
  // The usual form is rewritten rather than formatted from a Date: most date-times the platform sends.
  if (platformFormMillis(text) !== null) return `${text.slice(0, 23)}Z`;
  const ms = platformTimestampMillis(text);
  return ms === null ? null : new Date(ms).toISOString();
}
