/**
 * How well the loop works over time (`wiggum stats`, the Dashboard's headline): pure figures
 * computed from per-task facts, which `read-facts.ts` gathers from the vault's files. Table-tested
 * in test/stats/figures.test.ts.
 */

/** Where a task's run ended: Done/, Review/ (finished, waiting for a person) or Rejected/. */
export type TaskEnding = 'done' | 'review' | 'rejected';

/** What one ended task's files say. A field its files do not tell is null (an older checkpoint, no history). */
export interface TaskFacts {
  ending: TaskEnding;
  /** False when the task file's frontmatter could not be read: the task counts in its folder's total and nowhere else. */
  readable: boolean;
  /** The harness that ran it (its frontmatter's, else its history's, else the configured default). */
  harness: string;
  startedAtMs: number | null;
  /** When it ended (checkpoint `ended`, else `updated`, else the file's modification time). */
  endedAtMs: number | null;
  iterations: number | null;
  /** Input plus output tokens, over every run of its agent. */
  tokens: number | null;
  /** Null when no run reported a cost (Codex and Gemini never do). */
  costUsd: number | null;
  /** Completion claims the loop refused (the promise printed while stories still failed, or a check failed). */
  refusedClaims: number;
  /** Runs of the agent that were retries of an iteration. */
  retries: number;
  /** Runs that hit the agent's usage limit, each followed by a wait. */
  usageLimitWaits: number;
}

/** The figures of a set of ended tasks (all of them, or one harness's). */
export interface Figures {
  /** Tasks in Done/. */
  finished: number;
  /** Tasks in Review/: finished by the loop, not yet approved; in no other figure. */
  review: number;
  rejected: number;
  /** finished / (finished + rejected), 0-1; null when neither has a task. */
  successRate: number | null;
  /** Checkpoint `started` → `ended` of the tasks in Done/ (nearest rank); null without any. */
  timeToDoneMs: { p50: number | null; p95: number | null };
  iterationsPerFinished: number | null;
  tokensPerFinished: number | null;
  costPerFinishedUsd: number | null;
  /** Over every task counted here, rejected ones and those in Review/ included. */
  totalTokens: number;
  totalCostUsd: number | null;
  refusedClaims: number;
  retries: number;
  usageLimitWaits: number;
}

/** The figures overall and per harness, over the tasks that ended in the window. */
export interface VaultStats {
  /** The window's start (epoch ms), null for all time; tasks that ended before it are left out. */
  sinceMs: number | null;
  overall: Figures;
  harnesses: Record<string, Figures>;
  /** Files whose figures could not be read: they count in their folder's total only (task files), or not at all (history lines). */
  unreadable: { tasks: number; histories: number };
}

/** Whether a task ended inside the window; one with no known end is kept only without a window. */
export function inWindow(facts: Pick<TaskFacts, 'endedAtMs'>, sinceMs: number | null): boolean {
  if (sinceMs === null) return true;
  return facts.endedAtMs !== null && facts.endedAtMs >= sinceMs;
}

/** The stats of `facts` ended since `sinceMs` (null: all time). */
export function computeStats(facts: readonly TaskFacts[], sinceMs: number | null, unreadableHistories = 0): VaultStats {
  const kept = facts.filter((task) => inWindow(task, sinceMs));
  const byHarness = new Map<string, TaskFacts[]>();
  for (const task of kept) {
    if (!task.readable) continue;
    const list = byHarness.get(task.harness);
    if (list === undefined) byHarness.set(task.harness, [task]);
    else list.push(task);
  }
  const harnesses: Record<string, Figures> = {};
  for (const name of [...byHarness.keys()].sort()) harnesses[name] = figuresOf(byHarness.get(name) ?? []);
  return {
    sinceMs,
    overall: figuresOf(kept),
    harnesses,
    unreadable: { tasks: kept.filter((task) => !task.readable).length, histories: unreadableHistories },
  };
}

/** The figures of one set of tasks. */
export function figuresOf(tasks: readonly TaskFacts[]): Figures {
  const done = tasks.filter((task) => task.ending === 'done');
  const rejected = tasks.filter((task) => task.ending === 'rejected').length;
  const review = tasks.filter((task) => task.ending === 'review').length;
  const readable = tasks.filter((task) => task.readable);
  const doneReadable = done.filter((task) => task.readable);
  const durations = doneReadable
    .map((task) =>
      task.startedAtMs === null || task.endedAtMs === null ? null : Math.max(0, task.endedAtMs - task.startedAtMs),
    )
    .filter((ms): ms is number => ms !== null)
    .sort((a, b) => a - b);
  const costs = readable.map((task) => task.costUsd).filter((cost): cost is number => cost !== null);
  const doneCosts = doneReadable.map((task) => task.costUsd).filter((cost): cost is number => cost !== null);
  return {
    finished: done.length,
    review,
    rejected,
    successRate: done.length + rejected === 0 ? null : done.length / (done.length + rejected),
    timeToDoneMs: { p50: percentile(durations, 50), p95: percentile(durations, 95) },
    iterationsPerFinished: mean(doneReadable.map((task) => task.iterations)),
    tokensPerFinished: mean(doneReadable.map((task) => task.tokens)),
    costPerFinishedUsd: doneCosts.length === 0 ? null : sum(doneCosts) / doneCosts.length,
    totalTokens: sum(readable.map((task) => task.tokens ?? 0)),
    totalCostUsd: costs.length === 0 ? null : sum(costs),
    refusedClaims: sum(readable.map((task) => task.refusedClaims)),
    retries: sum(readable.map((task) => task.retries)),
    usageLimitWaits: sum(readable.map((task) => task.usageLimitWaits)),
  };
}

/** The nearest-rank percentile of ascending `sorted` values; null for none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? null;
}

/** The mean of the known values; null when none is known. */
function mean(values: readonly (number | null)[]): number | null {
  const known = values.filter((value): value is number => value !== null);
  return known.length === 0 ? null : sum(known) / known.length;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
