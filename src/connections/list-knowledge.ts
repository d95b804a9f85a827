import { capShownBy, type RequestPageSize } from './page-cap.ts';
import type { FetchPage, PageRequest, PageResult } from './types.ts';

/**
 * What the upstream calls of one paging request revealed about the list, by absolute position.
 *
 * Pages are contiguous slices of one ordered list, so a record at position p proves that positions
 * 0..p hold records, and a page that came back short proves that nothing exists from where it
 * stopped. pageInfo is derived from this evidence first and from the reported total second, so a
 * list that shrank between calls yields what exists rather than what the total promised.
 */
export class ListKnowledge<T> {
  readonly #fetchPage: FetchPage<T>;
  readonly #pageBase: 0 | 1;
  readonly #items = new Map<number, T>();
  #lastPresent = -1;
  #firstAbsent = Infinity;
  #total: number | null = null;
  readonly #pageSize: RequestPageSize;

  /** `pageSize` is told every cap an answer shows: it is shared by every call of the request. */
  constructor(fetchPage: FetchPage<T>, pageBase: 0 | 1, pageSize: RequestPageSize) {
    this.#fetchPage = fetchPage;
    this.#pageBase = pageBase;
    this.#pageSize = pageSize;
  }

  /** totalElements of the latest response that reported one; null while none did. */
  get total(): number | null {
    return this.#total;
  }

  /** Lowest position a short page proved empty; Infinity while no page came back short. */
  get firstAbsent(): number {
    return this.#firstAbsent;
  }

  /**
   * Fetches zero-based pages, all at once: each is one upstream call and none depends on another.
   * `priced` when they are the rest of the plan the request's estimate counted (see RequestPageSize.sending).
   */
  async fetch(pages: readonly PageRequest[], priced = false): Promise<void> {
    if (!priced) this.#pageSize.sending(pages.length);
    const results = await Promise.all(
      pages.map((page) => this.#fetchPage({ page: page.page + this.#pageBase, size: page.size })),
    );
    // In request order, so the total kept is the one of the last page asked for.
    pages.forEach((page, index) => this.#learn(page, results[index]));
  }

  #learn(page: PageRequest, result: PageResult<T> | undefined): void {
    if (!Array.isArray(result?.items)) throw new TypeError('fetchPage must resolve to { items: T[], total: number | null }');
    // Rows past the requested size belong to other positions; trusting them would misplace records.
    const items = result.items.slice(0, page.size);
    const total = typeof result.total === 'number' && Number.isSafeInteger(result.total) && result.total >= 0 ? result.total : null;
    if (total !== null) this.#total = total;
    const cap = total === null ? null : capShownBy(page, items.length, total, result);
    if (cap !== null) {
      this.#pageSize.shown(cap.size);
      // The platform served page N of the capped size: its rows sit there, and a short page proves
      // nothing about the list's end unless it is the last page of that size.
      if (!cap.exact) return;
      this.#place(page.page * cap.size, items, cap.size);
      return;
    }
    this.#place(page.page * page.size, items, page.size);
  }

  #place(from: number, items: readonly T[], size: number): void {
    items.forEach((item, index) => this.#items.set(from + index, item));
    if (items.length > 0) this.#lastPresent = Math.max(this.#lastPresent, from + items.length - 1);
    if (items.length < size) this.#firstAbsent = Math.min(this.#firstAbsent, from + items.length);
  }

  /**
   * Takes the rows `other` saw at positions [from, to), moved by `shift` positions: rows of a later
   * response joined to this one where the two agree on a record, when the list shifted between the calls.
   */
  adopt(other: ListKnowledge<T>, { from, to = Infinity, shift }: { from: number; to?: number; shift: number }): void {
    for (const [position, item] of other.#items) {
      if (position < from || position >= to) continue;
      this.#items.set(position + shift, item);
      this.#lastPresent = Math.max(this.#lastPresent, position + shift);
    }
    if (other.#firstAbsent !== Infinity) this.#firstAbsent = Math.min(this.#firstAbsent, other.#firstAbsent + shift);
    if (other.#total !== null) this.#total = other.#total;
  }

  /**
   * Fetches a plan of pages without reading past the list's end: its first page alone, then, all at
   * once, those of the others that start before the end the first one showed (a total, or a short page).
   */
  fetchUpToEnd(pages: readonly PageRequest[]): Promise<void> {
    // A plan of one page, most of them, costs no layer more than fetch.
    return pages.length <= 1 ? this.fetch(pages) : this.#fetchFirstThenRest(pages);
  }

  async #fetchFirstThenRest(pages: readonly PageRequest[]): Promise<void> {
    await this.fetch(pages.slice(0, 1));
    const end = this.clampToEnd(Infinity);
    await this.fetch(end === Infinity ? pages.slice(1) : pages.slice(1).filter((page) => page.page * page.size < end), true);
  }

  /** `position`, or where the list is known to end when that comes first: a short page's end, or the reported total. */
  clampToEnd(position: number): number {
    return Math.min(position, this.#firstAbsent, this.#total ?? Infinity);
  }

  /** The record seen at `position`, if any. */
  at(position: number): T | undefined {
    return this.#items.get(position);
  }

  /** Where the record with this id was seen; null when it was not. */
  positionOf(id: string, idOf: (record: T) => string): number | null {
    for (const [position, item] of this.#items) if (idOf(item) === id) return position;
    return null;
  }

  /** The seen positions around `position` with no gap: [from, to), empty when `position` was not seen. */
  runAround(position: number): { from: number; to: number } {
    if (!this.#items.has(position)) return { from: position, to: position };
    let from = position;
    while (this.#items.has(from - 1)) from--;
    let to = position + 1;
    while (this.#items.has(to)) to++;
    return { from, to };
  }

  /** Every record seen, in no particular order. */
  records(): IterableIterator<T> {
    return this.#items.values();
  }

  /** The highest position seen; -1 when nothing was. */
  lastSeen(): number {
    return this.#lastPresent;
  }

  /** The lowest position seen; null when nothing was. */
  firstSeen(): number | null {
    let lowest: number | null = null;
    for (const position of this.#items.keys()) if (lowest === null || position < lowest) lowest = position;
    return lowest;
  }

  /** The records seen at start, start + 1, ... up to end, stopping at the first position not seen. */
  run(start: number, end: number): T[] {
    const found: T[] = [];
    for (let position = start; position < end && this.#items.has(position); position++) {
      found.push(this.#items.get(position) as T);
    }
    return found;
  }

  covers(start: number, end: number): boolean {
    return this.run(start, end).length === end - start;
  }

  /** Drops records before `position`, so walking a long list keeps only the tail it may return. */
  forgetBefore(position: number): void {
    for (const key of this.#items.keys()) {
      if (key < position) this.#items.delete(key);
    }
  }

  /** Whether any record exists at `position` or after it; null when nothing seen so far tells. */
  existsFrom(position: number): boolean | null {
    if (this.#lastPresent >= position) return true;
    if (this.#firstAbsent <= position) return false;
    if (this.#total !== null) return position < this.#total;
    return null;
  }

  /** existsFrom, asking the platform for the single row at `position` when the evidence does not tell. */
  async settleExistsFrom(position: number): Promise<boolean> {
    const known = this.existsFrom(position);
    if (known !== null) return known;
    await this.fetch([{ page: position, size: 1 }]);
    return this.existsFrom(position) ?? false;
  }
}
