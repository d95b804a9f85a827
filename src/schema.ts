import { readFileSync, readdirSync } from 'node:fs';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { mergeResolvers } from '@graphql-tools/merge';
import { addResolversToSchema } from '@graphql-tools/schema';
import { parse, type GraphQLSchema } from 'graphql';
import { acceptanceResolvers } from './acceptances/resolvers.ts';
import { baseResolvers } from './base-resolvers.ts';
import { documentResolvers } from './documents/resolvers.ts';
import { exceptionResolvers } from './exceptions/resolvers.ts';
import { federationResolvers } from './federation/resolvers.ts';
import type { Resolvers } from './generated/graphql.ts';
import { linxResolvers } from './linx/resolvers.ts';

const SCHEMA_DIR = new URL('../schema/', import.meta.url);

/** The SDL of this subgraph: every file of schema/, in name order. */
export function readTypeDefs(): string {
  return readdirSync(SCHEMA_DIR)
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .map((file) => readFileSync(new URL(file, SCHEMA_DIR), 'utf8'))
    .join('\n');
}

export const resolvers: Resolvers = mergeResolvers([
  baseResolvers,
  documentResolvers,
  acceptanceResolvers,
  exceptionResolvers,
  linxResolvers,
  federationResolvers,
]) as Resolvers;

/**
 * A Federation 2 subgraph schema. @apollo/subgraph adds `_service`/`_entities`;
 * @graphql-tools/schema attaches the resolvers and fails start-up when a resolver
 * names a type or field the SDL does not have.
 */
export function buildSchema(): GraphQLSchema {
  const schema = buildSubgraphSchema([{ typeDefs: parse(readTypeDefs()) }]);
  return addResolversToSchema({
    schema,
    resolvers: resolvers as Parameters<typeof addResolversToSchema>[0]['resolvers'],
    updateResolversInPlace: true,
    resolverValidationOptions: { requireResolversToMatchSchema: 'error' },
  });
}
