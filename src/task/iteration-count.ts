/**
 * A task's iteration count, as every view shows it: `status`, `status ID`, `status --json`,
 * Dashboard.md, the log and the reports. There is one count, the checkpoint's
 * `persistence_loop.iteration`: the iterations that finished. An iteration that is running is not
 * counted yet (a crash runs it again under the same number), so it is said apart: "the 2nd running".
 */
export interface IterationCount {
  /** Iterations finished: the checkpoint's `iteration`. */
  done: number;
  /** The bound in force, when known. */
  max: number | null;
  /** The iteration running now (`done + 1`), or null between iterations and when not running. */
  running: number | null;
}

/** The count of a task whose checkpoint says `iteration` (absent: none finished). */
export function iterationCount(
  iteration: number | undefined,
  max: number | undefined,
  running: boolean,
): IterationCount {
  const done = iteration ?? 0;
  return { done, max: max ?? null, running: running ? done + 1 : null };
}

/** "1 of 8 done, the 2nd running": the count without a leading word, for a table cell. */
export function countText(count: IterationCount): string {
  const bound = count.max === null ? '' : ` of ${count.max}`;
  return `${count.done}${bound} done${count.running === null ? '' : `, the ${ordinal(count.running)} running`}`;
}

/** "iterations 1 of 8 done, the 2nd running": the count first, so every view leads with the same number. */
export function describeIterations(count: IterationCount): string {
  return `iterations ${countText(count)}`;
}

/** 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st. */
export function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : n % 10 === 1 ? 'st' : n % 10 === 2 ? 'nd' : n % 10 === 3 ? 'rd' : 'th';
  return `${n}${suffix}`;
}
