import { PageCaps, type PageCapsOptions } from './page-cap.ts';
import type { AnchorOutcome } from './types.ts';

export interface AnchorEvent {
  list: string;
  outcome: AnchorOutcome;
}

/**
 * What one gateway instance has learned about the platform's lists across requests: the page-size
 * cap each list's endpoint was seen to apply. Facts about the upstream, never about a caller's
 * data, so sharing them between requests leaks nothing. Keys are the descriptors' list names, a
 * fixed set in code, so the map and the metric labels it feeds stay bounded.
 */
export class PagingFacts {
  readonly #pageCaps: PageCaps;
  readonly #listeners = new Set<(event: AnchorEvent) => void>();

  constructor(options: PageCapsOptions = {}) {
    this.#pageCaps = new PageCaps(options);
  }

  /** The page-size cap in force for `list` (see PageCaps); undefined while none is. */
  pageCap(list: string): number | undefined {
    return this.#pageCaps.get(list);
  }

  /** The page size requests of `list` start with (see PageCaps.sizeFor). */
  pageSizeFor(list: string, configured: number): number {
    return this.#pageCaps.sizeFor(list, configured);
  }

  /** Changes whenever the caps in force do (see PageCaps.generation). */
  get capsGeneration(): number {
    return this.#pageCaps.generation;
  }

  /** Records a cap; true when it is news (none in force, or lower than the one in force). */
  learnPageCap(list: string, size: number): boolean {
    return this.#pageCaps.learn(list, size);
  }

  /** The caps in force, by list. */
  pageCaps(): ReadonlyMap<string, number> {
    return this.#pageCaps.all();
  }

  recordAnchor(event: AnchorEvent): void {
    for (const listener of this.#listeners) listener(event);
  }

  /** Calls `listener` for every anchored cursor read; returns the unsubscribe function. */
  observeAnchors(listener: (event: AnchorEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

// One PagingFacts per gateway instance. It is keyed by the instance's platform connection because
// that is what both the per-request context and the metrics are built from; a WeakMap lets it go
// with the gateway.
const factsByUpstream = new WeakMap<object, PagingFacts>();

/** The paging facts of the gateway instance that talks to the platform through `upstream`. */
export function pagingFactsFor(upstream: object): PagingFacts {
  let facts = factsByUpstream.get(upstream);
  if (facts === undefined) {
    facts = new PagingFacts();
    factsByUpstream.set(upstream, facts);
  }
  return facts;
}
