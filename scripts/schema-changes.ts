import { existsSync, readFileSync } from 'node:fs';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { CriticalityLevel, diff, type Change } from '@graphql-inspector/core';
import { buildSchema, parse, print, visit, type ASTNode, type GraphQLSchema } from 'graphql';
import { readTypeDefs } from '../src/schema/schema.ts';
import { apiSchemaSdl } from './supergraph.ts';

// The schema a client sees, and the subgraph SDL a router composes, are kept as
// committed snapshots. A change to either shows up in review as a diff of the
// snapshot, and `npm test` fails until the snapshot is updated in the same
// commit: a breaking change cannot reach a client unnoticed.

export interface SchemaSnapshot {
  /** What the snapshot is, for messages. */
  name: string;
  /** The committed file, relative to the repository root. */
  file: string;
  /** The SDL as the code defines it now. */
  current(): string;
  /** Builds a schema from this kind of SDL, so two versions can be compared. */
  build(sdl: string): GraphQLSchema;
}

export const SNAPSHOTS: readonly SchemaSnapshot[] = [
  {
    name: 'API schema (what clients see through a router)',
    file: 'schema-snapshots/api.graphql',
    current: apiSchemaSdl,
    build: (sdl) => buildSchema(sdl),
  },
  {
    name: 'subgraph SDL (what a router composes)',
    file: 'schema-snapshots/subgraph.graphql',
    // schema/*.graphql as one document, printed so that layout alone is no change. Without
    // descriptions: the API schema's snapshot records those; this one adds the federation
    // directives (@key, @shareable, @link, …) the API schema does not show.
    current: () => print(withoutDescriptions(parse(readTypeDefs()))),
    build: (sdl) => buildSubgraphSchema(parse(sdl)),
  },
];

function withoutDescriptions<T extends ASTNode>(node: T): T {
  return visit(node, {
    enter(current) {
      if ('description' in current && current.description) return { ...current, description: undefined };
      return undefined;
    },
  });
}

export const ROOT = new URL('../', import.meta.url);

/** The committed snapshot; undefined before the first one is accepted. */
export function committed(snapshot: SchemaSnapshot): string | undefined {
  const file = new URL(snapshot.file, ROOT);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

export interface Comparison {
  /** True when the current SDL equals the snapshot character for character. */
  current: boolean;
  /** What changed for a client, each with its criticality; empty when only formatting or order moved. */
  changes: Change[];
}

export async function compare(snapshot: SchemaSnapshot, before: string | undefined, after: string): Promise<Comparison> {
  if (before === after) return { current: true, changes: [] };
  return { current: false, changes: await diff(before === undefined ? null : snapshot.build(before), snapshot.build(after)) };
}

export function breaking(changes: readonly Change[]): Change[] {
  return changes.filter((change) => change.criticality.level === CriticalityLevel.Breaking);
}

/** One line per change, breaking ones first: `BREAKING  Field 'x' was removed from object type 'Y'`. */
export function describeChanges(changes: readonly Change[]): string[] {
  const order = [CriticalityLevel.Breaking, CriticalityLevel.Dangerous, CriticalityLevel.NonBreaking];
  return [...changes]
    .sort((a, b) => order.indexOf(a.criticality.level) - order.indexOf(b.criticality.level))
    .map((change) => `${change.criticality.level.padEnd(12)} ${change.message}`);
}
