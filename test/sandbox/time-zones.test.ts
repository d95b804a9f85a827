import { describe, expect, it } from '@jest/globals';
import { formatTimestamp, parseDateTimeBound, parseZone, wallTimeToInstant } from '../../sandbox/data/time.ts';
import type { Zone } from '../../sandbox/data/time.ts';

const zone = (id: string): Zone => {
  const parsed = parseZone(id);
  if (!parsed) throw new Error(`${id} should parse`);
  return parsed;
};
const wall = (iso: string): number => Date.parse(`${iso}Z`);
const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());

describe('timestamps', () => {
  it("formats with Java's Z pattern: millisecond precision and +0000", () => {
    expect(formatTimestamp(Date.UTC(2026, 2, 4, 10, 15, 30, 123))).toBe('2026-03-04T10:15:30.123+0000');
    expect(formatTimestamp(Date.UTC(2026, 0, 1))).toBe('2026-01-01T00:00:00.000+0000');
  });
});

describe('timeZone forms', () => {
  it.each([
    ['Z', 0], ['UTC', 0], ['GMT', 0],
    ['+2', 120], ['+02', 120], ['+02:00', 120], ['-5', -300], ['-05:30', -330], ['+14:00', 840], ['-18:00', -1080],
    ['UTC+2', 120], ['UTC-02:30', -150], ['GMT+11', 660], ['GMT-09:00', -540], ['+1:30', 90],
  ])('reads %s as a fixed offset of %i minutes', (text, minutes) => {
    expect(zone(text)).toEqual({ kind: 'fixed', offsetMs: minutes * 60_000 });
  });

  it.each(['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'Australia/Lord_Howe'])('accepts the IANA region %s', (id) => {
    expect(zone(id)).toMatchObject({ kind: 'region', id });
  });

  it.each(['', 'utc', 'z', 'UTC ', 'UTC 2', 'UTC+', 'GMT+abc', '+19', '+18:01', '+02:60', '+123', '2', '02:00', 'Mars/Olympus_Mons', 'europe/berlin', 'Europe/Berlin ', '../etc/passwd'])('rejects %j', (text) => {
    expect(parseZone(text)).toBeUndefined();
  });
});

describe('wall time to instant', () => {
  const newYork = zone('America/New_York');

  it('uses the offset in force at that wall time', () => {
    expect(iso(wallTimeToInstant(newYork, wall('2026-01-15T12:00:00.000')))).toBe('2026-01-15T17:00:00.000Z');
    expect(iso(wallTimeToInstant(newYork, wall('2026-07-15T12:00:00.000')))).toBe('2026-07-15T16:00:00.000Z');
    expect(iso(wallTimeToInstant(zone('Asia/Kolkata'), wall('2026-07-15T12:00:00.000')))).toBe('2026-07-15T06:30:00.000Z');
  });

  it('moves a wall time inside the spring-forward gap later by the gap (java.time rule)', () => {
    // 02:30 does not exist on 2026-03-08 in New York; it becomes 03:30 EDT.
    expect(iso(wallTimeToInstant(newYork, wall('2026-03-08T02:30:00.000')))).toBe('2026-03-08T07:30:00.000Z');
    expect(iso(wallTimeToInstant(newYork, wall('2026-03-08T01:59:59.999')))).toBe('2026-03-08T06:59:59.999Z');
    expect(iso(wallTimeToInstant(newYork, wall('2026-03-08T03:00:00.000')))).toBe('2026-03-08T07:00:00.000Z');
  });

  it('takes the earlier offset for a wall time that occurs twice (fall back)', () => {
    expect(iso(wallTimeToInstant(newYork, wall('2026-11-01T01:30:00.000')))).toBe('2026-11-01T05:30:00.000Z');
    expect(iso(wallTimeToInstant(zone('Europe/Berlin'), wall('2026-10-25T02:30:00.000')))).toBe('2026-10-25T00:30:00.000Z');
  });

  it('handles half-hour daylight saving (Lord Howe Island)', () => {
    expect(iso(wallTimeToInstant(zone('Australia/Lord_Howe'), wall('2026-01-15T12:00:00.000')))).toBe('2026-01-15T01:00:00.000Z');
    expect(iso(wallTimeToInstant(zone('Australia/Lord_Howe'), wall('2026-07-15T12:00:00.000')))).toBe('2026-07-15T01:30:00.000Z');
  });
});

describe('createdDateFrom / createdDateTo values', () => {
  const utc = zone('UTC');
  const berlin = zone('Europe/Berlin');

  it('reads a bare date as the start (from) or the last millisecond (to) of that day in the zone', () => {
    expect(iso(parseDateTimeBound('2026-03-08', 'from', utc))).toBe('2026-03-08T00:00:00.000Z');
    expect(iso(parseDateTimeBound('2026-03-08', 'to', utc))).toBe('2026-03-08T23:59:59.999Z');
    // The day clocks go forward is 23 hours long.
    expect(iso(parseDateTimeBound('2026-03-29', 'from', berlin))).toBe('2026-03-28T23:00:00.000Z');
    expect(iso(parseDateTimeBound('2026-03-29', 'to', berlin))).toBe('2026-03-29T21:59:59.999Z');
    expect(iso(parseDateTimeBound('2026-03-08', 'to', zone('America/New_York')))).toBe('2026-03-09T03:59:59.999Z');
  });

  it('reads a date-time without offset in the zone, down to the millisecond', () => {
    expect(iso(parseDateTimeBound('2026-03-29T03:00', 'from', berlin))).toBe('2026-03-29T01:00:00.000Z');
    expect(iso(parseDateTimeBound('2026-06-01T10:11:12', 'from', zone('-05:00')))).toBe('2026-06-01T15:11:12.000Z');
    expect(iso(parseDateTimeBound('2026-06-01T10:11:12.345678', 'to', utc))).toBe('2026-06-01T10:11:12.345Z');
  });

  it('keeps an explicit offset or Z whatever the zone', () => {
    expect(iso(parseDateTimeBound('2026-06-01T10:00:00Z', 'from', berlin))).toBe('2026-06-01T10:00:00.000Z');
    expect(iso(parseDateTimeBound('2026-06-01T10:00:00.5+02:00', 'from', utc))).toBe('2026-06-01T08:00:00.500Z');
    expect(iso(parseDateTimeBound('2026-06-01T10:00:00-0330', 'from', berlin))).toBe('2026-06-01T13:30:00.000Z');
    expect(iso(parseDateTimeBound('2026-06-01T10:00+01', 'from', utc))).toBe('2026-06-01T09:00:00.000Z');
  });

  it.each(['2026-02-30', '2026-13-01', '2026-6-1', '2026-06-01T24:00', '2026-06-01T10:60', '2026-06-01 10:00', '2026-06-01T10:00:00 02:00', '2026-06-01Z', 'yesterday', '1717236000000'])('rejects %j', (text) => {
    expect(parseDateTimeBound(text, 'from', utc)).toBeUndefined();
  });
});
