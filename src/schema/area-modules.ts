import { isUnionType, Kind, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { acceptanceList } from '../acceptances/api.ts';
import { acceptanceResolvers } from '../acceptances/resolvers.ts';
import type { AreaName } from './areas.ts';
import type { ListDescriptor } from '../connections/index.ts';
import { documentResolvers } from '../documents/resolvers.ts';
import { exceptionList } from '../exceptions/api.ts';
import { exceptionResolvers } from '../exceptions/resolvers.ts';
import { federationResolvers } from '../federation/resolvers.ts';
import type { Resolvers } from '../generated/graphql.ts';
import { linxBatchList } from '../linx/api.ts';
import { linxResolvers } from '../linx/resolvers.ts';

/** What an area's code brings to the schema, the query limits and the calls budget. */
export interface AreaModule {
  /** Its resolver map, merged into the schema's. */
  resolvers: Resolvers;
  /**
   * Its Query fields that read a platform list (in its SDL with `@listSize`), by the list each reads.
   * The list's `totals` says how `last` without `before` walks it: a list that may answer without its
   * length is read to its end, which the query cost and the calls budget price. The schema builder
   * refuses to start when a Query field with `@listSize` is in no area's `queryLists`.
   */
  queryLists?: Readonly<Record<string, ListDescriptor<unknown>>>;
  /** Platform calls to resolve one federation representation, by entity type (`_entities`). */
  entityCalls?: Readonly<Record<string, number>>;
}

/** The code of each area of AREAS (src/schema/areas.ts), by name; an area without its entry does not compile. */
export const AREA_MODULES: Readonly<Record<AreaName, AreaModule>> = {
  acceptances: { resolvers: acceptanceResolvers, queryLists: { documentAcceptances: acceptanceList }, entityCalls: { FinancialAccount: 0 } },
  documents: { resolvers: documentResolvers, entityCalls: { Document: 1 } },
  exceptions: { resolvers: exceptionResolvers, queryLists: { exceptions: exceptionList } },
  federation: { resolvers: federationResolvers },
  linx: { resolvers: linxResolvers, queryLists: { linxBatches: linxBatchList } },
};

const modules = Object.values(AREA_MODULES);

/** Every area's Query fields over a platform list, by the list each reads. */
const QUERY_LISTS: ReadonlyMap<string, ListDescriptor<unknown>> = new Map(modules.flatMap((module) => Object.entries(module.queryLists ?? {})));

/**
 * Those whose list may answer without its length (a LinX bare array): `last` without `before` there
 * reads the list to its end. Connections below the root (FinancialAccount.documentAcceptances) read
 * lists that always report totals, so walks are only looked for among Query's fields.
 */
export const WALKING_FIELDS: ReadonlySet<string> = new Set([...QUERY_LISTS].filter(([, list]) => list.totals !== 'always').map(([field]) => field));

/** Platform calls to resolve one representation of each entity type this subgraph resolves. */
export const ENTITY_CALLS: ReadonlyMap<string, number> = new Map(modules.flatMap((module) => Object.entries(module.entityCalls ?? {})));

/** Whether another subgraph may send representations of the type here: one of its keys is not `resolvable: false`. */
function resolvableHere(type: GraphQLObjectType): boolean {
  const keys = [type.astNode, ...type.extensionASTNodes].flatMap((node) => node?.directives?.filter((directive) => directive.name.value === 'key') ?? []);
  return keys.some((key) => {
    const resolvable = key.arguments?.find((argument) => argument.name.value === 'resolvable')?.value;
    return !(resolvable?.kind === Kind.BOOLEAN && !resolvable.value);
  });
}

/**
 * Refuses a schema the areas' code does not match, so the gap shows at start-up: a Query field with
 * `@listSize` in no area's `queryLists` would leave its backward walks unpriced, an entity type this
 * subgraph resolves without its `entityCalls` would be priced as one fetch whatever it costs, and an
 * entry naming a field or type the schema lacks is a leftover.
 */
export function checkAreaModules(schema: GraphQLSchema): void {
  const missing: string[] = [];
  const listFields = new Set<string>();
  for (const field of Object.values(schema.getQueryType()?.getFields() ?? {})) {
    if (field.astNode?.directives?.some((directive) => directive.name.value === 'listSize')) listFields.add(field.name);
  }
  for (const field of listFields) if (!QUERY_LISTS.has(field)) missing.push(`Query.${field} has @listSize but is in no area's queryLists`);
  for (const field of QUERY_LISTS.keys()) if (!listFields.has(field)) missing.push(`queryLists names ${field}, which is not a Query field with @listSize`);
  const entity = schema.getType('_Entity');
  const entities = new Set((isUnionType(entity) ? entity.getTypes() : []).filter(resolvableHere).map((type) => type.name));
  for (const type of entities) if (!ENTITY_CALLS.has(type)) missing.push(`entity ${type} is in no area's entityCalls`);
  for (const type of ENTITY_CALLS.keys()) if (!entities.has(type)) missing.push(`entityCalls names ${type}, which is not an entity this subgraph resolves`);
  if (missing.length > 0) throw new Error(`The areas' code (src/schema/area-modules.ts) does not match the schema: ${missing.join('; ')}`);
}
