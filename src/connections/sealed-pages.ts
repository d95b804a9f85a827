/**
 * Pages sealed before, by the bytes their seal covers: the same page asked again by the same
 * caller (a web client refetching a list's first page, a poll) gets the same cursors without
 * another seal. Handing out again the seal of the very same bytes tells its holder nothing it does
 * not already hold, and uses no nonce twice. The plain bytes name the caller's tag and the account,
 * so two callers never share a page's seal.
 *
 * Bounded in entries and in the size of a page kept (one of UUID ids and a few keys is well under
 * the bound; longer ones are sealed every time), the oldest first out; emptied when the sealing key
 * changes (a new CURSOR_SECRET), so no page is handed out under a secret no longer current.
 */

const PAGES_KEPT = 1024;
/** Longest plain page kept: two anchors of UUID ids and a few keys, an account and the caller tag. */
const MAX_KEPT_PLAIN_BYTES = 256;

export class SealedPages {
  readonly #pages = new Map<string, string>();
  #sealingKey: object | undefined;

  /**
   * The name of the page whose clear bytes are `clear` and plain bytes `plain` under `sealingKey`,
   * or undefined for one too long to keep.
   */
  nameOf(clear: Buffer, plain: Buffer, sealingKey: object): string | undefined {
    if (plain.length > MAX_KEPT_PLAIN_BYTES) return undefined;
    if (sealingKey !== this.#sealingKey) {
      this.#pages.clear();
      this.#sealingKey = sealingKey;
    }
    return clear.toString('latin1') + plain.toString('latin1');
  }

  get(name: string): string | undefined {
    return this.#pages.get(name);
  }

  keep(name: string, text: string): void {
    if (this.#pages.size >= PAGES_KEPT) this.#pages.delete(this.#pages.keys().next().value as string);
    this.#pages.set(name, text);
  }

  /** How many pages are kept (for tests). */
  get size(): number {
    return this.#pages.size;
  }
}
