/**
 * Turns among one token's feeds when its budget cannot pay every poll. Without them, the feeds whose
 * timers fire first after the bucket refills take every call, and the same few starve. A feed whose
 * polls were skipped is owed that many; a feed of the same token owed less lets it poll first (it
 * skips its own turn and is owed one in its place), so the polls the budget pays go round the feeds:
 * the one skipped longest polls next, and none falls more than a turn or two behind another.
 */
export class PollTurns {
  /** By token key: each owed feed and its polls skipped in a row. */
  readonly #owed = new Map<string, Map<object, number>>();

  /** Whether `feed` of `token` polls now: no other feed of the token is owed more turns than it. */
  mayPoll(token: string, feed: object): boolean {
    const owed = this.#owed.get(token);
    if (owed === undefined) return true;
    const mine = owed.get(feed) ?? 0;
    for (const other of owed.values()) if (other > mine) return false;
    return true;
  }

  /** `feed`'s poll was skipped: how many of its polls in a row have been now. */
  skipped(token: string, feed: object): number {
    let owed = this.#owed.get(token);
    if (owed === undefined) this.#owed.set(token, (owed = new Map()));
    const count = (owed.get(feed) ?? 0) + 1;
    owed.set(feed, count);
    return count;
  }

  /** `feed` was paid for, stopped, or is polled by another replica: it is owed nothing. */
  settle(token: string, feed: object): void {
    const owed = this.#owed.get(token);
    if (owed === undefined) return;
    owed.delete(feed);
    if (owed.size === 0) this.#owed.delete(token);
  }
}
