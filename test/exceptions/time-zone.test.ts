import { describe, expect, it } from '@jest/globals';
import { isAcceptedTimeZone } from '../../src/exceptions/time-zone.ts';

describe('isAcceptedTimeZone', () => {
  it.each(['Z', 'UTC', 'GMT'])('accepts %s', (zone) => {
    expect(isAcceptedTimeZone(zone)).toBe(true);
  });

  it.each(['+5', '-05', '+05:30', '-00', '+18', '+18:00', '-18:00', 'UTC+2', 'GMT-3', 'UTC-05:45', 'GMT+0'])('accepts the offset %s', (zone) => {
    expect(isAcceptedTimeZone(zone)).toBe(true);
  });

  it.each(['+18:01', '+19', '-24', '+05:60', '+5:3', '+123', '+05:300', 'UTC+', 'UTC5', '05:00', '+ 5', 'utc', 'z', 'UTC +2', 'EST+5'])('refuses %j', (zone) => {
    expect(isAcceptedTimeZone(zone)).toBe(false);
  });

  it.each(['Europe/Paris', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'America/Port-au-Prince'])('accepts the region %s', (zone) => {
    expect(isAcceptedTimeZone(zone)).toBe(true);
  });

  it.each(['Europe/Nowhere', 'UTC/x', 'Europe/', '/Paris', 'Europe/Paris ', '', '1Europe/Paris'])('refuses the region %j', (zone) => {
    expect(isAcceptedTimeZone(zone)).toBe(false);
  });

  // The platform reads region ids as tzdb spells them, case-sensitively (the sandbox refuses
  // `europe/paris`: sandbox/data/time.ts), while Intl matches them case-insensitively: the check must
  // not let the typo through to cost a platform round trip.
  it('refuses a region id spelt in the wrong case, as the platform does', () => {
    expect(isAcceptedTimeZone('europe/paris')).toBe(false);
  });

  // The platform (and the sandbox's REGION_PATTERN) accepts single-segment tzdb ids.
  it('accepts a single-segment IANA id such as CET, as the platform does', () => {
    expect(['CET', 'EST5EDT', 'Japan', 'US/Eastern'].map(isAcceptedTimeZone)).toEqual([true, true, true, true]);
    expect(['Paris', 'Nowhere/Land', 'europe/Paris'].map(isAcceptedTimeZone)).toEqual([false, false, false]);
  });
});
