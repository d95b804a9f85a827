import { readFileSync } from 'node:fs';
import { addResolversToSchema as addSubgraphResolvers, buildSubgraphSchema, type GraphQLResolverMap } from '@apollo/subgraph';
import { mergeResolvers } from '@graphql-tools/merge';
import { addResolversToSchema } from '@graphql-tools/schema';
import { parse, type GraphQLSchema } from 'graphql';
import { AREA_MODULES, checkAreaModules } from './area-modules.ts';
import { SDL_FILES } from './areas.ts';
import { baseResolvers } from './base-resolvers.ts';
import { checkRepresentations } from '../federation/representations.ts';
import { uuidArgument } from '../platform/ids.ts';
import { PROJECT_ROOT } from '../project-root.ts';
import type { Resolvers } from '../generated/graphql.ts';

const SCHEMA_DIR = new URL('schema/', PROJECT_ROOT);

/** The SDL of this subgraph: schema/base.graphql and each area's file, in name order. */
export function readTypeDefs(): string {
  return SDL_FILES.map((file) => readFileSync(new URL(file, SCHEMA_DIR), 'utf8')).join('\n');
}

const resolvers: Resolvers = mergeResolvers([baseResolvers, ...Object.values(AREA_MODULES).map((area) => area.resolvers)]) as Resolvers;

/**
 * A Federation 2 subgraph schema. @apollo/subgraph adds `_service`/`_entities`;
 * @graphql-tools/schema attaches the resolvers and fails start-up when a resolver
 * names a type or field the SDL does not have.
 */
export function buildSchema(): GraphQLSchema {
  const schema = addResolversToSchema({
    schema: buildSubgraphSchema([{ typeDefs: parse(readTypeDefs()) }]),
    resolvers: resolvers as Parameters<typeof addResolversToSchema>[0]['resolvers'],
    updateResolversInPlace: true,
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
  // `_entities` finds `__resolveReference` in the type's extensions, where only
  // @apollo/subgraph records it; graphql-tools stores it elsewhere, and without
  // this every entity would resolve to its bare representation.
  addSubgraphResolvers(schema, referenceResolvers(resolvers));
  // Every entity of this subgraph is keyed by a platform id, which the contract makes a UUID.
  checkRepresentations(schema, uuidArgument);
  checkAreaModules(schema);
  return schema;
}

function referenceResolvers(map: Resolvers): GraphQLResolverMap<unknown> {
  const found: GraphQLResolverMap<unknown> = {};
  for (const [typeName, typeResolvers] of Object.entries(map)) {
    const resolveReference = (typeResolvers as { __resolveReference?: unknown } | undefined)?.__resolveReference;
    if (resolveReference) found[typeName] = { __resolveReference: resolveReference } as GraphQLResolverMap<unknown>[string];
  }
  return found;
}
