import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { GraphQLJSONObject, GraphQLLocalDate } from 'graphql-scalars';

// The platform writes instants as yyyy-MM-dd'T'HH:mm:ss.SSSZ, where Java's `Z` is an
// RFC 822 offset (`+0000`, no colon) — not RFC 3339. Outputs are normalised to UTC ISO 8601.
// Inputs may omit the offset: a filter's `timeZone` then says how the platform reads them.
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

// The platform's usual UTC form, e.g. 2026-03-04T10:15:30.123+0000: rewritten without parsing a Date.
const PLATFORM_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(?:\+0000|\+00:00|Z)$/;

const daysIn = (year: number, month: number) =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/**
 * True for a real calendar day and wall-clock time. `Date` would roll an impossible one over
 * (`2026-02-30` becomes March 2nd), so the fields are checked before any `Date` sees them.
 * Offsets go up to ±23:59 (RFC 3339); leap seconds are not accepted, as the platform's Java clock has none.
 */
function isRealInstant(year: number, month: number, day: number, hour: number, minute: number, second: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) && hour < 24 && minute < 60 && second < 60;
}

function toIsoInstant(value: string): string | null {
  if (PLATFORM_UTC.test(value)) {
    const valid = isRealInstant(
      Number(value.slice(0, 4)),
      Number(value.slice(5, 7)),
      Number(value.slice(8, 10)),
      Number(value.slice(11, 13)),
      Number(value.slice(14, 16)),
      Number(value.slice(17, 19)),
    );
    return valid ? `${value.slice(0, 23)}Z` : null;
  }
  const match = INSTANT.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s = '00', frac = '', zone] = match;
  if (!isRealInstant(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s))) return null;
  const offset = !zone || zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 3 ? `${zone}:00` : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  if (offset !== 'Z' && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4, 6)) > 59)) return null;
  const millis = `${frac}000`.slice(0, 3);
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}.${millis}${offset}`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function checkInput(value: unknown): string {
  if (typeof value !== 'string' || !INSTANT.test(value) || toIsoInstant(value) === null) {
    throw new GraphQLError(`DateTime must be an ISO 8601 date-time such as "2026-03-04T10:15:30.000Z" or "2026-03-04T10:15:30" (got ${JSON.stringify(value)})`);
  }
  return value;
}

// Resolver maps replace a scalar wholesale (description included), so the
// descriptions below repeat the SDL's.
export const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  description:
    'An instant in time, ISO 8601 / RFC 3339 with a zone offset, millisecond precision,\nalways answered in UTC (`2026-03-04T10:15:30.123Z`). Inputs accept any offset.',
  serialize(value) {
    if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
    const iso = typeof value === 'string' ? toIsoInstant(value) : null;
    if (iso === null) throw new GraphQLError(`The platform sent an unreadable date-time: ${JSON.stringify(value)}`);
    return iso;
  },
  parseValue: checkInput,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string', { nodes: ast });
    return checkInput(ast.value);
  },
});

export const DateScalar = new GraphQLScalarType({
  ...GraphQLLocalDate.toConfig(),
  name: 'Date',
  description: 'A calendar date without time or zone, `yyyy-mm-dd` (e.g. `2031-12-31`).',
});

export const JSONObject = GraphQLJSONObject;
