import { describe, expect, it } from '@jest/globals';
import { Kind } from 'graphql';
import { DateTime } from '../src/schema/scalars.ts';

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

  it.each([
    '2026-02-30T00:00:00',
    '2026-04-31T10:15:30Z',
    '2025-02-29T00:00:00+01:00',
    '1900-02-29T00:00:00',
    '2026-00-10T00:00:00',
    '2026-01-00T00:00:00',
    '2026-13-01T00:00:00',
    '2026-01-01T24:00:00',
    '2026-01-01T10:60:00',
    '2026-01-01T10:15:60',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01T00:00:00+0560',
  ])('refuses the impossible input %j, as a variable and as a literal', (value) => {
    const message = `DateTime must be an ISO 8601 date-time such as "2026-03-04T10:15:30.000Z" or "2026-03-04T10:15:30" (got ${JSON.stringify(value)})`;
    expect(() => DateTime.parseValue(value)).toThrow(message);
    expect(() => DateTime.parseLiteral({ kind: Kind.STRING, value })).toThrow(message);
  });

  it.each(['2024-02-29T00:00:00', '2000-02-29T12:00:00Z', '2026-12-31T23:59:59.999-12:00', '2026-06-30T00:00+14:00', '2026-01-01T00:00:00+23:59'])(
    'accepts the real instant %j',
    (value) => {
      expect(DateTime.parseValue(value)).toBe(value);
    },
  );

  it('refuses an impossible date the platform sends in a form other than its usual one', () => {
    expect(() => DateTime.serialize('2026-02-30T10:15:30+01:00')).toThrow('The platform sent an unreadable date-time');
  });
});

