import type { ApolloServerPlugin, BaseContext, GraphQLRequestListener } from '@apollo/server';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import {
  GraphQLError,
  Kind,
  TypeInfo,
  validate,
  valueFromASTUntyped,
  visit,
  visitWithTypeInfo,
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ParseOptions,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { acceptanceList } from '../acceptances/api.ts';
import { ErrorCode } from '../errors.ts';
import { exceptionList } from '../exceptions/api.ts';
import { linxBatchList } from '../linx/api.ts';

/** Static limits on one GraphQL document, all checked before anything is executed. */
export interface QueryLimits {
  /** Deepest field nesting; fragments and inline fragments do not add a level. */
  depth: number;
  /** Aliased fields (`__typename` aliases are free). */
  aliases: number;
  /** Directive uses. */
  directives: number;
  /** Lexical tokens of the document. */
  tokens: number;
  /**
   * graphql-armor's cost: objects 2, scalars 1, ×1.5 per level, × the page size of each connection;
   * plus BACKWARD_WALK_COST for each `last` without `before` on a list that may not report its length.
   */
  cost: number;
}

/** Page sizes the cost of a connection is multiplied by. */
export interface PageSizes {
  /** Size of a connection queried without `first`/`last`. */
  defaultSize: number;
  /** Largest `first`/`last`; anything above is refused by the connection itself. */
  maxSize: number;
}

/** The variable that sets the cap on federation representations per request. */
const REPRESENTATIONS_LIMIT_VARIABLE = 'MAX_ENTITY_REPRESENTATIONS';

/** The variable that sets each limit; rejections name it in `extensions.limit`. */
const LIMIT_VARIABLES = {
  depth: 'MAX_QUERY_DEPTH',
  aliases: 'MAX_QUERY_ALIASES',
  directives: 'MAX_QUERY_DIRECTIVES',
  tokens: 'MAX_QUERY_TOKENS',
  cost: 'MAX_QUERY_COST',
} as const satisfies Record<keyof QueryLimits, string>;

type ArmorConfig = NonNullable<ConstructorParameters<typeof ApolloArmor>[0]>;
type RejectHandler = (context: ValidationContext | null, error: GraphQLError) => void;

/**
 * graphql-armor words every rejection as a "Syntax Error" and, in its Apollo
 * flavour, reports it with a code Apollo then overwrites. The message is
 * re-worded and the limit named, so a client (and an operator reading the
 * logs) knows which limit to respect or raise.
 */
function limitError(limit: keyof QueryLimits, max: number, armorMessage: string): GraphQLError {
  const message = armorMessage.replace(/^Syntax Error: /, '');
  return new GraphQLError(message, { extensions: { limit: LIMIT_VARIABLES[limit], max } });
}

function reportTo(limit: keyof QueryLimits, max: number): RejectHandler {
  return (context, error) => context?.reportError(limitError(limit, max, error.message));
}

function armorRules(config: ArmorConfig): ValidationRule[] {
  const off = { enabled: false };
  return new ApolloArmor({
    maxDepth: off,
    maxAliases: off,
    maxDirectives: off,
    costLimit: off,
    // parseOptions() does this job: armor's Apollo token plugin throws from a plugin hook, which Apollo 5 answers with HTTP 500.
    maxTokens: off,
    // hideSuggestionsPlugin() does this job: armor's pattern misses enum-value suggestions.
    blockFieldSuggestion: off,
    ...config,
  }).protect().validationRules;
}

/**
 * Depth, aliases and directives, as validation rules: they run with Apollo's
 * own validation, so a rejected document gets HTTP 400 and
 * GRAPHQL_VALIDATION_FAILED, and no resolver (so no platform call) runs.
 */
export function limitValidationRules(limits: QueryLimits): ValidationRule[] {
  const handling = (limit: keyof QueryLimits) => ({ propagateOnRejection: false, onReject: [reportTo(limit, limits[limit])] });
  return armorRules({
    // Fragments are how clients (Relay, federation's _entities) organise a query, not nesting.
    maxDepth: { n: limits.depth, flattenFragments: true, ...handling('depth') },
    maxAliases: { n: limits.aliases, ...handling('aliases') },
    maxDirectives: { n: limits.directives, ...handling('directives') },
  });
}

/**
 * graphql-js counts tokens in its own lexer and aborts the parse at the first
 * token over the limit: a huge document costs at most `tokens` tokens of
 * lexing, is never validated, and gets HTTP 400 with GRAPHQL_PARSE_FAILED.
 */
export function parseOptions(limits: Pick<QueryLimits, 'tokens'>): ParseOptions {
  return { maxTokens: limits.tokens };
}

const TOKEN_LIMIT_MESSAGE = /^Syntax Error: Document contains more tha[nt] \d+ tokens/;

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

/** The Query fields over platform lists, by the list each reads. */
const QUERY_LISTS = { exceptions: exceptionList, documentAcceptances: acceptanceList, linxBatches: linxBatchList };

/**
 * Those whose list may answer without totals (a LinX bare array): `last` without `before` there reads
 * the list to its end. Connections below the root (FinancialAccount.documentAcceptances) read lists
 * that always report totals, so walks are only looked for among Query's fields.
 */
export const WALKING_FIELDS: ReadonlySet<string> = new Set(
  Object.entries(QUERY_LISTS)
    .filter(([, list]) => list.totals !== 'always')
    .map(([field]) => field),
);

type Variables = Record<string, unknown>;

/** A variable's value as sent; an inherited property (`constructor`, …) is not a variable that was sent. */
function variableValue(variables: Variables, name: string): unknown {
  return Object.hasOwn(variables, name) ? variables[name] : undefined;
}

/**
 * The variables as execution sees them: the request's, plus the operation's default values for those
 * it leaves out. Without the defaults, `query($n: Int = 100)` would be priced at the default page size
 * and `$before: String = "…"` would look absent.
 */
export function withDefaults(operation: OperationDefinitionNode, variables: Variables): Variables {
  let effective = variables;
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (definition.defaultValue && !Object.hasOwn(variables, name)) {
      if (effective === variables) effective = { ...variables };
      effective[name] = valueFromASTUntyped(definition.defaultValue);
    }
  }
  return effective;
}

