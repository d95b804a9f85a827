import { orderOf } from '../../src/connections/index.ts';
import type { FetchPage, PageRequest, PageResult, SortKey } from '../../src/connections/index.ts';

/** A platform list record as the gateway pages it in production: a UUID id and a platform timestamp. */
export interface Item {
  id: string;
  createdAt: string;
}

/** The order production runs when a query gives no orderBy: the platform's default plus the id tiebreak. */
export const DEFAULT_ORDER: SortKey[] = orderOf(undefined, ['createdAt,DESC']);

const BASE = Date.UTC(2026, 7, 1);

/** The platform's timestamp form, yyyy-MM-ddTHH:mm:ss.SSS+0000, `seconds` after a fixed instant. */
function stamp(seconds: number): string {
  return `${new Date(BASE + Math.round(seconds * 1000)).toISOString().slice(0, 23)}+0000`;
}

/** A UUID whose last group spells `n` (any integer), so a failing assertion still says which row. */
function uuid(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

/** Record number `n`, created `seconds` (default n) after the base instant: higher n, newer, earlier in the order. */
export function item(n: number, seconds = n): Item {
  return { id: uuid(n), createdAt: stamp(seconds) };
}

function byDefaultOrder(a: Item, b: Item): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export interface KeyedPlatformOptions {
  pageBase: 0 | 1;
  /** Whether answers carry totalElements (a page envelope) or are bare arrays. */
  totals: boolean;
  /** Largest size served: a larger request gets page N of this size, with hasNext and totalPages, as Spring Data answers. */
  servesAtMost?: number;
}

/**
 * An in-memory platform list in the default order (createdAt DESC, id ASC) that can change before
 * any given call, between the calls of one request as well as between requests. Records every request.
 */
export class KeyedPlatform {
  readonly requests: PageRequest[] = [];
  #items: Item[];
  readonly #options: KeyedPlatformOptions;
  readonly #changes = new Map<number, () => void>();
  #calls = 0;

  constructor(items: Item[], options: KeyedPlatformOptions) {
    this.#items = [...items].sort(byDefaultOrder);
    this.#options = options;
  }

  /** Records 1..count, newest first. */
  static seeded(count: number, options: KeyedPlatformOptions): KeyedPlatform {
    return new KeyedPlatform(
      Array.from({ length: count }, (_, index) => item(index + 1)),
      options,
    );
  }

  /** The list as it is now. */
  get items(): readonly Item[] {
    return this.#items;
  }

  ids(from = 0, to = this.#items.length): string[] {
    return this.#items.slice(from, to).map((row) => row.id);
  }

  position(id: string): number {
    return this.#items.findIndex((row) => row.id === id);
  }

  insert(...items: Item[]): void {
    this.#items = [...this.#items, ...items].sort(byDefaultOrder);
  }

  remove(...ids: string[]): void {
    this.#items = this.#items.filter((row) => !ids.includes(row.id));
  }

  /** Runs `change` just before the upstream call with this index (counting every call made so far from 0). */
  beforeCall(index: number, change: () => void): void {
    this.#changes.set(index, change);
  }

  /** Requests made since the last call, then forgets them. */
  take(): PageRequest[] {
    return this.requests.splice(0);
  }

  readonly fetchPage: FetchPage<Item> = async ({ page, size }) => {
    this.#changes.get(this.#calls)?.();
    this.#changes.delete(this.#calls);
    this.#calls++;
    this.requests.push({ page, size });
    const { pageBase, totals, servesAtMost } = this.#options;
    if (page < pageBase || size < 1) throw new Error(`page ${page} size ${size} is not a page this endpoint has`);
    const served = Math.min(size, servesAtMost ?? size);
    const from = (page - pageBase) * served;
    const items = this.#items.slice(from, from + served).map((row) => ({ ...row }));
    if (!totals) return { items, total: null };
    const totalPages = Math.ceil(this.#items.length / served);
    const result: PageResult<Item> = { items, total: this.#items.length, hasNext: page - pageBase + 1 < totalPages, totalPages };
    return result;
  };
}
