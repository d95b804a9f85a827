import { DEFAULT_SORT, withTiebreak } from '../data/collection.ts';
import type { SortKey } from '../data/collection.ts';
import { UUID_PATTERN } from '../data/random.ts';

/** One violation in a shape-B error body. */
export interface FieldError { readonly path: string; readonly message: string; readonly errorCode: string }

export const MAX_PAGE_SIZE = 1000;
const DEFAULT_PAGE_SIZE = 20;
const INT32_MAX = 2_147_483_647;
const INTEGER_PATTERN = /^[+-]?\d+$/;

export interface Paging {
  /** The page as requested, in the endpoint's own base (echoed as `number`). */
  readonly page: number;
  /** Zero-based index of the page. */
  readonly index: number;
  readonly size: number;
}

/**
 * Reads and validates query parameters, collecting every violation so that
 * one 400 answer lists them all.
 */
export class QueryReader {
  readonly params: URLSearchParams;
  readonly errors: FieldError[] = [];

  constructor(params: URLSearchParams) {
    this.params = params;
  }

  fail(path: string, message: string, errorCode: string): undefined {
    this.errors.push({ path, message, errorCode });
    return undefined;
  }

  /** A single-valued parameter; repeating it is an error. */
  single(name: string): string | undefined {
    const values = this.params.getAll(name);
    if (values.length > 1) return this.fail(name, 'must be given once', 'REPEATED');
    return values[0];
  }

  /** A multi-valued parameter: repeated and/or comma-separated. */
  list(name: string): string[] {
    const out: string[] = [];
    for (const value of this.params.getAll(name)) {
      for (const part of value.split(',')) if (part !== '') out.push(part);
    }
    return out;
  }

  uuid(name: string, required: boolean): string | undefined {
    const value = this.single(name);
    if (value === undefined || value === '') {
      return required ? this.fail(name, 'is required', 'REQUIRED') : undefined;
    }
    if (!UUID_PATTERN.test(value)) return this.fail(name, 'must be a UUID', 'INVALID_FORMAT');
    return value.toLowerCase();
  }

  enumValue<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const value = this.single(name);
    if (value === undefined || value === '') return undefined;
    return this.checkEnum(name, value, allowed);
  }

  enumList<T extends string>(name: string, allowed: readonly T[]): T[] {
    const out: T[] = [];
    for (const value of this.list(name)) {
      const checked = this.checkEnum(name, value, allowed);
      if (checked !== undefined) out.push(checked);
    }
    return out;
  }

  checkEnum<T extends string>(name: string, value: string, allowed: readonly T[]): T | undefined {
    if ((allowed as readonly string[]).includes(value)) return value as T;
    return this.fail(name, `must be one of ${allowed.join(', ')}`, 'INVALID_VALUE');
  }

  #integer(name: string, fallback: number, min: number, max: number): number {
    const text = this.single(name);
    if (text === undefined) return fallback;
    if (!INTEGER_PATTERN.test(text) || Math.abs(Number(text)) > INT32_MAX) {
      this.fail(name, 'must be a 32-bit integer', 'INVALID_FORMAT');
      return fallback;
    }
    const value = Number(text);
    if (value < min || value > max) {
      this.fail(name, max === INT32_MAX ? `must be at least ${min}` : `must be between ${min} and ${max}`, 'OUT_OF_RANGE');
      return fallback;
    }
    return value;
  }

  /**
   * `base` is 0 for zero-based endpoints and 1 for one-based ones (also their default page).
   * A size above `servedMax` is served at `servedMax` without a word, as Spring Data does with its
   * maximum page size: the page index stays, so page N is page N of the smaller size.
   */
  paging(base: 0 | 1, servedMax = MAX_PAGE_SIZE): Paging {
    const page = this.#integer('page', base, base, INT32_MAX);
    const size = this.#integer('size', DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE);
    return { page, index: page - base, size: Math.min(size, servedMax) };
  }

  /**
   * `sort=field[,ASC|DESC]`, repeatable; field may be a dotted path and must be
   * one of `fields`. The result always ends with the id tiebreak.
   */
  sort(fields: ReadonlySet<string>): readonly SortKey[] {
    const values = this.params.getAll('sort');
    if (values.length === 0) return withTiebreak(DEFAULT_SORT);
    const keys: SortKey[] = [];
    for (const value of values) {
      const parts = value.split(',');
      const path = parts[0] ?? '';
      const direction = parts.length === 2 ? (parts[1] as string).toUpperCase() : parts.length === 1 ? 'ASC' : '';
      if (direction !== 'ASC' && direction !== 'DESC') {
        this.fail('sort', `"${value}" must be field or field,ASC|DESC`, 'INVALID_FORMAT');
      } else if (!fields.has(path)) {
        this.fail('sort', `unknown sort field "${path}"`, 'UNKNOWN_FIELD');
      } else {
        keys.push({ path, descending: direction === 'DESC' });
      }
    }
    return withTiebreak(keys);
  }
}

/** The page envelope, assembled from each record's cached JSON. */
export function renderEnvelope<T>(matched: readonly T[], paging: Paging, json: (record: T) => string): string {
  const total = matched.length;
  const totalPages = Math.ceil(total / paging.size);
  const content = pageSlice(matched, paging);
  return `{"totalElements":${total},"totalPages":${totalPages},"number":${paging.page},"numberOfElements":${content.length},"hasNext":${paging.index + 1 < totalPages},"content":[${content.map(json).join(',')}]}`;
}

/** Just the page's records, as a bare JSON array. */
export function renderArray<T>(matched: readonly T[], paging: Paging, json: (record: T) => string): string {
  return `[${pageSlice(matched, paging).map(json).join(',')}]`;
}

function pageSlice<T>(matched: readonly T[], paging: Paging): readonly T[] {
  const start = paging.index * paging.size;
  return start >= matched.length ? [] : matched.slice(start, start + paging.size);
}