/** An argument's value: undefined when it is not given (or its variable not sent), null when null, else the value or literal. */
export function argumentValue(field: FieldNode, name: string, variables: Variables): unknown {
  const argument = field.arguments?.find((arg) => arg.name.value === name);
  if (!argument) return undefined;
  if (argument.value.kind === Kind.NULL) return null;
  if (argument.value.kind === Kind.VARIABLE) return variableValue(variables, argument.value.name.value);
  return argument.value;
}

/**
 * Walks to the end of a list the operation asks for: fields of WALKING_FIELDS at its root (inline
 * fragments and fragment spreads on Query included) with `last` and without `before`, one per response
 * key, as execution resolves fields of one key once. A root selection is a few nodes per request.
 */
function backwardWalks(operation: OperationDefinitionNode, document: DocumentNode, variables: Variables): number {
  if (operation.operation !== 'query' || WALKING_FIELDS.size === 0) return 0;
  const keys = new Set<string>();
  const seen = new Set<string>();
  const collect = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!WALKING_FIELDS.has(selection.name.value)) continue;
        const last = argumentValue(selection, 'last', variables);
        const before = argumentValue(selection, 'before', variables);
        if (last !== undefined && last !== null && (before === undefined || before === null)) keys.add(selection.alias?.value ?? selection.name.value);
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

