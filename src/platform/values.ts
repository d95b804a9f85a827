// Translation between the platform's spellings and the schema's enum values.
// Unknown platform values become UNKNOWN so a new upstream value never fails a query.

/** Builds both directions of an enum mapping from `{ GRAPHQL_VALUE: 'platform-value' }`. */
export function enumMapping<G extends string>(toPlatform: Record<G, string>) {
  const fromPlatform = new Map<string, G>();
  for (const [graphql, platform] of Object.entries(toPlatform) as [G, string][]) fromPlatform.set(platform, graphql);
  return {
    toPlatform: (value: G): string => toPlatform[value],
    /** The schema value for a platform value; `fallback` (UNKNOWN) for anything the schema does not know. */
    fromPlatform: <F extends string | null>(value: string | null | undefined, fallback: F): G | F | null =>
      value === null || value === undefined ? null : (fromPlatform.get(value) ?? fallback),
  };
}

/** The identity mapping for enums whose platform spelling equals the schema's. */
export function sameSpelling<G extends string>(values: readonly G[]) {
  return enumMapping(Object.fromEntries(values.map((v) => [v, v])) as unknown as Record<G, string>);
}

/** `CREATED_AT` → `createdAt`: the schema's order fields are the records' field names in SCREAMING_SNAKE_CASE. */
export function fieldName(orderField: string): string {
  return orderField.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Every list's order when no `sort` is sent (the contract's list conventions). */
export const PLATFORM_DEFAULT_SORT: readonly string[] = ['createdAt,DESC'];

/** `orderBy` → repeated `sort=field,DIRECTION`; none → the platform's default order. */
export function sortParams(orderBy: readonly { field: string; direction: string }[] | null | undefined): string[] | undefined {
  if (!orderBy || orderBy.length === 0) return undefined;
  return orderBy.map((order) => `${fieldName(order.field)},${order.direction}`);
}

export const actorTypes = enumMapping({
  EMPLOYEE: 'employee',
  INTERNAL: 'internal',
  OPERATOR_EMPLOYEE: 'operator_employee',
  SERVICE_ACCOUNT: 'service-account',
});
