import type { PageRequest } from './types.ts';

/**
 * The platform's silent page-size cap, in one place: what an answer shows of it, the floor below
 * which no cap is believed for planning, the caps a gateway instance learned (kept for a while,
 * then asked for again), and the page size one request plans with.
 *
 * A platform built on Spring Data serves at most its maximum page size without saying so: asked
 * for `size=40` with a cap of 25, it answers page N of size 25, with `hasNext` and `totalPages`
 * computed from 25 (docs/paging.md).
 */

/** Smallest page size planning ever lowers to, whatever an answer showed (unless the configured maximum is smaller). */
export const PAGE_CAP_FLOOR = 10;

/** How long a learned cap is planned with; after that the next request asks for the configured size again, and learns the cap anew if it still holds. */
export const PAGE_CAP_TTL_MS = 10 * 60_000;

/** The envelope fields that tell a capped page from the list's end. */
export interface CapEvidence {
  hasNext?: boolean | null;
  totalPages?: number | null;
}

/** A cap an answer showed: `exact` when the served size is certain (its rows can be placed), a lower bound otherwise. */
export interface ShownCap {
  size: number;
  exact: boolean;
}

/** Rows page `page` of size `size` holds in a list of `total` rows. */
function rowsOfPage(page: number, size: number, total: number): number {
  return Math.min(size, Math.max(0, total - page * size));
}

/**
 * Whether a platform capping pages at `size` would have answered `page` of it with `served` rows
 * and these envelope fields (Spring Data: totalPages = ceil(total / size), hasNext = page + 1 < totalPages).
 */
function answersAsCapped(size: number, page: number, served: number, total: number, { hasNext, totalPages }: CapEvidence): boolean {
  if (rowsOfPage(page, size, total) !== served) return false;
  if (typeof hasNext === 'boolean' && hasNext !== (page + 1) * size < total) return false;
  return typeof totalPages !== 'number' || totalPages === Math.ceil(total / size);
}

/**
 * The page size the platform really served, when an answer shows it served fewer rows than asked
 * while more exist; null when the answer is an honest page, or when its fields contradict each
 * other (no cap explains them: nothing is learned from such an answer).
 */
export function capShownBy(page: PageRequest, served: number, total: number, evidence: CapEvidence): ShownCap | null {
  if (served >= page.size) return null;
  const { hasNext, totalPages } = evidence;
  // Full pages of the capped size come with hasNext.
  if (hasNext === true && served > 0) return answersAsCapped(served, page.page, served, total, evidence) ? { size: served, exact: true } : null;
  // The capped list's last page: page * size + served === total.
  if (hasNext === false && served > 0 && page.page > 0 && (total - served) % page.page === 0) {
    const size = (total - served) / page.page;
    if (size >= served && size < page.size && (totalPages == null || totalPages === page.page + 1)) return { size, exact: true };
  }
  // More pages than the asked size gives: totalPages = ceil(total / cap), so ceil(total / totalPages) <= cap.
  if (typeof totalPages === 'number' && totalPages > Math.ceil(total / page.size)) {
    const lowest = Math.max(1, Math.ceil(total / totalPages));
    for (let size = lowest; size < page.size; size++) {
      if (answersAsCapped(size, page.page, served, total, evidence)) return { size: lowest, exact: false };
      // Past here every size gives fewer pages than the answer says.
      if (Math.ceil(total / size) < totalPages) break;
    }
  }
  return null;
}

/** The smallest size planning may use under a configured maximum: the floor, or the maximum when it is lower. */
export function pageCapFloor(configured: number): number {
  return Math.min(PAGE_CAP_FLOOR, configured);
}

/** The page size a request plans with: the configured maximum, lowered by a cap it or an earlier request saw, never below the floor. */
export function plannedPageSize(configured: number, cap: number): number {
  return Math.min(configured, Math.max(pageCapFloor(configured), cap));
}

/**
 * The page size one request plans with: the configured maximum (lowered by a cap learned by an
 * earlier request), lowered again by any cap an answer of this request shows, never below the floor.
 * Every call of the request shares it.
 */
