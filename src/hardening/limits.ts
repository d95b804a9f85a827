import type { ApolloServerPlugin, BaseContext, GraphQLRequestListener } from '@apollo/server';
import { GraphQLError, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode, type ParseOptions, type ValidationContext, type ValidationRule } from 'graphql';
import { ErrorCode } from '../errors.ts';
import { armorRules } from './armor-rules.ts';
import { variablesShapeKey, withDefaults, type Variables } from './operation-values.ts';
import { armorCost, BACKWARD_WALK_COST, backwardWalks, representationCount, type PageSizes } from './query-cost.ts';

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

const VERDICT_CACHE_SIZE = 1_000;

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
  const verdictOf = (schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Variables): GraphQLError | null => {
    const representations = representationCount(schema, operation, document, variables);
    if (representations > maxRepresentations) {
      return new GraphQLError(`Query asks _entities for ${representations} representations; at most ${maxRepresentations} are allowed per request`, {
        extensions: { limit: REPRESENTATIONS_LIMIT_VARIABLE, max: maxRepresentations },
      });
    }
    const walks = backwardWalks(schema, operation, document, variables);
    const cost = armorCost(schema, document, operation, variables, sizes) + walks * BACKWARD_WALK_COST;
    if (cost <= limits.cost) return null;
    const why = walks === 0 ? '' : ` (of which ${walks} × ${BACKWARD_WALK_COST} for last without before on a list that may not report its length: pass before, or page forwards with first and after)`;
    return new GraphQLError(`Query cost limit of ${limits.cost} exceeded, found ${cost}${why}.`, { extensions: { limit: LIMIT_VARIABLES.cost, max: limits.cost } });
  };
  // The cost depends on the document, the operation and a few facts about its variables (variablesShapeKey),
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
      // The representations' count and the cost: both read the document and the variables' shape only.
      const key = queryHash === undefined ? undefined : variablesShapeKey(queryHash, operation, request.variables ?? {});
      let verdict = key === undefined ? undefined : verdicts.get(key);
      if (verdict === undefined) {
        verdict = verdictOf(schema, document, operation, withDefaults(operation, request.variables ?? {}));
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
