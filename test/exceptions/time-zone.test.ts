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

  // Bug: the platform reads region ids as tzdb spells them, case-sensitively (the sandbox refuses
  // `europe/paris`: sandbox/data/time.ts), but Intl matches them case-insensitively, so this check
  // lets the typo through and it costs a platform round trip, answered with the platform's refusal.
  it.failing('refuses a region id spelt in the wrong case, as the platform does', () => {
    expect(isAcceptedTimeZone('europe/paris')).toBe(false);
  });

  // Bug: the platform (and the sandbox's REGION_PATTERN) accepts single-segment tzdb ids such as CET,
  // EST5EDT or Japan; the gateway's pattern wants a slash, so a valid zone is refused as BAD_USER_INPUT.
  it.failing('accepts a single-segment IANA id such as CET, as the platform does', () => {
    expect(isAcceptedTimeZone('CET')).toBe(true);
  });
});