export class RequestPageSize {
  readonly #configured: number;
  readonly #onCap: ((size: number) => void) | undefined;
  readonly #onReplan: ((calls: number) => void) | undefined;
  #shown = Infinity;

  constructor(configured: number, onCap?: (size: number) => void, onReplan?: (calls: number) => void) {
    this.#configured = configured;
    this.#onCap = onCap;
    this.#onReplan = onReplan;
  }

  /** The size the request starts with: the first call of a window, and each page of a walk to the list's end. */
  get configured(): number {
    return this.#configured;
  }

  /** The largest size the request may ask for now. */
  get planned(): number {
    return plannedPageSize(this.#configured, this.#shown);
  }

  /** Records the size an answer showed the platform serving (any size: the floor applies to planning only). */
  shown(size: number): void {
    this.#shown = Math.min(this.#shown, size);
    this.#onCap?.(size);
  }

  /**
   * Told of `calls` about to be sent: once an answer of the request showed a cap, they are calls its
   * estimate, made with the page size known before it ran, did not plan, and are reported as such.
   */
  sending(calls: number): void {
    if (this.#shown !== Infinity) this.#onReplan?.(calls);
  }
}

export interface PageCapsOptions {
  /** Milliseconds a learned cap is kept (default PAGE_CAP_TTL_MS). */
  ttlMs?: number;
  /** The clock, in milliseconds (default Date.now). */
  now?: () => number;
}

/**
 * The caps one gateway instance learned, by list. A cap is kept at least at the floor and for
 * `ttlMs` from when it was learned or lowered: a single answer cannot lower the page size of every
 * later request for the life of the process.
 */
export class PageCaps {
  readonly #caps = new Map<string, { size: number; until: number }>();
  readonly #ttlMs: number;
  readonly #now: () => number;
  /** Bumped whenever the caps in force change (learned, lowered, expired). */
  #generation = 0;
  /** The earliest expiry of a cap held; Infinity while none is. */
  #nextExpiry = Infinity;

  constructor(options: PageCapsOptions = {}) {
    this.#ttlMs = options.ttlMs ?? PAGE_CAP_TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  /** The cap in force for `list`; undefined while none was learned or once it expired. */
  get(list: string): number | undefined {
    const cap = this.#caps.get(list);
    if (cap === undefined) return undefined;
    if (cap.until > this.#now()) return cap.size;
    this.#caps.delete(list);
    this.#generation++;
    return undefined;
  }

  /**
   * A number that changes whenever the caps in force do, so what was computed from them (the
   * calls budget's remembered estimates) can be told stale. Reads the clock only while a cap is held.
   */
  get generation(): number {
    if (this.#nextExpiry !== Infinity && this.#now() >= this.#nextExpiry) {
      this.#nextExpiry = Infinity;
      for (const list of [...this.#caps.keys()]) {
        const cap = this.#caps.get(list)!;
        if (this.get(list) !== undefined) this.#nextExpiry = Math.min(this.#nextExpiry, cap.until);
      }
    }
    return this.#generation;
  }

  /** The page size requests of `list` start with: the configured maximum, or the cap in force when lower. */
  sizeFor(list: string, configured: number): number {
    return Math.min(configured, this.get(list) ?? Infinity);
  }

  /** Records a cap (raised to the floor); true when it is news: none in force, or lower than the one in force. */
  learn(list: string, size: number): boolean {
    const floored = Math.max(PAGE_CAP_FLOOR, size);
    const known = this.get(list);
    if (known !== undefined && known <= floored) return false;
    const until = this.#now() + this.#ttlMs;
    this.#caps.set(list, { size: floored, until });
    this.#nextExpiry = Math.min(this.#nextExpiry, until);
    this.#generation++;
    return true;
  }

  /** The caps in force, by list. */
  all(): ReadonlyMap<string, number> {
    const caps = new Map<string, number>();
    for (const list of [...this.#caps.keys()]) {
      const size = this.get(list);
      if (size !== undefined) caps.set(list, size);
    }
    return caps;
  }
}
