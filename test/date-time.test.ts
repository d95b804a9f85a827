import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { daysIn, formatPlatformTimestamp, platformTimestampMillis, toIsoInstant } from '../src/date-time.ts';

describe('daysIn', () => {
  it('follows the Gregorian leap rules', () => {
    expect([2024, 2025, 1900, 2000].map((year) => daysIn(year, 2))).toEqual([29, 28, 28, 29]);
    expect(Array.from({ length: 12 }, (_, index) => daysIn(2026, index + 1))).toEqual([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]);
  });

  it('agrees with Date for every month of four centuries', () => {
    for (let year = 1800; year < 2200; year++) {
      for (let month = 1; month <= 12; month++) expect([year, month, daysIn(year, month)]).toEqual([year, month, new Date(Date.UTC(year, month, 0)).getUTCDate()]);
    }
  });
});

describe('platform timestamps', () => {
  it('reads the platform form as epoch milliseconds', () => {
    expect(platformTimestampMillis('2026-03-04T10:15:30.123+0000')).toBe(Date.UTC(2026, 2, 4, 10, 15, 30, 123));
    expect(platformTimestampMillis('2024-02-29T23:59:59.999+0000')).toBe(Date.UTC(2024, 1, 29, 23, 59, 59, 999));
  });

  it.each([
    '2026-02-29T10:15:30.123+0000',
    '2026-04-31T00:00:00.000+0000',
    '2026-03-04T24:00:00.000+0000',
    '2026-03-04T10:60:00.000+0000',
    '0999-03-04T10:15:30.123+0000',
    '2026-03-04T10:15:30.123+00:00',
    '2026-03-04T10:15:30.123Z',
    '2026-03-04T10:15:30.123+0100',
    '2026-03-04T10:15:30+0000',
    '2026-03-04 10:15:30.123+0000',
    '2026-0a-04T10:15:30.123+0000',
  ])('reads only the exact form of a real instant: not %j', (text) => {
    expect(platformTimestampMillis(text)).toBeNull();
  });

  it('writes back exactly the text it read, for any instant of years 1000–9999', () => {
    const instants = fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) });
    fc.assert(
      fc.property(instants, (ms) => {
        const text = formatPlatformTimestamp(ms);
        expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/);
        expect(platformTimestampMillis(text)).toBe(ms);
      }),
    );
  });
});

describe('toIsoInstant', () => {
  it('reads every offset spelling as the same instant, and no offset as UTC', () => {
    const spellings = ['2026-03-04T12:15:30.123+0200', '2026-03-04T12:15:30.123+02:00', '2026-03-04T12:15:30.123+02', '2026-03-04T10:15:30.123Z', '2026-03-04T10:15:30.123z', '2026-03-04T10:15:30.123', '2026-03-04T10:15:30.123+0000'];
    expect(spellings.map(toIsoInstant)).toEqual(spellings.map(() => '2026-03-04T10:15:30.123Z'));
  });

  it('agrees with Date on any instant written with any offset', () => {
    const offsets = fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 });
    const instants = fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9998, 11, 31) });
    fc.assert(
      fc.property(instants, offsets, fc.boolean(), (ms, offsetMinutes, colon) => {
        const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 23);
        const sign = offsetMinutes < 0 ? '-' : '+';
        const hours = String(Math.floor(Math.abs(offsetMinutes) / 60)).padStart(2, '0');
        const minutes = String(Math.abs(offsetMinutes) % 60).padStart(2, '0');
        expect(toIsoInstant(`${local}${sign}${hours}${colon ? ':' : ''}${minutes}`)).toBe(new Date(ms).toISOString());
      }),
    );
  });

  it.each(['2026-02-30T00:00:00', '2026-01-01T00:00:00+24:00', '2026-01-01T00:00:00+0560', '2026-01-01', 'yesterday', ''])('refuses %j', (text) => {
    expect(toIsoInstant(text)).toBeNull();
  });
});
