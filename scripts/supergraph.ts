import { composeServices, type CompositionResult } from '@apollo/composition';
import { parse, printSchema } from 'graphql';
import { readTypeDefs } from '../src/schema/schema.ts';

/** The name this gateway has as a subgraph of a supergraph. */
export const SUBGRAPH_NAME = 'platform';

type CompositionSuccess = Extract<CompositionResult, { errors?: undefined }>;

/**
 * This subgraph composed on its own: the supergraph a router would run if the
 * platform graph had only this subgraph. Throws with every composition error.
 */
export function composeThisSubgraph(url = 'http://localhost:4000/graphql'): CompositionSuccess {
  const result = composeServices([{ name: SUBGRAPH_NAME, typeDefs: parse(readTypeDefs()), url }]);
  if (result.errors) {
    throw new Error(`This subgraph does not compose:\n${result.errors.map((e) => `  ${String(e.extensions.code)}: ${e.message}`).join('\n')}`);
  }
  return result;
}

/**
 * The schema clients see through a router: federation directives and the
 * `_service`/`_entities` plumbing removed. Client tools that do not understand
 * subgraph SDL (relay-compiler panics on `extend schema @link`) compile against this.
 */
export function apiSchemaSdl(): string {
  return printSchema(composeThisSubgraph().schema.toAPISchema().toGraphQLJSSchema());
}