export function fragmentNamed(document: DocumentNode, name: string): FragmentDefinitionNode | undefined {
  return document.definitions.find((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === name);
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
function representationCount(operation: OperationDefinitionNode, document: DocumentNode, variables: Variables): number {
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

const VERDICT_CACHE_SIZE = 1_000;

/**
 * What a verdict depends on besides the document: the operation, and its declared variables (only
 * those: a variable name cannot hold the separators, while an undeclared key sent along could). An
 * integer counts by its value (page sizes), a list by its length and an object as one
 * (representations of `_entities`), null and any other value by whether it is given (`before`).
 */
function verdictKey(queryHash: string, operation: OperationDefinitionNode, variables: Variables): string {
  let key = `${queryHash}@${operation.name?.value ?? ''}`;
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (!Object.hasOwn(variables, name)) continue;
    const value = variables[name];
    if (typeof value === 'number' && Number.isInteger(value)) key += `|${name}=${value}`;
    else if (Array.isArray(value)) key += `|${name}#${value.length}`;
    else if (value === null) key += `|${name}~`;
    else if (typeof value === 'object') key += `|${name}#1`;
    else key += `|${name}?`;
  }
  return key;
}

/**
 * armor's cost rule multiplies by `first`/`last` only when they are literals,
 * so `first: $n` and a missing `first` (the default page) would cost one row.
 * The cost is therefore computed once the variables are known, on the
 * document with every connection's effective page size, and still before
 * execution: a rejection makes no platform call.
 *
 * A backward walk (`last` without `before`) over a list that may not report
 * its length reads that list to its end, up to BACKWARD_WALK_RECORDS records
 * and about a hundred platform calls, to serve `last` rows: armor sees the
 * rows served, so each walk adds BACKWARD_WALK_COST to the operation's cost.
 *
 * Federation's `_entities` is bounded the same way, before any platform call:
 * at most `maxRepresentations` representations per request (each may cost a
 * platform call of its own), and each one counts the cost of its selection.
 *
 * Also names the token limit in its parse error, like the other limits.
 */
export function queryLimitsPlugin(limits: QueryLimits, sizes: PageSizes, maxRepresentations: number): ApolloServerPlugin {
  // armor computes the cost of every operation of the document (in document order) and never refuses:
  // the walks are added to the executed operation's cost here, and the limit applied to the sum.
  const costs: number[] = [];
  const costRule = armorRules({
    costLimit: {
      maxCost: Infinity,
      flattenFragments: true,
      propagateOnRejection: false,
      onAccept: [(_context, { n }: { n: number }) => void costs.push(n)],
    },
  });
  const costOf = (schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Variables): number => {
    // validate() and the rule run synchronously, so the shared array cannot be seen by another request.
    costs.length = 0;
    validate(schema, withEffectivePageSizes(schema, document, variables, sizes), costRule);
    const index = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION).indexOf(operation);
    // Should the operation not be found among the document's, the costliest stands for it.
    const cost = index >= 0 ? costs[index]! : Math.max(0, ...costs);
    costs.length = 0;
    return cost;
  };
  const verdictOf = (schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Variables): GraphQLError | null => {
    const walks = backwardWalks(operation, document, variables);
    const cost = costOf(schema, document, operation, variables) + walks * BACKWARD_WALK_COST;
    if (cost <= limits.cost) return null;
    const why = walks === 0 ? '' : ` (of which ${walks} × ${BACKWARD_WALK_COST} for last without before on a list that may not report its length: pass before, or page forwards with first and after)`;
    return new GraphQLError(`Query cost limit of ${limits.cost} exceeded, found ${cost}${why}.`, { extensions: { limit: LIMIT_VARIABLES.cost, max: limits.cost } });
  };
  // The cost depends on the document, the operation and a few facts about its variables (verdictKey),
  // so a verdict is reused for the same query with the same sizes: most requests repeat.
  const verdicts = new Map<string, GraphQLError | null>();
  const remember = (key: string, verdict: GraphQLError | null) => {
    if (verdicts.size >= VERDICT_CACHE_SIZE) verdicts.delete(verdicts.keys().next().value!);
    verdicts.set(key, verdict);
  };
  // The hooks keep no per-request state, so every request shares one listener instead of new closures.
  const listener: GraphQLRequestListener<BaseContext> = {
    async parsingDidStart() {
      return async (error?: Error) => {
        if (error instanceof GraphQLError && TOKEN_LIMIT_MESSAGE.test(error.message)) {
          Object.assign(error.extensions, { limit: LIMIT_VARIABLES.tokens, max: limits.tokens });
        }
      };
    },
    async didResolveOperation({ document, operation, schema, request, queryHash }) {
      if (!operation) return;
      const variables = withDefaults(operation, request.variables ?? {});
      const representations = representationCount(operation, document, variables);
      if (representations > maxRepresentations) {
        throw new GraphQLError(`Query asks _entities for ${representations} representations; at most ${maxRepresentations} are allowed per request`, {
          extensions: { code: ErrorCode.GRAPHQL_VALIDATION_FAILED, http: { status: 400 }, limit: REPRESENTATIONS_LIMIT_VARIABLE, max: maxRepresentations },
        });
      }
      const key = queryHash === undefined ? undefined : verdictKey(queryHash, operation, request.variables ?? {});
      let verdict = key === undefined ? undefined : verdicts.get(key);
      if (verdict === undefined) {
        verdict = verdictOf(schema, document, operation, variables);
        if (key !== undefined) remember(key, verdict);
      }
      if (verdict) {
        throw new GraphQLError(verdict.message, {
          extensions: { ...verdict.extensions, code: ErrorCode.GRAPHQL_VALIDATION_FAILED, http: { status: 400 } },
        });
      }
    },
  };
  return {
    async requestDidStart() {
      return listener;
    },
  };
}

const SUGGESTION = /\s*Did you mean [^?]*\?/g;

/**
 * Without introspection, "Did you mean …" hints would still let a caller
 * rebuild the schema field by field (and enum value by enum value): they are
 * cut from every error message. Runs before formatting and masking.
 */
export function hideSuggestionsPlugin(): ApolloServerPlugin {
  const listener: GraphQLRequestListener<BaseContext> = {
    async didEncounterErrors({ errors }) {
      for (const error of errors) {
        if (error.message.includes('Did you mean')) error.message = error.message.replace(SUGGESTION, '');
      }
    },
  };
  return {
    async requestDidStart() {
      return listener;
    },
  };
}
