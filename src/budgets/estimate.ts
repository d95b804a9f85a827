import {
  getNamedType,
  isObjectType,
  Kind,
  type DirectiveNode,
  type DocumentNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { ENTITY_CALLS, WALKING_FIELDS } from '../area-modules.ts';
import { argumentValue, fragmentNamed, walksFromEnd } from '../hardening/operation-values.ts';
import { BACKWARD_WALK_RECORDS } from '../hardening/query-cost.ts';

/**
 * The platform calls an operation will make, estimated from its document before it runs, read from
 * the cost directives the schema declares for routers (schema/):
 * - a field with `@listSize` reads a platform list: one call per platform page its page size needs
 *   (`first`/`last`, else the default page size, over UPSTREAM_MAX_PAGE_SIZE), and its children
 *   count once per row; `last` without `before` on a list that may not report its length walks the
 *   list to its end (BACKWARD_WALK_RECORDS records);
 * - a field with `@cost(weight: n)` makes n calls;
 * - `_entities` resolves each representation: the entity calls its area declares for its type
 *   (src/area-modules.ts), plus its selection.
 * Anything else is free. Fields of one response key count once, as execution merges them.
 * `@skip`/`@include` are not read: such a field is counted, and refunded after the run if it made
 * no call.
 */
export interface EstimateSizes {
  /** Page size of a connection without `first`/`last`. */
  defaultSize: number;
  /** Largest `first`/`last` (PAGE_SIZE_MAX): a larger one is refused by the field, so it is not priced above. */
  maxSize: number;
  /** Rows per platform page (UPSTREAM_MAX_PAGE_SIZE). */
  upstreamPageSize: number;
}

/** A representation of a type without entity calls of its area (src/area-modules.ts): priced as if fetched. */
const UNKNOWN_ENTITY_CALLS = 1;

type Variables = Record<string, unknown>;

function directive(field: GraphQLField<unknown, unknown>, name: string): DirectiveNode | undefined {
  return field.astNode?.directives?.find((node) => node.name.value === name);
}

function intArgument(node: DirectiveNode, name: string): number | undefined {
  const value = node.arguments?.find((argument) => argument.name.value === name)?.value;
  return value?.kind === Kind.INT ? Number(value.value) : undefined;
}

/** The __typename of each representation, as sent in the variable or written in the query. */
function representationTypes(value: ValueNode | undefined, variables: Variables): string[] {
  if (value === undefined || value.kind === Kind.NULL) return [];
  if (value.kind === Kind.VARIABLE) {
    const given = Object.hasOwn(variables, value.name.value) ? variables[value.name.value] : undefined;
    const list = Array.isArray(given) ? given : given === null || given === undefined ? [] : [given];
    return list.map((item) => (typeof item === 'object' && item !== null && typeof (item as { __typename?: unknown }).__typename === 'string' ? (item as { __typename: string }).__typename : ''));
  }
  const items = value.kind === Kind.LIST ? value.values : [value];
  return items.map((item) => {
    if (item.kind !== Kind.OBJECT) return '';
    const typename = item.fields.find((field) => field.name.value === '__typename')?.value;
    return typename?.kind === Kind.STRING ? typename.value : '';
  });
}

export class CallEstimator {
  readonly #schema: GraphQLSchema;
  readonly #sizes: EstimateSizes;

  constructor(schema: GraphQLSchema, sizes: EstimateSizes) {
    this.#schema = schema;
    this.#sizes = sizes;
  }

  /** Platform calls the operation is expected to make (0 when it makes none). */
  estimate(document: DocumentNode, operation: OperationDefinitionNode, variables: Variables): number {
    const root = operation.operation === 'query' ? this.#schema.getQueryType() : operation.operation === 'mutation' ? this.#schema.getMutationType() : undefined;
    if (!root) return 0;
    return this.#selection(document, operation.selectionSet, root, variables, new Set(), true);
  }

  #pages(rows: number): number {
    return Math.max(1, Math.ceil(rows / this.#sizes.upstreamPageSize));
  }

  #size(value: unknown): number | undefined {
    return typeof value === 'number' && Number.isInteger(value) ? Math.min(Math.max(value, 0), this.#sizes.maxSize) : undefined;
  }

  #selection(document: DocumentNode, selectionSet: SelectionSetNode, parent: GraphQLObjectType, variables: Variables, spread: Set<string>, atRoot: boolean): number {
    let calls = 0;
    const keys = new Set<string>();
    const visit = (set: SelectionSetNode, type: GraphQLObjectType) => {
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) {
          const key = selection.alias?.value ?? selection.name.value;
          if (keys.has(key)) continue;
          keys.add(key);
          const field = type.getFields()[selection.name.value];
          if (field === undefined) continue;
          if (atRoot && field.name === '_entities') {
            const types = representationTypes(selection.arguments?.find((argument) => argument.name.value === 'representations')?.value, variables);
            for (const typename of types) {
              const entity = this.#schema.getType(typename);
              calls += ENTITY_CALLS.get(typename) ?? UNKNOWN_ENTITY_CALLS;
              if (isObjectType(entity) && selection.selectionSet) calls += this.#selection(document, selection.selectionSet, entity, variables, new Set(), false);
            }
            continue;
          }
          const listSize = directive(field, 'listSize');
          const cost = directive(field, 'cost');
          const named = getNamedType(field.type);
          if (listSize) {
            const size = this.#size(argumentValue(selection, 'first', variables)) ?? this.#size(argumentValue(selection, 'last', variables)) ?? intArgument(listSize, 'assumedSize') ?? this.#sizes.defaultSize;
            const walks = atRoot && WALKING_FIELDS.has(field.name) && walksFromEnd(selection, variables);
            calls += (cost ? (intArgument(cost, 'weight') ?? 1) : 1) * this.#pages(walks ? BACKWARD_WALK_RECORDS : size);
            if (selection.selectionSet && isObjectType(named)) calls += size * this.#selection(document, selection.selectionSet, named, variables, new Set(), false);
            continue;
          }
          if (cost) calls += intArgument(cost, 'weight') ?? 1;
          if (selection.selectionSet && isObjectType(named)) calls += this.#selection(document, selection.selectionSet, named, variables, new Set(), false);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          const condition = selection.typeCondition ? this.#schema.getType(selection.typeCondition.name.value) : type;
          visit(selection.selectionSet, isObjectType(condition) ? condition : type);
        } else if (!spread.has(selection.name.value)) {
          spread.add(selection.name.value);
          const fragment = fragmentNamed(document, selection.name.value);
          if (!fragment) continue;
          const condition = this.#schema.getType(fragment.typeCondition.name.value);
          visit(fragment.selectionSet, isObjectType(condition) ? condition : type);
        }
      }
    };
    visit(selectionSet, parent);
    return calls;
  }
}
