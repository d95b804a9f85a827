/**
 * The one ask/answer channel between the processes and threads of an instance: a worker and its
 * primary (budgets, feed leases and seats, published documents, the group's metrics, readiness) and
 * the admin thread and its gateway. Each question carries an id and its answer the same id; an answer
 * that does not come in time is given up on (`late`: the asker decides alone, or says it is busy), and
 * one that comes after that is dropped. Whatever the message format, this is the only place that
 * matches answers to questions or times them out.
 */
export class Asks<Answer> {
  readonly #pending = new Map<number, (answer: Answer) => void>();
  #next = 0;

  /**
   * Sends a question (`send` is given its id, and says false when there is no channel to send it
   * on) and resolves with its answer, or with `late()` when none comes within `withinMs` or none
   * could be sent.
   */
  ask(send: (id: number) => boolean | void, withinMs: number, late: () => Answer): Promise<Answer> {
    const id = this.#next;
    this.#next = (id + 1) % Number.MAX_SAFE_INTEGER;
    return new Promise((resolve) => {
      const settle = (answer: Answer) => {
        clearTimeout(timer);
        this.#pending.delete(id);
        resolve(answer);
      };
      const timer = setTimeout(() => settle(late()), withinMs);
      this.#pending.set(id, settle);
      if (send(id) === false) settle(late());
    });
  }

  /** The answer to question `id`; false when nothing waits for it (given up on, or never asked). */
  answer(id: number, answer: Answer): boolean {
    const settle = this.#pending.get(id);
    settle?.(answer);
    return settle !== undefined;
  }

  /** Answers every question still waiting (the channel is closing). */
  settleAll(answer: () => Answer): void {
    for (const settle of [...this.#pending.values()]) settle(answer());
  }
}
