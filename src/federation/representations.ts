import { isUnionType, Kind, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { clip } from '../client-text.ts';
import { badUserInput } from '../errors.ts';
import type { ArgumentPath } from '../platform/ids.ts';

/** Longest `__typename` quoted back in a refusal (no entity type name comes near it). */
const MAX_QUOTED_TYPENAME = 64;

/** The key field sets of each entity type of the schema (`_Entity`'s members), from their `@key(fields:)`. */
function entityKeys(schema: GraphQLSchema): ReadonlyMap<string, readonly string[][]> {
  const keys = new Map<string, string[][]>();
  const entity = schema.getType('_Entity');
  if (!isUnionType(entity)) return keys;
  for (const type of entity.getTypes()) {
    const sets: string[][] = [];
    for (const node of [type.astNode, ...(type.extensionASTNodes ?? [])]) {
      for (const directive of node?.directives ?? []) {
        if (directive.name.value !== 'key') continue;
        const fields = directive.arguments?.find((argument) => argument.name.value === 'fields')?.value;
        // Only flat key field lists: nested selections (`fields: "a { b }"`) are not used by this subgraph.
        if (fields?.kind === Kind.STRING && !/[{}]/.test(fields.value)) sets.push(fields.value.trim().split(/[\s,]+/));
      }
    }
    keys.set(type.name, sets);
  }
  return keys;
}

const isKeyValue = (value: unknown): boolean => typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));

/**
 * Why `representation` (the `index`th of `_entities`) cannot name an entity of
 * this subgraph, or undefined when it can: it must be an object whose
 * `__typename` is an entity type and which holds every field of one of that
 * type's keys as an ID (a string or an integer).
 */
function representationProblem(representation: unknown, index: number, keys: ReadonlyMap<string, readonly string[][]>): string | undefined {
  const at = `representations[${index}]`;
  if (typeof representation !== 'object' || representation === null || Array.isArray(representation)) return `${at} must be an object with __typename and the entity's key fields`;
  const { __typename: typename } = representation as { __typename?: unknown };
  if (typeof typename !== 'string') return `${at} has no __typename`;
  const sets = keys.get(typename);
  if (!sets) return `${at}: "${clip(typename, MAX_QUOTED_TYPENAME)}" is not an entity type of this subgraph`;
  // An entity whose keys are all nested (`owner { id }`) has no flat key this check could read.
  if (sets.length === 0) return `${at}: ${typename} has no flat key fields to resolve it by`;
  const record = representation as Record<string, unknown>;
  if (sets.some((fields) => fields.every((field) => isKeyValue(record[field])))) return undefined;
  return `${at}: ${typename} needs its key field${sets[0]!.length > 1 ? 's' : ''} ${sets.map((fields) => fields.join(' ')).join(' or ')} as an ID`;
}

/**
 * Wraps the `_entities` resolver @apollo/subgraph built so that a malformed
 * representation (a router never sends one; a client may) is refused as
 * BAD_USER_INPUT before any entity is resolved, instead of failing inside the
 * resolver as an internal error. `idRule` checks each representation's `id` key (it throws a
 * refusal naming the representation's place).
 */
export function checkRepresentations(schema: GraphQLSchema, idRule?: (id: string, path: ArgumentPath) => unknown): void {
  const field = schema.getQueryType()?.getFields()._entities;
  const resolve = field?.resolve;
  if (!field || !resolve) return;
  const keys = entityKeys(schema);
  const checked: GraphQLFieldResolver<unknown, unknown> = (source, args, context, info) => {
    const representations = (args as { representations?: unknown }).representations;
    if (Array.isArray(representations)) {
      for (const [index, representation] of representations.entries()) {
        const problem = representationProblem(representation, index, keys);
        if (problem) throw badUserInput(problem, { argumentName: 'representations' });
      }
      // Then each `id` by the id rule, once every representation has its shape.
      if (idRule) {
        for (const [index, representation] of representations.entries()) {
          const { id } = representation as { id?: unknown };
          if (id !== undefined) idRule(String(id), ['representations', index, 'id']);
        }
      }
    }
    return resolve(source, args, context, info);
  };
  field.resolve = checked;
}
