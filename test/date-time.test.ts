import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { daysIn, formatPlatformTimestamp, platformFormMillis, platformTimestampMillis, toIsoInstant } from '../src/date-time.ts';

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

/** `ms` written as the platform might: its wall time at `offsetMinutes` east of UTC, with the offset in one spelling. */
type Spelling = 'Z' | 'z' | '+HHMM' | '+HH:MM' | '+HH' | 'none';
const SPELLINGS: readonly Spelling[] = ['Z', 'z', '+HHMM', '+HH:MM', '+HH', 'none'];

function written(ms: number, offsetMinutes: number, spelling: Spelling, fraction: string): string {
  const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 19);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(offsetMinutes) / 60)).padStart(2, '0');
  const minutes = String(Math.abs(offsetMinutes) % 60).padStart(2, '0');
  const zone = { Z: 'Z', z: 'z', '+HHMM': `${sign}${hours}${minutes}`, '+HH:MM': `${sign}${hours}:${minutes}`, '+HH': `${sign}${hours}`, none: '' }[spelling];
  return `${local}${fraction}${zone}`;
}

/** An offset each spelling can write: `Z` and none only UTC, `+HH` only whole hours. */
function offsetFor(spelling: Spelling, offsetMinutes: number): number {
  if (spelling === 'Z' || spelling === 'z' || spelling === 'none') return 0;
  return spelling === '+HH' ? Math.trunc(offsetMinutes / 60) * 60 : offsetMinutes;
}

const OFFSETS = fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 });
const INSTANTS = fc.integer({ min: Date.UTC(1000, 0, 2), max: Date.UTC(9999, 11, 30) });
const SPELLING = fc.constantFrom(...SPELLINGS);

