// The forms the platform accepts for `timeZone` (see the exceptions endpoint):
// Z / UTC / GMT, an offset {+,-}N(N)(:MM), UTC±offset / GMT±offset, or an IANA region id.
const FIXED = /^(?:Z|UTC|GMT)$/;
const OFFSET = /^(?:UTC|GMT)?[+-](\d{1,2})(?::(\d{2}))?$/;
const REGION = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)+$/;

function isRegion(zone: string): boolean {
  if (!REGION.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
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
