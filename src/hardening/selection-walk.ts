import {
  isAbstractType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { fragmentNamed, variableValue, type Variables } from './operation-values.ts';

/**
 * The one walk over an operation's selections that the request limit (query-cost.ts) and the calls
 * estimate (src/budgets/estimate.ts) share, with execution's rules (graphql-js' collectFields):
 * - the fields of a selection set are collected per concrete object type, merged by response key
 *   (fields of one key are one field, their sub-selections merged);
 * - an inline fragment or fragment spread is visited only when its type condition can apply to that
 *   object type, and a named fragment once per collection;
 * - a field of a union or interface type is walked once for each object type it may resolve to.
 * `@skip`/`@include` are not read: a walk never counts less than execution does.
 */

/** The operation's root object type, or undefined for one the schema lacks (subscriptions). */
export function rootType(schema: GraphQLSchema, operation: OperationDefinitionNode): GraphQLObjectType | undefined {
  if (operation.operation === 'query') return schema.getQueryType() ?? undefined;
  if (operation.operation === 'mutation') return schema.getMutationType() ?? undefined;
  return undefined;
}

/** The object types a value of `type` may be: itself, or an abstract type's possible types. */
export function possibleObjectTypes(schema: GraphQLSchema, type: GraphQLNamedType): readonly GraphQLObjectType[] {
  if (isObjectType(type)) return [type];
  if (isAbstractType(type)) return schema.getPossibleTypes(type);
  return [];
}

function conditionApplies(schema: GraphQLSchema, condition: string | undefined, type: GraphQLObjectType): boolean {
  if (condition === undefined || condition === type.name) return true;
  const conditionType = schema.getType(condition);
  return conditionType !== undefined && isAbstractType(conditionType) && schema.isSubType(conditionType, type);
}

/**
 * The fields `selectionSets` (together, as one merged selection) select on an object of `type`, by
 * response key in document order, each with every node of that key.
 */
export function collectFields(schema: GraphQLSchema, document: DocumentNode, type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[]): Map<string, FieldNode[]> {
  const fields = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  const collect = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const nodes = fields.get(key);
        if (nodes === undefined) fields.set(key, [selection]);
        else nodes.push(selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (conditionApplies(schema, selection.typeCondition?.name.value, type)) collect(selection.selectionSet);
      } else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        const fragment = fragmentNamed(document, selection.name.value);
        if (fragment !== undefined && conditionApplies(schema, fragment.typeCondition.name.value, type)) collect(fragment.selectionSet);
      }
    }
  };
  for (const selectionSet of selectionSets) collect(selectionSet);
  return fields;
}

/** The sub-selections of every node of one response key: execution runs them as one. */
export function subSelections(nodes: readonly FieldNode[]): SelectionSetNode[] {
  const sets: SelectionSetNode[] = [];
  for (const node of nodes) if (node.selectionSet !== undefined) sets.push(node.selectionSet);
  return sets;
}

/**
 * Each representation one `_entities` field asks for, as its `__typename` (undefined when the
 * document and the variables do not tell it): a variable holding a list or one object, a list literal
 * whose items are objects or variables, an object literal, and `__typename` written or in a variable.
 */
export function representationTypenames(field: FieldNode, variables: Variables): (string | undefined)[] {
  const argument = field.arguments?.find((arg) => arg.name.value === 'representations');
  if (argument === undefined) return [];
  return listItems(argument.value, variables).map((item) => typenameOf(item, variables));
}

/** A representation: a literal object node, a value a variable holds, or something else (unreadable). */
type Item = { node: ValueNode } | { value: unknown };

function listItems(value: ValueNode, variables: Variables): Item[] {
  if (value.kind === Kind.NULL) return [];
  if (value.kind === Kind.VARIABLE) {
    const given = variableValue(variables, value.name.value);
    if (given === null || given === undefined) return [];
    return (Array.isArray(given) ? given : [given]).map((item: unknown) => ({ value: item }));
  }
  if (value.kind === Kind.LIST) {
    return value.values.map((item): Item => (item.kind === Kind.VARIABLE ? { value: variableValue(variables, item.name.value) } : { node: item }));
  }
  return [{ node: value }];
}

function typenameOf(item: Item, variables: Variables): string | undefined {
  if ('value' in item) {
    const typename = typeof item.value === 'object' && item.value !== null ? (item.value as { __typename?: unknown }).__typename : undefined;
    return typeof typename === 'string' ? typename : undefined;
  }
  if (item.node.kind !== Kind.OBJECT) return undefined;
  const typename = item.node.fields.find((field) => field.name.value === '__typename')?.value;
  if (typename?.kind === Kind.STRING) return typename.value;
  if (typename?.kind === Kind.VARIABLE) {
    const given = variableValue(variables, typename.name.value);
    return typeof given === 'string' ? given : undefined;
  }
  return undefined;
}
