import type { VaultView } from '../daemon/view.js';

/**
 * The values of `wiggum_tasks{state}`. They partition the vault's task files, so that their sum is
 * every task: the folders (`blocked`, `review`, `done`, `rejected`), and Approved/ cut by what the
 * daemon does with each file there (`running`, `waiting`, `held`, `stopped`; `approved` is the rest:
 * queued, waiting for its author, or not seen yet).
 */
export const TASK_STATES = [
  'approved',
  'running',
  'waiting',
  'held',
  'stopped',
  'blocked',
  'review',
  'done',
  'rejected',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

/** Task files in the folders the view does not count. */
export interface MoreFolders {
  review: number;
  blocked: number;
}

/**
 * Pure: the view (`wiggum status --json`) and the two folder counts it lacks → tasks per state.
 * `done` and `rejected` are the view's counts of Done/ and Rejected/ as they are.
 */
export function tasksByState(view: Pick<VaultView, 'counts' | 'tasks'>, more: MoreFolders): Record<TaskState, number> {
  const phases = { running: 0, waiting: 0, held: 0, stopped: 0 };
  for (const task of view.tasks) if (task.phase !== 'queued') phases[task.phase] += 1;
  const active = phases.running + phases.waiting + phases.held + phases.stopped;
  return {
    // The daemon's list can trail the folder by a moment (a task that has just ended): never below 0.
    approved: Math.max(0, view.counts.approved - active),
    ...phases,
    blocked: more.blocked,
    review: more.review,
    done: view.counts.done,
    rejected: view.counts.rejected,
  };
}

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
    if (task.phase !== 'queued') continue;
    depth += 1;
    // 0: a time the view does not know (a task read from its file, never checkpointed).
    if (task.sinceMs > 0 && (oldestMs === null || task.sinceMs < oldestMs)) oldestMs = task.sinceMs;
  }
  return { depth, oldestAgeSeconds: oldestMs === null ? 0 : Math.max(0, nowMs - oldestMs) / 1000 };
}

/** Pure: the daemon's uptime in seconds; a start time ahead of the clock (it was set back) gives 0. */
export function uptimeSeconds(startedAtMs: number, nowMs: number): number {
  return Math.max(0, nowMs - startedAtMs) / 1000;
}