describe('platform timestamps', () => {
  it('reads the platform form as epoch milliseconds', () => {
    expect(platformTimestampMillis('2026-03-04T10:15:30.123+0000')).toBe(Date.UTC(2026, 2, 4, 10, 15, 30, 123));
    expect(platformTimestampMillis('2024-02-29T23:59:59.999+0000')).toBe(Date.UTC(2024, 1, 29, 23, 59, 59, 999));
  });

  it('reads every spelling of a zone designator as the instant it names', () => {
    const instant = Date.UTC(2026, 2, 4, 10, 15, 30, 123);
    const spellings = [
      '2026-03-04T10:15:30.123+0000', '2026-03-04T10:15:30.123Z', '2026-03-04T10:15:30.123z', '2026-03-04T10:15:30.123+00:00', '2026-03-04T10:15:30.123-00:00',
      '2026-03-04T12:15:30.123+02:00', '2026-03-04T12:15:30.123+0200', '2026-03-04T12:15:30.123+02', '2026-03-04T04:45:30.123-05:30', '2026-03-05T09:14:30.123+22:59',
      '2026-03-04t10:15:30.123Z', '2026-03-04T10:15:30.123456789Z', '2026-03-04T10:15:30.123',
    ];
    expect(spellings.map(platformTimestampMillis)).toEqual(spellings.map(() => instant));
    expect(['2026-03-04T10:15Z', '2026-03-04T10:15:30Z', '2026-03-04T10:15:30.1Z', '2026-03-04T10:15:30.12+00:00'].map(platformTimestampMillis)).toEqual([
      Date.UTC(2026, 2, 4, 10, 15), Date.UTC(2026, 2, 4, 10, 15, 30), Date.UTC(2026, 2, 4, 10, 15, 30, 100), Date.UTC(2026, 2, 4, 10, 15, 30, 120),
    ]);
    // Years before 1000, which Date.UTC would move to the 1900s for 0–99.
    expect(platformTimestampMillis('0099-03-04T10:15:30.123Z')).toBe(Date.parse('0099-03-04T10:15:30.123Z'));
    expect(platformTimestampMillis('0999-03-04T10:15:30.123+0000')).toBe(Date.parse('0999-03-04T10:15:30.123Z'));
  });

  it.each([
    '2026-02-29T10:15:30.123+0000',
    '2026-04-31T00:00:00.000Z',
    '2026-03-04T24:00:00.000+00:00',
    '2026-03-04T10:60:00.000+0000',
    '2026-03-04T10:15:60.000Z',
    '2026-03-04T10:15:30.123+24:00',
    '2026-03-04T10:15:30.123+0060',
    '2026-03-04T10:15:30.123+2',
    '2026-03-04T10:15:30.123+02:0',
    '2026-03-04T10:15:30.123+02:000',
    '2026-03-04T10:15:30.123+020',
    '2026-03-04T10:15:30.123ZZ',
    '2026-03-04T10:15:30.Z',
    '2026-03-04T10:15:30.1234567890Z',
    '2026-03-04T10:15:3Z',
    '2026-03-04T10:1Z',
    '2026-03-04T10:15:30.123 +0000',
    '2026-03-04 10:15:30.123+0000',
    '2026-0a-04T10:15:30.123+0000',
    '2026-03-04',
    '',
    'yesterday',
  ])('reads nothing else: not %j', (text) => {
    expect(platformTimestampMillis(text)).toBeNull();
  });

  it('reads any instant in any spelling and offset as the same milliseconds', () => {
    const fractionDigits = fc.constantFrom(0, 1, 2, 3, 6, 9);
    fc.assert(
      fc.property(INSTANTS, OFFSETS, SPELLING, fractionDigits, fc.integer({ min: 0, max: 999 }), (base, offsetMinutes, spelling, count, milli) => {
        // A fraction of `count` digits carries the milliseconds it has room for.
        const kept = count >= 3 ? milli : Math.floor(milli / 10 ** (3 - count)) * 10 ** (3 - count);
        const ms = Math.floor(base / 1000) * 1000 + kept;
        const digits = count === 0 ? '' : `.${String(kept).padStart(3, '0').padEnd(count, '0').slice(0, count)}`;
        const text = written(ms, offsetFor(spelling, offsetMinutes), spelling, digits);
        expect([text, platformTimestampMillis(text)]).toEqual([text, ms]);
        expect([text, toIsoInstant(text)]).toEqual([text, new Date(ms).toISOString()]);
      }),
    );
  });

  it('orders two date-times in any spellings by the instants they name', () => {
    fc.assert(
      fc.property(INSTANTS, INSTANTS, OFFSETS, OFFSETS, SPELLING, SPELLING, (a, b, offsetA, offsetB, spellingA, spellingB) => {
        const left = written(a, offsetFor(spellingA, offsetA), spellingA, `.${String(((a % 1000) + 1000) % 1000).padStart(3, "0")}`);
        const right = written(b, offsetFor(spellingB, offsetB), spellingB, `.${String(((b % 1000) + 1000) % 1000).padStart(3, "0")}`);
        expect([left, right, Math.sign(platformTimestampMillis(left)! - platformTimestampMillis(right)!)]).toEqual([left, right, Math.sign(a - b)]);
      }),
    );
  });

  it('writes back exactly the text it read, for any instant of years 1000–9999', () => {
    const instants = fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) });
    fc.assert(
      fc.property(instants, (ms) => {
        const text = formatPlatformTimestamp(ms);
        expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/);
        expect(platformFormMillis(text)).toBe(ms);
        expect(platformTimestampMillis(text)).toBe(ms);
      }),
    );
  });

  it('takes only the exact platform form as restorable text', () => {
    expect(['2026-03-04T10:15:30.123+0000', '2026-03-04T10:15:30.123Z', '2026-03-04T10:15:30.123+00:00', '2026-03-04t10:15:30.123+0000', '0999-03-04T10:15:30.123+0000'].map(platformFormMillis)).toEqual([
      Date.UTC(2026, 2, 4, 10, 15, 30, 123), null, null, null, null,
    ]);
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
