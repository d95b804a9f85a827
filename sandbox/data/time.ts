/**
 * Time handling for the platform contract: the response timestamp format and
 * the exceptions filter's zone rules (createdDateFrom/createdDateTo + timeZone).
 */

/** yyyy-MM-dd'T'HH:mm:ss.SSSZ with Java's `Z` (RFC 822 offset), always in UTC: 2026-03-04T10:15:30.123+0000. */
export function formatTimestamp(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 23) + '+0000';
}

/** The spelling the sandbox stores and answers by default: Java's `Z` pattern letter, an RFC 822 offset. */
export const STORED_ZONE_DESIGNATOR = '+0000';

// A stored timestamp as a JSON string: every date-time the sandbox answers is one of these.
const STORED_TIMESTAMP_JSON = /"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3})\+0000"/g;

/**
 * The JSON text of an answer with every timestamp spelled with `designator` (`Z`, `+00:00`, `+02:00`,
 * `-0530`, …, as src/settings/sandbox-settings.ts accepts it), naming the same instant: its wall time is moved
 * to the offset. The contract's yyyy-MM-dd'T'HH:mm:ss.SSSZ says only "a zone designator", so a
 * platform may write any of them; the sandbox stores `+0000` and answers in the spelling it is
 * switched to (SANDBOX_ZONE_DESIGNATOR, `POST /__sandbox/zone-designator`).
 */
export function respellTimestamps(json: string, designator: string): string {
  if (designator === STORED_ZONE_DESIGNATOR) return json;
  const sign = designator.startsWith('-') ? -1 : 1;
  const offsetMs = designator === 'Z' ? 0 : sign * (Number(designator.slice(1, 3)) * 60 + Number(designator.slice(-2))) * 60_000;
  return json.replace(STORED_TIMESTAMP_JSON, (_, wall: string) => {
    const local = offsetMs === 0 ? wall : new Date(Date.parse(`${wall}Z`) + offsetMs).toISOString().slice(0, 23);
    return `"${local}${designator}"`;
  });
}

/** yyyy-mm-dd of the UTC calendar day. */
export function formatDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** Inverse of formatTimestamp, for records the sandbox wrote itself. */
export function parseTimestamp(value: string): number {
  return Date.parse(value.slice(0, 23) + 'Z');
}

export type Zone = { readonly kind: 'fixed'; readonly offsetMs: number } | { readonly kind: 'region'; readonly id: string; readonly formatter: Intl.DateTimeFormat };

const MAX_OFFSET_MS = 18 * 3_600_000;
// {+,-}N(N)(:MM) as the contract writes it: +1, +01, +01:30, -5, -05:00.
const OFFSET_PATTERN = /^([+-])(\d{1,2})(?::(\d{2}))?$/;
// Region ids as tzdb spells them (Europe/Berlin, America/Argentina/Buenos_Aires, Etc/GMT+5, CET).
const REGION_PATTERN = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

function parseOffset(value: string): number | undefined {
  const m = OFFSET_PATTERN.exec(value);
  if (!m) return undefined;
  const hours = Number(m[2]);
  const minutes = m[3] === undefined ? 0 : Number(m[3]);
  if (minutes > 59) return undefined;
  const ms = (hours * 60 + minutes) * 60_000;
  if (ms > MAX_OFFSET_MS) return undefined;
  return m[1] === '-' ? -ms : ms;
}

const zoneCache = new Map<string, Zone | null>();
const ZONE_CACHE_LIMIT = 500;

/** Resolves a timeZone parameter, or undefined when the value is not one of the accepted forms. */
export function parseZone(value: string): Zone | undefined {
  const cached = zoneCache.get(value);
  if (cached !== undefined) return cached ?? undefined;
  const zone = resolveZone(value);
  if (zoneCache.size >= ZONE_CACHE_LIMIT) zoneCache.clear();
  zoneCache.set(value, zone ?? null);
  return zone;
}

function resolveZone(value: string): Zone | undefined {
  if (value === 'Z' || value === 'UTC' || value === 'GMT') return { kind: 'fixed', offsetMs: 0 };
  const prefixed = /^(?:UTC|GMT)([+-].*)$/.exec(value);
  const offsetText = prefixed ? prefixed[1] as string : value;
  if (prefixed || offsetText.startsWith('+') || offsetText.startsWith('-')) {
    const offsetMs = parseOffset(offsetText);
    return offsetMs === undefined ? undefined : { kind: 'fixed', offsetMs };
  }
  if (!REGION_PATTERN.test(value)) return undefined;
  let formatter: Intl.DateTimeFormat;
  try {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: value, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
  } catch {
    return undefined;
  }
  // Intl matches ids case-insensitively; tzdb (and the platform) do not.
  const resolved = formatter.resolvedOptions().timeZone;
  if (resolved !== value && resolved.toLowerCase() === value.toLowerCase()) return undefined;
  return { kind: 'region', id: value, formatter };
}

/** Offset of the zone from UTC at the given instant, in ms (east positive). */
function offsetAt(zone: Zone, epochMs: number): number {
  if (zone.kind === 'fixed') return zone.offsetMs;
  const wholeSecond = Math.floor(epochMs / 1000) * 1000;
  const parts = zone.formatter.formatToParts(new Date(wholeSecond));
  const field = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(field('year'), field('month') - 1, field('day'), field('hour'), field('minute'), field('second'));
  return wall - wholeSecond;
}

/**
 * The instant at which the zone's clocks show the given wall time. `wallMs` is
 * the wall time encoded as if it were UTC. Follows java.time's ZonedDateTime.of:
 * in an overlap (clocks set back) the earlier offset wins; in a gap (clocks set
 * forward) the wall time is moved later by the length of the gap.
 */
export function wallTimeToInstant(zone: Zone, wallMs: number): number {
  if (zone.kind === 'fixed') return wallMs - zone.offsetMs;
  // Transitions are never closer than a day, so the offsets a day around the
  // wall time are the only candidates.
  const before = offsetAt(zone, wallMs - 86_400_000);
  const after = offsetAt(zone, wallMs + 86_400_000);
  const candidates = before === after ? [before] : [Math.max(before, after), Math.min(before, after)];
  for (const offset of candidates) {
    const instant = wallMs - offset;
    if (offsetAt(zone, instant) === offset) return instant;
  }
  return wallMs - before;
}

const DATE_TIME_PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Parses createdDateFrom/createdDateTo. A value with its own offset (or Z) keeps
 * it; otherwise the wall time is read in `zone`. A bare date is the start of that
 * day (bound 'from') or its last millisecond (bound 'to') in the zone, so both
 * bounds stay inclusive. Returns undefined for anything malformed.
 */
export function parseDateTimeBound(value: string, bound: 'from' | 'to', zone: Zone): number | undefined {
  const m = DATE_TIME_PATTERN.exec(value);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (m[4] === undefined) {
    const midnight = Date.UTC(year, month - 1, day);
    if (bound === 'from') return wallTimeToInstant(zone, midnight);
    return wallTimeToInstant(zone, midnight + 86_400_000) - 1;
  }
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const designator = m[8];
  if (designator === undefined) return wallTimeToInstant(zone, wall);
  if (designator === 'Z') return wall;
  const normalized = designator.length === 5 ? `${designator.slice(0, 3)}:${designator.slice(3)}` : designator;
  const offsetMs = parseOffset(normalized);
  return offsetMs === undefined ? undefined : wall - offsetMs;
}
