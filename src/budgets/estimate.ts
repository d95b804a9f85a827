import {
  BREAK,
  getNamedType,
  Kind,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type IntValueNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
  visit,
} from 'graphql';
import { AREA_MODULES, ENTITY_CALLS, WALKING_FIELDS } from '../schema/area-modules.ts';
import type { ListDescriptor } from '../connections/index.ts';
import { plannedCalls } from '../connections/window.ts';
import { argumentValue, variablesShapeKey, walksFromEnd, withDefaults, type Variables } from '../hardening/operation-values.ts';
import { BACKWARD_WALK_RECORDS } from '../hardening/query-cost.ts';
import { collectFields, possibleObjectTypes, representationTypenames, rootType, subSelections } from '../hardening/selection-walk.ts';

/**
 * The platform calls an operation may make, from its document before it runs: an upper bound, read
 * from the cost directives the schema declares for routers (schema/), over the selections as
 * execution collects them (src/hardening/selection-walk.ts, shared with the request limit):
 * - a field with `@listSize` reads a platform list: the calls of the page plan its connection makes
 *   (src/connections/window.ts plannedCalls: the window with its look-ahead row, in pages of the
 *   size the gateway plans that list with, a learned page-size cap included), and its children
 *   count once per row;
 * - a field with `@cost(weight: n)` makes n calls;
 * - a union or interface is priced at its most expensive member;
 * - `_entities` resolves each representation: the entity calls its area declares for its type
 *   (src/schema/area-modules.ts), plus its selection; a representation whose type the document and
 *   variables do not tell is priced as the most expensive entity;
 * - fields of one response key count once, as execution merges them, and only fragments that can
 *   apply are visited; `@skip`/`@include` are not read (such a field counts).
 * Anything else is free. Retries are not in the estimate: every attempt draws from the caller's
 * bucket when it is sent (ledger.ts), so an estimate short of the truth never lets a call go unpaid.
 */
export interface EstimateSizes {
  /** Page size of a connection without `first`/`last`. */
  defaultSize: number;
  /** Largest `first`/`last` (PAGE_SIZE_MAX): a larger one is refused by the field, so it is not priced above. */
  maxSize: number;
  /** Rows per platform page (UPSTREAM_MAX_PAGE_SIZE). */
  upstreamPageSize: number;
}

/** What the gateway learned of the platform's lists (src/connections/paging-facts.ts): the page size each is planned with. */
export interface ListPageSizes {
  pageSizeFor(list: string, configured: number): number;
  /** Changes whenever a list's page size does. */
  readonly capsGeneration: number;
}

/** The list each connection field reads, by field name (a field of that name reads the same list wherever it is). */
const LIST_OF_FIELD: ReadonlyMap<string, ListDescriptor<unknown>> = new Map(Object.values(AREA_MODULES).flatMap((module) => Object.entries(module.queryLists ?? {})));

/** A representation of a type without entity calls of its area (src/schema/area-modules.ts): priced as if fetched. */
const UNKNOWN_ENTITY_CALLS = 1;

/** Estimates kept for documents seen before, by document and variables' shape; the oldest goes first. */
const KNOWN_ESTIMATES = 1_000;

/** Whether a document asks `_entities` anywhere (its operations or fragments). */
function asksEntities(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value !== '_entities') return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}

function directive(field: GraphQLField<unknown, unknown>, name: string): DirectiveNode | undefined {
  return field.astNode?.directives?.find((node) => node.name.value === name);
}

function intArgument(node: DirectiveNode, name: string): number | undefined {
  const value = node.arguments?.find((argument) => argument.name.value === name)?.value;
  return value?.kind === Kind.INT ? Number(value.value) : undefined;
}

/** Whether an argument is given a value (a literal, or a variable that was sent), null excepted. */
function given(field: FieldNode, name: string, variables: Variables): boolean {
  const value = argumentValue(field, name, variables);
  return value !== undefined && value !== null;
}

export class CallEstimator {
  readonly #schema: GraphQLSchema;
  readonly #sizes: EstimateSizes;
  readonly #entityType;
  /** The most any entity's own calls cost: a representation of an unknown type is priced at it. */
  readonly #dearestEntity: number;

  constructor(schema: GraphQLSchema, sizes: EstimateSizes) {
    this.#schema = schema;
    this.#sizes = sizes;
    this.#entityType = schema.getType('_Entity');
    this.#dearestEntity = Math.max(UNKNOWN_ENTITY_CALLS, ...ENTITY_CALLS.values());
  }

  /** Estimates by variablesShapeKey: most requests repeat a document with the same page sizes. */
  readonly #known = new Map<string, number>();
  /** The caps' generation the estimates in #known were made under. */
  #generation = 0;
  /** The page sizes of the estimate being made. */
  #lists: ListPageSizes | undefined;
  /** Documents (as Apollo's document cache keeps them) that ask `_entities`. */
  readonly #entityDocuments = new WeakMap<DocumentNode, boolean>();

