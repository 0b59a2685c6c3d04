import type { NotifyEventName } from '../config/notify-schema.js';
import type { IterationRecord } from '../memory/history.js';
import { STATE_TABLE, stateOfRunEnd } from '../task/states.js';

/**
 * The event a task's run ending sends: the table of task states' (src/task/states.ts) for the state
 * the run leaves it in; null for a stopped or interrupted run (it has not ended, it resumes).
 */
export function eventOfEnding(result: Parameters<typeof stateOfRunEnd>[0]): NotifyEventName | null {
  return STATE_TABLE[stateOfRunEnd(result)].event;
}

/**
 * Whether a `waiting` loop event starts a usage-limit wait worth telling: the first of a row (the
 * loop says `waiting` again after each probe that finds the limit still on; only the first counts).
 */
export function usageLimitStep(waitingBefore: boolean, why: string): { waiting: boolean; notify: boolean } {
  const waiting = why === 'usage-limit';
  return { waiting, notify: waiting && !waitingBefore };
}

/** Iterations in a row with nothing to show, as the daemon counts them from the history records. */
export interface StallState {
  streak: number;
  storiesPassing: number;
}

export const NO_STALL: StallState = { streak: 0, storiesPassing: 0 };

/**
 * The loop's own judgement of progress is not in its events, so the daemon counts from each
 * iteration's record: a story newly passing, a commit or a changed file is progress. `stalled` is
 * told once, when the streak reaches `threshold` (half the no-progress limit: the task is not
 * rejected yet, and a person can still step in).
 */
export function stallStep(
  before: StallState,
  record: Pick<IterationRecord, 'storiesPassing' | 'git' | 'outcome'>,
  threshold: number,
): { state: StallState; notify: boolean } {
  // A retry after a network error or a wait is not a judgement of the agent's work.
  if (
    record.outcome === 'transient' ||
    record.outcome === 'usage-limit' ||
    record.outcome === 'stopped' ||
    record.outcome === 'interrupted'
  )
    return { state: before, notify: false };
  const progressed =
    record.storiesPassing > before.storiesPassing ||
    (record.git !== undefined && (record.git.commits.length > 0 || record.git.filesChanged > 0));
  const streak = progressed ? 0 : before.streak + 1;
  return {
    state: { streak, storiesPassing: Math.max(before.storiesPassing, record.storiesPassing) },
    notify: threshold > 0 && streak === threshold,
  };
}

/** The streak `stalled` is told at: half `persistence_loop.no_progress_limit`, at least 2; 0 (never) when the limit is off. */
export function stallThreshold(noProgressLimit: number): number {
  return noProgressLimit <= 0 ? 0 : Math.max(2, Math.floor(noProgressLimit / 2));
}
