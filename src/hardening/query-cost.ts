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
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { WALKING_FIELDS } from '../schema/area-modules.ts';
import { armorRules } from './armor-rules.ts';
import { variableValue, walksFromEnd, type Variables } from './operation-values.ts';
import { collectFields, representationTypenames } from './selection-walk.ts';

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
 * Walks to the end of a list the operation asks for: fields of WALKING_FIELDS (src/schema/area-modules.ts) at
 * its root (inline fragments and fragment spreads on Query included) with `last` and without `before`,
 * one per response key, as execution resolves fields of one key once (selection-walk.ts).
 */
export function backwardWalks(schema: GraphQLSchema, operation: OperationDefinitionNode, document: DocumentNode, variables: Variables): number {
  const query = schema.getQueryType();
  if (operation.operation !== 'query' || WALKING_FIELDS.size === 0 || !query) return 0;
  let walks = 0;
  for (const nodes of collectFields(schema, document, query, [operation.selectionSet]).values()) {
    const node = nodes[0]!;
    if (WALKING_FIELDS.has(node.name.value) && walksFromEnd(node, variables)) walks++;
  }
  return walks;
}

/** Representations one `_entities` field asks for: a list's length, a variable's list length (a single value is a list of one). */
function representationsOf(field: FieldNode, variables: Variables): number {
  return representationTypenames(field, variables).length;
}

/**
 * Representations the operation asks `_entities` for, over every `_entities` response key of its root
 * selection (inline fragments and fragment spreads on Query included; selection-walk.ts).
 */
export function representationCount(schema: GraphQLSchema, operation: OperationDefinitionNode, document: DocumentNode, variables: Variables): number {
  const query = schema.getQueryType();
  if (operation.operation !== 'query' || !query) return 0;
  let total = 0;
  for (const nodes of collectFields(schema, document, query, [operation.selectionSet]).values()) {
    if (nodes[0]!.name.value === '_entities') total += representationsOf(nodes[0]!, variables);
  }
  return total;
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
