import {
  Kind,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { WALKING_FIELDS } from '../area-modules.ts';
import { armorRules } from './armor-rules.ts';
import { fragmentNamed, variableValue, walksFromEnd, type Variables } from './operation-values.ts';

/** Page sizes the cost of a connection is multiplied by. */
export interface PageSizes {
  /** Size of a connection queried without `first`/`last`. */
  defaultSize: number;
  /** Largest `first`/`last`; anything above is refused by the connection itself. */
  maxSize: number;
}

/**
 * How many records `last` without `before` may read of a list that answers without its length before
 * the connection gives up on the walk (`maxWalkRecords`' default in src/connections/paginate.ts).
 */
export const BACKWARD_WALK_RECORDS = 10_000;

/**
 * What such a walk adds to the cost, whatever the selection: each record it may read counts as an
 * object with nothing selected (armor's object cost, 2), as it is fetched and parsed but not served.
 * 20 000: one walk fits under the default MAX_QUERY_COST with room for other fields, three do not.
 */
export const BACKWARD_WALK_COST = BACKWARD_WALK_RECORDS * 2;

/**
 * Walks to the end of a list the operation asks for: fields of WALKING_FIELDS (src/area-modules.ts) at
 * its root (inline fragments and fragment spreads on Query included) with `last` and without `before`,
 * one per response key, as execution resolves fields of one key once. A root selection is a few nodes
 * per request.
 */
export function backwardWalks(operation: OperationDefinitionNode, document: DocumentNode, variables: Variables): number {
  if (operation.operation !== 'query' || WALKING_FIELDS.size === 0) return 0;
  const keys = new Set<string>();
  const seen = new Set<string>();
  const collect = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!WALKING_FIELDS.has(selection.name.value)) continue;
        if (walksFromEnd(selection, variables)) keys.add(selection.alias?.value ?? selection.name.value);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collect(selection.selectionSet);
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const definition = fragmentNamed(document, selection.name.value);
        if (definition) collect(definition.selectionSet);
      }
    }
  };
  collect(operation.selectionSet);
  return keys.size;
}

/** Representations one `_entities` field asks for: a list literal's length, a variable's list length (a single value is a list of one). */
function representationsOf(field: FieldNode, variables: Variables): number {
  const argument = field.arguments?.find((arg) => arg.name.value === 'representations');
  if (!argument) return 0;
  const { value } = argument;
  if (value.kind === Kind.LIST) return value.values.length;
  if (value.kind === Kind.NULL) return 0;
  if (value.kind !== Kind.VARIABLE) return 1;
  const given = variableValue(variables, value.name.value);
  if (Array.isArray(given)) return given.length;
  return given === null || given === undefined ? 0 : 1;
}

/**
 * Representations the operation asks `_entities` for, over every `_entities` field of its root selection
 * (inline fragments and fragment spreads on Query included; each fragment counted once, as execution merges
 * repeated spreads). `_entities` exists only on Query, so only the root is walked: a few nodes per request.
 */
export function representationCount(operation: OperationDefinitionNode, document: DocumentNode, variables: Variables): number {
  if (operation.operation !== 'query') return 0;
  const seen = new Set<string>();
  const fragment = (name: string) => fragmentNamed(document, name);
  const count = (selectionSet: SelectionSetNode): number => {
    let total = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === '_entities') total += representationsOf(selection, variables);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        total += count(selection.selectionSet);
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const definition = fragment(selection.name.value);
        if (definition) total += count(definition.selectionSet);
      }
    }
    return total;
  };
  return count(operation.selectionSet);
}

/**
 * Only the arguments armor's cost rule multiplies by are rewritten: a page-size
 * variable becomes its value, a missing size the default, a size over the cap
 * the cap (the connection refuses it anyway, with a clearer message). `_entities`
 * gets its number of representations as its `first`, so armor multiplies the
 * cost of its selection by it, like a page: each representation is resolved.
 */
function withEffectivePageSizes(schema: GraphQLSchema, document: DocumentNode, variables: Variables, sizes: PageSizes): DocumentNode {
  const typeInfo = new TypeInfo(schema);
  const size = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) ? Math.min(Math.max(value, 0), sizes.maxSize) : undefined);
  const intArgument = (name: 'first' | 'last', value: number): ArgumentNode => ({
    kind: Kind.ARGUMENT,
    name: { kind: Kind.NAME, value: name },
    value: { kind: Kind.INT, value: String(value) },
  });
  return visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node: FieldNode) {
        const definition = typeInfo.getFieldDef();
        if (definition?.name === '_entities' && typeInfo.getParentType() === schema.getQueryType()) {
          return { ...node, arguments: [...(node.arguments ?? []), intArgument('first', representationsOf(node, variables))] };
        }
        if (!definition?.args.some((arg) => arg.name === 'first')) return undefined;
        const given = (node.arguments ?? []).find((arg) => arg.name.value === 'first' || arg.name.value === 'last');
        let effective = sizes.defaultSize;
        if (given?.value.kind === Kind.INT) effective = size(Number(given.value.value)) ?? sizes.defaultSize;
        else if (given?.value.kind === Kind.VARIABLE) effective = size(variableValue(variables, given.value.name.value)) ?? sizes.defaultSize;
        const others = (node.arguments ?? []).filter((arg) => arg.name.value !== 'first' && arg.name.value !== 'last');
        return { ...node, arguments: [intArgument('first', effective), ...others] };
      },
    }),
  );
}

/**
 * The costs armor reports, by the validation that reports them: every validate() call has its own
 * context, so one validation never reads another's costs, whether validation runs to its end at once
 * (as graphql-js does) or not.
 */
const reportedCosts = new WeakMap<ValidationContext, number[]>();

// armor computes the cost of every operation of the document (in document order) and never refuses:
// the caller adds the walks to the executed operation's cost and applies the limit to the sum.
const armorCostRules = armorRules({
  costLimit: {
    maxCost: Infinity,
    flattenFragments: true,
    propagateOnRejection: false,
    onAccept: [(context: ValidationContext | null, { n }: { n: number }) => void (context && reportedCosts.get(context)?.push(n))],
  },
});

/**
 * armor's cost of the operation: objects 2, scalars 1, ×1.5 per level, × the effective page size of each
 * connection (`first: $n` and a missing `first` included), × the representations of `_entities`.
 */
export function armorCost(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Variables, sizes: PageSizes): number {
  const costs: number[] = [];
  const rules = armorCostRules.map((rule): ValidationRule => (context) => {
    reportedCosts.set(context, costs);
    return rule(context);
  });
  validate(schema, withEffectivePageSizes(schema, document, variables, sizes), rules);
  const index = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION).indexOf(operation);
  // Should the operation not be found among the document's, the costliest stands for it.
  return index >= 0 ? costs[index]! : Math.max(0, ...costs);
}
