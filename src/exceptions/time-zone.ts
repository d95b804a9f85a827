// The forms the platform accepts for `timeZone` (see the exceptions endpoint):
// Z / UTC / GMT, an offset {+,-}N(N)(:MM), UTC±offset / GMT±offset, or an IANA region id.
const FIXED = /^(?:Z|UTC|GMT)$/;
const OFFSET = /^(?:UTC|GMT)?[+-](\d{1,2})(?::(\d{2}))?$/;
// Region ids as tzdb spells them: Europe/Berlin, America/Argentina/Buenos_Aires, Etc/GMT+5, and
// single-segment ones such as CET, EST5EDT or Japan.
const REGION = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

function isRegion(zone: string): boolean {
  if (!REGION.test(zone)) return false;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  // Intl matches ids whatever their case (`europe/paris`); tzdb, and so the platform, does not. An
  // alias resolves to another id (US/Eastern to America/New_York) and is taken as given, as the
  // platform's model in the sandbox takes it (sandbox/data/time.ts: the same rule).
  return resolved === zone || resolved.toLowerCase() !== zone.toLowerCase();
}

/** True when the platform will understand `zone`; checked before any call so a typo costs no round trip. */
export function isAcceptedTimeZone(zone: string): boolean {
  if (FIXED.test(zone)) return true;
  const offset = OFFSET.exec(zone);
  if (offset) {
    const hours = Number(offset[1]);
    const minutes = offset[2] === undefined ? 0 : Number(offset[2]);
    return hours <= 18 && minutes < 60 && (hours < 18 || minutes === 0);
  }
  return isRegion(zone);
}