  /**
   * The estimate of an operation as sent (its variables without the defaults), remembered for the
   * same document with variables of the same shape. A document asking `_entities` is estimated
   * every time: its representations' types, which a shape does not hold, change its price. With
   * `lists`, each list is priced at the page size the gateway plans it with now.
   */
  estimateSent(queryHash: string | undefined, document: DocumentNode, operation: OperationDefinitionNode, variables: Variables, lists?: ListPageSizes): number {
    if (lists !== undefined && lists.capsGeneration !== this.#generation) {
      // A cap learned or expired: every remembered estimate may have changed.
      this.#known.clear();
      this.#generation = lists.capsGeneration;
    }
    let entities = this.#entityDocuments.get(document);
    if (entities === undefined) this.#entityDocuments.set(document, (entities = asksEntities(document)));
    const key = queryHash === undefined || entities ? undefined : variablesShapeKey(queryHash, operation, variables);
    const known = key === undefined ? undefined : this.#known.get(key);
    if (known !== undefined) return known;
    const calls = this.estimate(document, operation, withDefaults(operation, variables), lists);
    if (key !== undefined) {
      if (this.#known.size >= KNOWN_ESTIMATES) this.#known.delete(this.#known.keys().next().value!);
      this.#known.set(key, calls);
    }
    return calls;
  }

  /** Platform calls the operation may make at most (0 when it makes none). */
  estimate(document: DocumentNode, operation: OperationDefinitionNode, variables: Variables, lists?: ListPageSizes): number {
    const root = rootType(this.#schema, operation);
    if (!root) return 0;
    this.#lists = lists;
    try {
      return this.#object(document, root, [operation.selectionSet], variables, true);
    } finally {
      this.#lists = undefined;
    }
  }

  /** The page size the connection of `list` plans with: the configured one, or the cap learned for it. */
  #pageSize(list: ListDescriptor<unknown> | undefined): number {
    const configured = this.#sizes.upstreamPageSize;
    return list === undefined || this.#lists === undefined ? configured : this.#lists.pageSizeFor(list.list, configured);
  }

  /** A page-size argument as a number of rows (a literal or a variable's value), clamped to the sizes allowed. */
  #size(node: FieldNode, name: string, variables: Variables): number | undefined {
    const given = argumentValue(node, name, variables);
    const value = typeof given === 'object' && given !== null && (given as ValueNode).kind === Kind.INT ? Number((given as IntValueNode).value) : given;
    if (typeof value !== 'number' || !Number.isInteger(value)) return undefined;
    return Math.min(Math.max(value, 0), this.#sizes.maxSize);
  }

  /**
   * The platform pages a connection's window may touch (src/connections/paginate.ts), as its page plan
   * takes them (plannedCalls): `first` from the start is its plan; a window at an offset the document
   * does not tell (`after`, `before`) the most pages the plan takes at any offset; `last` without
   * `before` first learns the list's length with a one-row call, and on a list that may not report
   * it (WALKING_FIELDS) walks the list to its end (BACKWARD_WALK_RECORDS records, plus the page the
   * walk starts in).
   */
  #windowPages(node: FieldNode, rows: number, variables: Variables, atRoot: boolean): number {
    const list = LIST_OF_FIELD.get(node.name.value);
    const totals = list?.totals ?? 'sometimes';
    const size = this.#pageSize(list);
    if (walksFromEnd(node, variables)) {
      if (atRoot && WALKING_FIELDS.has(node.name.value)) return Math.ceil(BACKWARD_WALK_RECORDS / size) + 1;
      // The one-row call, then the window at the offset it tells.
      return 1 + Math.max(1, Math.ceil(rows / size)) + 1;
    }
    const offset = given(node, 'after', variables) || given(node, 'before', variables);
    return plannedCalls(rows, totals, size, !offset);
  }

  /** The calls of `selectionSets` (one merged selection) on an object of `type`. */
  #object(document: DocumentNode, type: GraphQLObjectType, selectionSets: readonly SelectionSetNode[], variables: Variables, atRoot: boolean): number {
    let calls = 0;
    for (const nodes of collectFields(this.#schema, document, type, selectionSets).values()) {
      const node = nodes[0]!;
      const field = type.getFields()[node.name.value];
      if (field === undefined) continue;
      const children = subSelections(nodes);
      if (atRoot && field.name === '_entities') {
        calls += this.#entities(document, node, children, variables);
        continue;
      }
      const listSize = directive(field, 'listSize');
      const cost = directive(field, 'cost');
      const weight = cost ? (intArgument(cost, 'weight') ?? 1) : 0;
      const below = children.length === 0 ? 0 : this.#dearest(document, getNamedType(field.type), children, variables);
      if (listSize) {
        const rows = this.#size(node, 'first', variables) ?? this.#size(node, 'last', variables) ?? intArgument(listSize, 'assumedSize') ?? this.#sizes.defaultSize;
        calls += Math.max(weight, 1) * this.#windowPages(node, rows, variables, atRoot) + rows * below;
        continue;
      }
      calls += weight + below;
    }
    return calls;
  }

  /** A selection on a field of `named` type: the most any object type it may resolve to costs. */
  #dearest(document: DocumentNode, named: GraphQLNamedType, children: readonly SelectionSetNode[], variables: Variables): number {
    let most = 0;
    for (const type of possibleObjectTypes(this.#schema, named)) most = Math.max(most, this.#object(document, type, children, variables, false));
    return most;
  }

  /** `_entities`: per representation its type's entity calls and its selection on that type. */
  #entities(document: DocumentNode, node: FieldNode, children: readonly SelectionSetNode[], variables: Variables): number {
    let calls = 0;
    for (const typename of representationTypenames(node, variables)) {
      const type = typename === undefined ? undefined : this.#schema.getType(typename);
      if (type === undefined) {
        // Not told: the dearest entity with the dearest selection.
        const entity = this.#entityType;
        calls += this.#dearestEntity + (children.length === 0 || entity === undefined ? 0 : this.#dearest(document, entity, children, variables));
        continue;
      }
      calls += ENTITY_CALLS.get(type.name) ?? UNKNOWN_ENTITY_CALLS;
      if (children.length > 0) calls += this.#dearest(document, type, children, variables);
    }
    return calls;
  }
}
