import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { GraphQLJSONObject, GraphQLLocalDate } from 'graphql-scalars';
import { toIsoInstant } from '../date-time.ts';

// Outputs are normalised to UTC ISO 8601 (src/date-time.ts reads the platform's `+0000` offsets).
// Inputs may omit the offset: a filter's `timeZone` then says how the platform reads them.

function checkInput(value: unknown): string {
  if (typeof value !== 'string' || toIsoInstant(value) === null) {
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
