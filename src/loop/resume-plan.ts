import type { IterationRecord } from '../memory/history.js';
import { addRun } from '../memory/spent.js';
import type { PersistenceLoop } from '../task/schema.js';
import { isoSeconds } from '../time/clock.js';
import { historyBaseOf, loopStateFromCheckpoint, waitCauseOf, waitingUntilOf } from './checkpoint.js';
import type { LoopState, WaitCause } from './decide.js';

/**
 * How a run picks up a task: what its file, its history and the marker of a cut move say about
 * where the last run stopped. Pure, so every crash point is a row of a table
 * (test/loop/resume-plan.test.ts). The history line of an iteration is written before the
 * checkpoint that counts it; a crash can fall between the two, and the resume must neither lose
 * that iteration nor run it again. A miss here once cost one task in 410 an extra agent run.
 */

/** Outcomes of an iteration that counts (a stop, a retry or a wait runs the same iteration again). */
export const FINISHED_OUTCOMES: ReadonlySet<string> = new Set([
  'complete',
  'refused',
  'continue',
  'nonzero-exit',
  'limit-exceeded',
]);

/** How a task's file says its last run ended. */
export type Ended = 'done' | 'rejected' | 'review';

/** What happens to a task file found in Approved/ before its loop starts. */
export type StartPlan =
  /** Not ended: run (or resume) the loop. */
  | { kind: 'run' }
  /** A crash came between the final state and the move: finish the move, never run it again. */
  | { kind: 'finish-move'; as: Ended }
  /** Someone put a Done or Rejected task back by hand: send it back as `wiggum retry` would, then run. */
  | { kind: 'send-back'; from: 'done' | 'rejected' }
  /**
   * A task that waited for review, moved back into Approved/ by a person: with a change request it
   * goes back to the loop; without one it waits (run-task.ts reads the request).
   */
  | { kind: 'review-returned' };

/**
 * A task in Approved/ whose file says it ended is one of two things, told apart by the `.ending`
 * marker (ending.ts) written before the final state and removed after the move.
 */
export function startPlan(ended: Ended | null, pendingMove: boolean): StartPlan {
  if (ended === null) return { kind: 'run' };
  if (pendingMove) return { kind: 'finish-move', as: ended };
  return ended === 'review' ? { kind: 'review-returned' } : { kind: 'send-back', from: ended };
}

/** What the run needs to know besides the file and the history. */
export interface ResumeRun {
  /** `max_iterations` in force now (flag, then file, then config), not the one in the checkpoint. */
  maxIterations: number;
  nowMs: number;
}

/** How the loop goes on. */
export interface ResumePlan {
  /** The loop's counters to go on from. */
  state: LoopState;
  /** When the task first started (ISO): kept across restarts and send-backs. */
  started: string;
  /** History lines of runs before the task was last sent back: another run's, not this one's. */
  historyBase: number;
  /** Whether this run goes on from an earlier one (logged as resuming, not starting). */
  resumed: boolean;
  /** An iteration whose history line was written but whose checkpoint was not: counted now, not run again. */
  countedIteration: number | null;
  /** 'done' when that counted iteration completed the task: it ends now, without another agent run. */
  first: 'loop' | 'done';
  /** A usage limit or outage the task was waiting out when wiggum stopped: its harness stays paused until then. */
  pause: { untilMs: number; why: WaitCause } | null;
}

/**
 * The plan for a run of a task whose file holds `checkpoint` (undefined: it never ran) and whose
 * session holds `history` (every line, earlier runs' included).
 */
export function resumePlan(
  checkpoint: PersistenceLoop | undefined,
  history: readonly IterationRecord[],
  run: ResumeRun,
): ResumePlan {
  const historyBase = historyBaseOf(checkpoint);
  const fromHistory = resumeFromHistory(loopStateFromCheckpoint(checkpoint, run.maxIterations), history, historyBase);
  const waitingUntil = waitingUntilOf(checkpoint);
  const counted = fromHistory.countedIteration;
  return {
    state: fromHistory.state,
    started: checkpoint?.started ?? isoSeconds(run.nowMs),
    historyBase,
    resumed: fromHistory.state.iteration > 0 || history.length > 0,
    countedIteration: counted,
    // Only a line this resume counts can end the task: an older one was already acted on.
    first: counted !== null && history.at(-1)?.action === 'done' ? 'done' : 'loop',
    pause: waitingUntil === null ? null : { untilMs: waitingUntil, why: waitCauseOf(checkpoint) },
  };
}

/**
 * Loop state on resume, given the history. The history line is written before the checkpoint: a
 * crash between the two leaves an iteration that finished but is not counted. It counts now, so it
 * is not run (and recorded) twice. Lines before `historyBase` are an earlier run's (the task was
 * sent back since) and say nothing about this one. A refused completion claim is remembered for
 * the next prompt.
 */
export function resumeFromHistory(
  state: LoopState,
  history: readonly IterationRecord[],
  historyBase = 0,
): { state: LoopState; countedIteration: number | null } {
  const last = history.slice(historyBase).at(-1);
  let next = state;
  if (last?.completionFound === true && last.completionAccepted === false && last.refusal !== undefined)
    next = { ...next, refusal: last.refusal };
  if (last !== undefined && last.iteration > next.iteration && FINISHED_OUTCOMES.has(last.outcome)) {
    return {
      state: { ...next, iteration: last.iteration, attempt: 0, spent: addRun(next.spent, last) },
      countedIteration: last.iteration,
    };
  }
  return { state: next, countedIteration: null };
}
