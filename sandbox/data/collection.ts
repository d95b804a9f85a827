/**
 * An immutable, listable set of records of one Business Account, with the
 * sort orders the list endpoints ask for computed once and reused, and each
 * record's JSON serialized once: a list request only filters and slices.
 * Immutability is by type (readonly) only: Object.freeze makes V8's property
 * access several times slower, and filtering is the hot path.
 */

export interface SortKey { readonly path: string; readonly descending: boolean }

export const DEFAULT_SORT: readonly SortKey[] = [{ path: 'createdAt', descending: true }];
/** Appended to every sort so that equal keys still page deterministically. */
const TIEBREAK: SortKey = { path: 'id', descending: false };

type Getter = (record: unknown) => unknown;

function getterFor(path: string): Getter {
  const segments = path.split('.');
  if (segments.length === 1) return (record) => (record as Record<string, unknown>)[path];
  return (record) => {
    let value: unknown = record;
    for (const segment of segments) {
      if (value === null || typeof value !== 'object') return undefined;
      value = (value as Record<string, unknown>)[segment];
    }
    return value;
  };
}

/**
 * Null (or absent) sorts after every value, so nulls come last in ASC and
 * first in DESC (DESC is ASC reversed, as in PostgreSQL's default).
 * Strings compare by code point, which for the sandbox's timestamps (all in
 * one format and offset) is also chronological order.
 */
function compareValues(a: unknown, b: unknown): number {
  if (a === undefined || a === null) return b === undefined || b === null ? 0 : 1;
  if (b === undefined || b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const left = String(a);
  const right = String(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

function comparatorFor(keys: readonly SortKey[]): (a: unknown, b: unknown) => number {
  const compiled = keys.map((key) => ({ get: getterFor(key.path), sign: key.descending ? -1 : 1 }));
  return (a, b) => {
    for (const { get, sign } of compiled) {
      const c = compareValues(get(a), get(b));
      if (c !== 0) return sign * c;
    }
    return 0;
  };
}

/** The sort keys as requested, plus the id tiebreak unless id is already a key. */
export function withTiebreak(keys: readonly SortKey[]): readonly SortKey[] {
  return keys.some((key) => key.path === TIEBREAK.path) ? keys : [...keys, TIEBREAK];
}

function sortCacheKey(keys: readonly SortKey[]): string {
  return keys.map((key) => `${key.path}:${key.descending ? 'D' : 'A'}`).join(',');
}

/** Every path that reaches a scalar in at least one record: the fields one may sort by. */
function leafPaths(records: readonly object[]): Set<string> {
  const paths = new Set<string>();
  const walk = (value: Record<string, unknown>, prefix: string): void => {
    for (const key in value) {
      const child = value[key];
      if (child !== null && typeof child === 'object') walk(child as Record<string, unknown>, `${prefix}${key}.`);
      else paths.add(prefix + key);
    }
  };
  for (const record of records) walk(record as Record<string, unknown>, '');
  return paths;
}

// Sort specs are chosen by callers; the cache is bounded so that a client
// cycling through sort combinations cannot grow it without limit.
const SORT_CACHE_LIMIT = 64;

export class Collection<T extends { readonly id: string }> {
  /** In the default order: createdAt DESC, then id ASC. */
  readonly records: readonly T[];
  readonly fields: ReadonlySet<string>;
  readonly #sorted = new Map<string, readonly T[]>();
  readonly #json = new WeakMap<T, string>();

  constructor(records: readonly T[]) {
    const keys = withTiebreak(DEFAULT_SORT);
    this.records = [...records].sort(comparatorFor(keys));
    this.fields = leafPaths(this.records);
    this.#sorted.set(sortCacheKey(keys), this.records);
  }

  /** The records in the given order; `keys` should already end with the tiebreak. */
  sorted(keys: readonly SortKey[]): readonly T[] {
    const cacheKey = sortCacheKey(keys);
    let sorted = this.#sorted.get(cacheKey);
    if (sorted === undefined) {
      sorted = [...this.records].sort(comparatorFor(keys));
      if (this.#sorted.size >= SORT_CACHE_LIMIT) this.#sorted.clear();
      this.#sorted.set(cacheKey, sorted);
    }
    return sorted;
  }

  json(record: T): string {
    let text = this.#json.get(record);
    if (text === undefined) {
      text = JSON.stringify(record);
      this.#json.set(record, text);
    }
    return text;
  }
}
