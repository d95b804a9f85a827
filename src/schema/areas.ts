/**
 * The areas of the schema, one line each: the only list of them. An area named `<name>` is
 * - its folder, src/<name>/ (its code: resolvers, and for a platform area the calls and records);
 * - its SDL, schema/<name>.graphql, which the schema builder reads beside schema/base.graphql;
 * - for an area that calls the platform, its breaker key: its routes are named `<name>.<call>`
 *   (`linx.batches`), so they share one breaker and one bound on calls in flight, and the settings
 *   docs name the key;
 * - its code's entry in AREA_MODULES (src/schema/area-modules.ts), which the compiler asks for.
 * This file imports nothing, so the settings registry can read it. docs/areas.md has the steps to add one.
 */
export const AREAS = [
  { name: 'acceptances', callsPlatform: true },
  { name: 'documents', callsPlatform: true },
  { name: 'exceptions', callsPlatform: true },
  { name: 'federation', callsPlatform: false },
  { name: 'linx', callsPlatform: true },
] as const satisfies readonly { name: string; callsPlatform: boolean }[];

export type AreaName = (typeof AREAS)[number]['name'];

/** The breaker keys of the platform's routes: one per area that calls the platform. */
export const BREAKER_KEYS: readonly string[] = AREAS.filter((area) => area.callsPlatform).map((area) => area.name);

/** The SDL files of the schema, in the order they are joined: base.graphql and each area's, by name. */
export const SDL_FILES: readonly string[] = ['base', ...AREAS.map((area) => area.name)].sort().map((name) => `${name}.graphql`);
