import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { LIST_ROUTES } from '../sandbox/api/list-routes.ts';
import { AREA_MODULES, checkAreaModules, ENTITY_CALLS, WALKING_FIELDS } from '../src/schema/area-modules.ts';
import { AREAS, BREAKER_KEYS, SDL_FILES } from '../src/schema/areas.ts';
import { readTypeDefs } from '../src/schema/schema.ts';

const SRC = new URL('../src/', import.meta.url);
const SCHEMA = new URL('../schema/', import.meta.url);
const names = AREAS.map((area) => area.name);

/** The route names an area's code passes to the platform client: `route: 'x.y'` and `.get('x.y'` / `.put('x.y'`. */
function routeNames(area: string): string[] {
  const folder = new URL(`${area}/`, SRC);
  const found: string[] = [];
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.ts'))) {
    const text = readFileSync(new URL(file, folder), 'utf8');
    for (const match of text.matchAll(/(?:route: |\.(?:get|put)\()'([^']+)'/g)) found.push(match[1]!);
  }
  return found;
}

describe('the list of areas (src/schema/areas.ts)', () => {
  it('has a line for every folder of src/ with resolvers, and a folder with resolvers for every line', () => {
    const withResolvers = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(new URL(`${entry.name}/resolvers.ts`, SRC)))
      .map((entry) => entry.name)
      .sort();
    expect(withResolvers).toEqual([...names].sort());
  });

  it('has a line for every SDL file of schema/ but base.graphql, and an SDL file for every line', () => {
    const files = readdirSync(SCHEMA).filter((file) => file.endsWith('.graphql')).sort();
    expect(files).toEqual(['base.graphql', ...names.map((name) => `${name}.graphql`)].sort());
    expect(SDL_FILES).toEqual(files);
  });

  it("gives the schema builder base.graphql and every area's SDL file, in name order", () => {
    const joined = SDL_FILES.map((file) => readFileSync(new URL(file, SCHEMA), 'utf8')).join('\n');
    expect(readTypeDefs()).toBe(joined);
    expect(SDL_FILES).toEqual(['acceptances.graphql', 'base.graphql', 'documents.graphql', 'exceptions.graphql', 'federation.graphql', 'linx.graphql']);
  });

  it("names each area's platform routes after the area, which is their breaker key", () => {
    for (const area of AREAS) {
      const routes = routeNames(area.name);
      if (area.callsPlatform) {
        expect(routes.length).toBeGreaterThan(0);
        for (const route of routes) expect(route.split('.')[0]).toBe(area.name);
      } else {
        expect(routes).toEqual([]);
      }
    }
    expect(BREAKER_KEYS).toEqual(['acceptances', 'documents', 'exceptions', 'linx']);
  });

  it('has a sandbox list endpoint for every area that lists, named after it', () => {
    const listing = Object.entries(AREA_MODULES).filter(([, module]) => module.queryLists !== undefined).map(([name]) => name);
    expect(LIST_ROUTES.map((route) => route.route).sort()).toEqual(listing.sort());
  });

  it('derives the backward walks and the entity calls from the areas', () => {
    expect([...WALKING_FIELDS]).toEqual(['linxBatches']);
    expect(Object.fromEntries(ENTITY_CALLS)).toEqual({ FinancialAccount: 0, Document: 1 });
  });
});

describe("the areas' code (src/schema/area-modules.ts)", () => {
  const schemaWith = (extra: string) => buildSubgraphSchema([{ typeDefs: parse(`${readTypeDefs()}\n${extra}`) }]);

  it('matches the schema', () => {
    expect(() => checkAreaModules(schemaWith(''))).not.toThrow();
  });

  it('refuses a Query field with @listSize that no area lists, which would leave its walks unpriced', () => {
    const extra = 'extend type Query { moreBatches(first: Int, last: Int, before: String): LinxBatchConnection @listSize(slicingArguments: ["first", "last"], assumedSize: 20) }';
    expect(() => checkAreaModules(schemaWith(extra))).toThrow(
      "The areas' code (src/schema/area-modules.ts) does not match the schema: Query.moreBatches has @listSize but is in no area's queryLists",
    );
  });

  it('refuses an entity this subgraph resolves that no area prices', () => {
    expect(() => checkAreaModules(schemaWith('type Invoice @key(fields: "id") { id: ID! }'))).toThrow(
      "The areas' code (src/schema/area-modules.ts) does not match the schema: entity Invoice is in no area's entityCalls",
    );
  });

  it('refuses an entry naming a list field the schema lacks', () => {
    const withoutLinx = SDL_FILES.filter((file) => file !== 'linx.graphql').map((file) => readFileSync(new URL(file, SCHEMA), 'utf8')).join('\n');
    expect(() => checkAreaModules(buildSubgraphSchema([{ typeDefs: parse(withoutLinx) }]))).toThrow(
      "The areas' code (src/schema/area-modules.ts) does not match the schema: queryLists names linxBatches, which is not a Query field with @listSize",
    );
  });

  it('leaves entities other subgraphs resolve to them', () => {
    expect(() => checkAreaModules(schemaWith('type Invoice @key(fields: "id", resolvable: false) { id: ID! }'))).not.toThrow();
  });
});
