/** Bounded parallelism for the runner's independent resources (like `pulumi up --parallel`). */

/** Runs `work` for every item, at most `parallel` at a time; resolves when all are done. */
export async function pool<T>(
  parallel: number,
  items: readonly T[],
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lanes = Math.max(1, Math.min(parallel, items.length));
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}
