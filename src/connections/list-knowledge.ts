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

  constructor(fetchPage: FetchPage<T>, pageBase: 0 | 1) {
    this.#fetchPage = fetchPage;
    this.#pageBase = pageBase;
  }

  /** totalElements of the latest response that reported one; null while none did. */
  get total(): number | null {
    return this.#total;
  }

  /** Lowest position a short page proved empty; Infinity while no page came back short. */
  get firstAbsent(): number {
    return this.#firstAbsent;
  }

  /** Fetches zero-based pages, all at once: each is one upstream call and none depends on another. */
  async fetch(pages: readonly PageRequest[]): Promise<void> {
    const results = await Promise.all(
      pages.map((page) => this.#fetchPage({ page: page.page + this.#pageBase, size: page.size })),
    );
    // In request order, so the total kept is the one of the last page asked for.
    pages.forEach((page, index) => this.#learn(page, results[index]));
  }

  #learn(page: PageRequest, result: PageResult<T> | undefined): void {
    if (!Array.isArray(result?.items)) throw new TypeError('fetchPage must resolve to { items: T[], total: number | null }');
    const from = page.page * page.size;
    // Rows past the requested size belong to other positions; trusting them would misplace records.
    const items = result.items.slice(0, page.size);
    items.forEach((item, index) => this.#items.set(from + index, item));
    if (items.length > 0) this.#lastPresent = Math.max(this.#lastPresent, from + items.length - 1);
    if (items.length < page.size) this.#firstAbsent = Math.min(this.#firstAbsent, from + items.length);
    const total = result.total;
    if (typeof total === 'number' && Number.isSafeInteger(total) && total >= 0) this.#total = total;
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
