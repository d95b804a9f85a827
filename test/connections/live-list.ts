import type { FetchPage, PageResult, SortKey } from '../../src/connections/index.ts';

/** A work item of a live list: newest (highest key) first, like exceptions in createdAt DESC order. */
export interface LiveRow {
  id: string;
  key: number;
  status: 'NEW' | 'RESOLVED';
}

/** The order the fake platform sorts by, as the gateway is told it. */
export const LIVE_ORDER: SortKey[] = [
  { field: 'key', descending: true },
  { field: 'id', descending: false },
];

/** A change to the list between two page requests. `at` picks a place or a row in [0, 1). */
export type Change =
  | { kind: 'insert'; at: number; visible: boolean }
  | { kind: 'remove'; at: number }
  | { kind: 'remove-anchor' }
  | { kind: 'toggle-status'; at: number };

function pick<T>(items: readonly T[], at: number): T | undefined {
  return items[Math.min(items.length - 1, Math.floor(at * items.length))];
}

/**
 * An in-memory platform list that changes underneath the walk: the filter keeps status NEW rows,
 * so a status change moves a row out of (or into) the list. Answers pages as the platform does:
 * by offset, from the list as it is at the time of each request.
 */
export class LiveList {
  /** Every row, visible or not, in the list's order. */
  #rows: LiveRow[];
  #next: number;
  /** Rows in the list at the start that have been out of it at some point since. */
  readonly #left = new Set<string>();
  readonly #initial: Set<string>;
  /** The row the walk's cursor points at, for `remove-anchor`. */
  anchorId: string | null = null;

  constructor(count: number) {
    this.#rows = Array.from({ length: count }, (_, index) => ({ id: `r${String(index).padStart(4, '0')}`, key: count - index, status: 'NEW' as const }));
    this.#next = count;
    this.#initial = new Set(this.visible().map((row) => row.id));
  }

  /** Rows in the list from the start until now without a break. */
  stayed(): Set<string> {
    return new Set([...this.#initial].filter((id) => !this.#left.has(id)));
  }

  /** Ids of every row, visible or not, in the list's order (what `at` of a change picks from). */
  allIds(): string[] {
    return this.#rows.map((row) => row.id);
  }

  /** The filtered list: what the platform returns pages of. */
  visible(): LiveRow[] {
    return this.#rows.filter((row) => row.status === 'NEW');
  }

  fetchPage(pageBase: 0 | 1, totals: boolean): FetchPage<LiveRow> {
    return async ({ page, size }) => {
      const list = this.visible();
      const from = (page - pageBase) * size;
      const result: PageResult<LiveRow> = { items: list.slice(from, from + size).map((row) => ({ ...row })), total: totals ? list.length : null };
      return result;
    };
  }

  /** Applies a change. */
  apply(change: Change): void {
    this.#change(change);
    const now = new Set(this.visible().map((row) => row.id));
    for (const id of this.#initial) if (!now.has(id)) this.#left.add(id);
  }

  #change(change: Change): void {
    const anchorId = this.anchorId;
    switch (change.kind) {
      case 'insert': {
        const index = Math.floor(change.at * (this.#rows.length + 1));
        const above = this.#rows[index - 1]?.key;
        const below = this.#rows[index]?.key;
        const key = above === undefined ? (below ?? 0) + 1 : below === undefined ? above - 1 : (above + below) / 2;
        const id = `n${String(this.#next++).padStart(4, '0')}`;
        this.#rows.splice(index, 0, { id, key, status: change.visible ? 'NEW' : 'RESOLVED' });
        return;
      }
      case 'remove': {
        const row = pick(this.#rows, change.at);
        if (row) this.#rows = this.#rows.filter((candidate) => candidate !== row);
        return;
      }
      case 'remove-anchor':
        this.#rows = this.#rows.filter((row) => row.id !== anchorId);
        return;
      case 'toggle-status': {
        const row = pick(this.#rows, change.at);
        if (row) row.status = row.status === 'NEW' ? 'RESOLVED' : 'NEW';
        return;
      }
    }
  }
}
