import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isUnionType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import type { Random } from '../../../sandbox/data/random.ts';

/** Ids worth sending: real ones of the caller and of another tenant make resolvers go all the way to the platform. */
export interface Pools {
  ids: string[];
  strings: string[];
}

export interface GeneratedOperation {
  query: string;
  variables: Record<string, unknown>;
}

const ODD_STRINGS = [
  '',
  ' ',
  '\u202Eevil\u202C',
  'zero\u200Bwidth\u200D',
  'e\u0301\u0301\u0301',
  '😀👩‍👩‍👧',
  'null',
  '\u0000nul',
  '../../etc/passwd',
  '%2e%2e%2f',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '{"$ne": null}',
  'Europe/Paris',
  '+05:30',
];

/**
 * Type-correct random values and selections for any field of a schema. Every
 * choice comes from the seeded random source, so a failing case can be
 * replayed from its index.
 */
export class OperationGenerator {
  private readonly schema: GraphQLSchema;
  private readonly random: Random;
  private readonly pools: Pools;

  constructor(schema: GraphQLSchema, random: Random, pools: Pools) {
    this.schema = schema;
    this.random = random;
    this.pools = pools;
  }

  /** A random value of `type`, as JSON (for variables). */
  value(type: GraphQLInputType, depth = 0, nullable = true): unknown {
    if (isNonNullType(type)) return this.value(type.ofType, depth, false);
    if (nullable && depth > 0 && this.random.chance(0.1)) return null;
    if (isListType(type)) return Array.from({ length: this.random.int(0, 3) }, () => this.value(type.ofType as GraphQLInputType, depth + 1));
    if (isEnumType(type)) return this.random.pick(type.getValues()).name;
    if (isInputObjectType(type)) {
      const result: Record<string, unknown> = {};
      for (const field of Object.values(type.getFields())) {
        if (isNonNullType(field.type) || this.random.chance(0.4)) result[field.name] = this.value(field.type, depth + 1);
      }
      return result;
    }
    return this.scalar(type.name);
  }

  private scalar(name: string): unknown {
    const r = this.random;
    switch (name) {
      case 'Int':
        return r.pick([0, 1, 2, 5, 20, 99, 100, 101, -1, r.int(-50, 150)]);
      case 'Float':
        return r.next() * 100;
      case 'Boolean':
        return r.chance(0.5);
      case 'ID':
        return r.chance(0.7) ? r.pick(this.pools.ids) : r.pick([r.uuid(), ...ODD_STRINGS]);
      case 'DateTime':
        return r.pick(['2026-01-01T00:00:00Z', '2025-06-30T12:00:00.000+02:00', '2026-03-04T10:15:30', '1970-01-01T00:00:00Z', '2999-12-31T23:59:59Z']);
      case 'Date':
        return r.pick(['2026-01-01', '2031-12-31', '2000-02-29', '1900-01-01']);
      case 'JSONObject':
        return r.pick([{}, { source: 'fuzz' }, { a: '1', b: '2' }, { nested: { deep: [1, 2, 3] } }]);
      case '_Any':
        return { __typename: r.pick(['FinancialAccount', 'Document', 'BusinessAccount']), id: r.pick(this.pools.ids) };
      case 'FieldSet':
      case 'link__Import':
        return 'id';
      default:
        return r.pick([...this.pools.strings, ...ODD_STRINGS]);
    }
  }

  /** A selection set for `type`, at most `depth` levels deep, always non-empty. */
  selection(type: GraphQLNamedType, depth: number): string {
    if (isLeafType(type)) return '';
    if (isUnionType(type) || isInterfaceType(type)) {
      const possible = this.schema.getPossibleTypes(type);
      const fragments = possible
        .filter(() => this.random.chance(0.6))
        .map((member) => `... on ${member.name} ${this.selection(member, depth)}`);
      return `{ __typename ${fragments.join(' ')} }`;
    }
    const object = type as GraphQLObjectType;
    const fields = Object.values(object.getFields()).filter((field) => !field.name.startsWith('_'));
    const leaves = fields.filter((field) => isLeafType(getNamedType(field.type)));
    const chosen = fields.filter((field) => (isLeafType(getNamedType(field.type)) ? this.random.chance(0.5) : depth > 1 && this.random.chance(0.35)));
    if (!chosen.some((field) => isLeafType(getNamedType(field.type))) && leaves.length > 0) chosen.push(this.random.pick(leaves));
    const parts = chosen.map((field) => this.field(field, depth - 1));
    return `{ ${parts.length > 0 ? parts.join(' ') : '__typename'} }`;
  }

  private field(field: GraphQLField<unknown, unknown>, depth: number): string {
    const args = this.literalArguments(field.args);
    const sub = this.selection(getNamedType(field.type), Math.max(depth, 1));
    return `${field.name}${args} ${sub}`.trim();
  }

  private literalArguments(args: readonly GraphQLArgument[]): string {
    const given = args.filter((arg) => isNonNullType(arg.type) || this.random.chance(0.4));
    if (given.length === 0) return '';
    return `(${given.map((arg) => `${arg.name}: ${literal(arg.type, this.value(arg.type))}`).join(', ')})`;
  }

  /** One operation on a root field: arguments as variables or literals, a random selection. */
  operation(kind: 'query' | 'mutation', field: GraphQLField<unknown, unknown>, maxDepth: number): GeneratedOperation {
    const useVariables = this.random.chance(0.5);
    const variables: Record<string, unknown> = {};
    const definitions: string[] = [];
    const args: string[] = [];
    for (const arg of field.args) {
      if (!isNonNullType(arg.type) && !this.random.chance(0.5)) continue;
      const value = this.value(arg.type);
      if (useVariables) {
        definitions.push(`$${arg.name}: ${String(arg.type)}`);
        variables[arg.name] = value;
        args.push(`${arg.name}: $${arg.name}`);
      } else {
        args.push(`${arg.name}: ${literal(arg.type, value)}`);
      }
    }
    const head = definitions.length > 0 ? `${kind} Fuzz(${definitions.join(', ')})` : `${kind} Fuzz`;
    const call = args.length > 0 ? `${field.name}(${args.join(', ')})` : field.name;
    return { query: `${head} { ${call} ${this.selection(getNamedType(field.type), maxDepth)} }`.replace(/\s+}/g, ' }'), variables };
  }
}

/** A JSON value written as a GraphQL literal of `type` (enum values bare, everything else as in JSON). */
export function literal(type: GraphQLInputType | undefined, value: unknown): string {
  if (value === null || value === undefined) return 'null';
  const inner = type && isNonNullType(type) ? type.ofType : type;
  if (Array.isArray(value)) return `[${value.map((item) => literal(inner && isListType(inner) ? (inner.ofType as GraphQLInputType) : undefined, item)).join(', ')}]`;
  if (typeof value === 'string') return inner && isEnumType(inner) ? value : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const fields = inner && isInputObjectType(inner) ? inner.getFields() : undefined;
  return `{ ${Object.entries(value as Record<string, unknown>).map(([key, item]) => `${key}: ${literal(fields?.[key]?.type, item)}`).join(', ')} }`;
}
