/**
 * Maps `items` with at most `limit` calls in flight: enough to keep the disk busy over a vault of
 * thousands of files, far below the usual 1,024 open descriptors. Results keep the input order.
 */
export async function mapLimited<T, R>(items: readonly T[], limit: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await map(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Files open at once while reading a folder's tasks. */
export const FILES_AT_ONCE = 32;
