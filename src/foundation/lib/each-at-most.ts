/**
 * Runs `fn` on every item, at most `limit` calls at a time, starting them in the items' order. Resolves once all
 * have run; rejects with the first failure (calls already started still finish, and the remaining items are still
 * started by the other runners: `fn` catches what it does not want to stop on).
 */
export async function eachAtMost<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const runner = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, runner));
}
