import type { VaultView } from '../daemon/view.js';

/**
 * `wiggum_tasks{state}` takes its label values from the state table (src/task/states.ts): the
 * words `wiggum status --json` gives each task, one sample per state, adding up to every task file.
 */

export interface QueueFigures {
  /** Tasks queued to start: not running, waiting, held or stopped. */
  depth: number;
  /** How long the longest-queued of them has been queued, in seconds; 0 when none is. */
  oldestAgeSeconds: number;
}

/** Pure: the tasks queued to start, and the age of the oldest, at `nowMs`. */
export function queueFigures(view: Pick<VaultView, 'tasks'>, nowMs: number): QueueFigures {
  let depth = 0;
  let oldestMs: number | null = null;
  for (const task of view.tasks) {
    if (task.state !== 'queued') continue;
    depth += 1;
    // 0 or absent: a time the view does not know (a task read from its file, never checkpointed).
    const sinceMs = task.run?.sinceMs ?? 0;
    if (sinceMs > 0 && (oldestMs === null || sinceMs < oldestMs)) oldestMs = sinceMs;
  }
  return { depth, oldestAgeSeconds: oldestMs === null ? 0 : Math.max(0, nowMs - oldestMs) / 1000 };
}

/** Pure: the daemon's uptime in seconds; a start time ahead of the clock (it was set back) gives 0. */
export function uptimeSeconds(startedAtMs: number, nowMs: number): number {
  return Math.max(0, nowMs - startedAtMs) / 1000;
}
