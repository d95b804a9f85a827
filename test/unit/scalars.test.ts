import { describe, expect, it } from '@jest/globals';
import { DateTime } from '../../src/scalars.ts';

describe('DateTime', () => {
  it.each([
    ['2026-03-04T10:15:30.123+0000', '2026-03-04T10:15:30.123Z'],
    ['2026-03-04T10:15:30.123+00:00', '2026-03-04T10:15:30.123Z'],
    ['2026-03-04T10:15:30.123Z', '2026-03-04T10:15:30.123Z'],
    ['2024-02-29T23:59:59.999+0000', '2024-02-29T23:59:59.999Z'],
    ['2026-03-04T12:15:30.123+0200', '2026-03-04T10:15:30.123Z'],
    ['2026-03-04T05:15:30-05:00', '2026-03-04T10:15:30.000Z'],
    ['2026-03-04T10:15:30.123456+0000', '2026-03-04T10:15:30.123Z'],
  ])('answers the platform form %s as %s', (platform, iso) => {
    expect(DateTime.serialize(platform)).toBe(iso);
  });

  it.each(['2026-02-29T10:15:30.123+0000', '2026-13-01T00:00:00.000+0000', '2026-04-31T00:00:00.000Z', '2026-03-04T24:00:00.000Z', 'yesterday', ''])(
    'refuses the unreadable platform value %j',
    (value) => {
      expect(() => DateTime.serialize(value)).toThrow('The platform sent an unreadable date-time');
    },
  );

  it('accepts inputs with or without an offset and keeps them as written', () => {
    expect(DateTime.parseValue('2026-01-01T00:00:00')).toBe('2026-01-01T00:00:00');
    expect(DateTime.parseValue('2026-01-01T00:00:00+05:30')).toBe('2026-01-01T00:00:00+05:30');
    expect(() => DateTime.parseValue('2026-01-01')).toThrow('DateTime must be an ISO 8601 date-time');
    expect(() => DateTime.parseValue(5)).toThrow('DateTime must be an ISO 8601 date-time');
  });
});
