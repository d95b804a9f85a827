/**
 * `task` for every item, at most `width` at a time, the results in the items' order. For commands
 * that each start a process: one after another, a file waits on every start in turn; all at once,
 * dozens of processes share two cores.
 */
export async function sideBySide<T, R>(items: readonly T[], width: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return results;
}
