import type { ErrorCode } from '../errors.js';
import type { IterationRecord } from '../memory/history.js';

export type TaskRunStatus = 'done' | 'rejected' | 'stopped' | 'interrupted' | 'blocked';

/** How a task's run ended, for exit codes, the daemon and status. */
export interface TaskRunResult {
  status: TaskRunStatus;
  taskId: string | null;
  /** Where the task file is now (Done/…, Rejected/… or still in Approved/). */
  file: string;
  iterations: number;
  /** Complete, but waiting in Review/ for a person's approval (status is `done`: the loop's work is). */
  review?: true;
  reason?: string;
  code?: ErrorCode;
}

/** What a running loop tells its host (the `run` command's progress line, the daemon's status). */
export type LoopEvent =
  | {
      type: 'started';
      taskId: string;
      file: string;
      iteration: number;
      maxIterations: number;
      resumed: boolean;
      durable: boolean;
      harness: string;
      session: string;
      /** The task's own worktree and its branch, when it works in one (a workdir in a repository). */
      worktree?: { path: string; branch: string };
    }
  | {
      type: 'iteration';
      taskId: string;
      iteration: number;
      attempt: number;
      maxIterations: number;
      step: string | null;
      startedAtMs: number;
    }
  | { type: 'iteration-end'; taskId: string; record: IterationRecord }
  /** The checkpoint in the task file now says `iteration` finished: the count every view shows. */
  | { type: 'checkpoint'; taskId: string; iteration: number; maxIterations: number }
  /** A wait between runs; `harness` is the one that is limited or in an outage. */
  | {
      type: 'waiting';
      taskId: string;
      untilMs: number;
      why: 'retry' | 'usage-limit' | 'outage' | 'hold' | 'landing';
      harness?: string;
      /** Why a landing waits (the base checked out with local changes, …), in words. */
      reason?: string;
    }
  /**
   * Which `wiggum worker` runs the task now (scale-out: the vault host says it when a worker takes
   * the job up); null: it is queued again and no worker holds it (handed back, stalled).
   */
  | { type: 'worker'; taskId: string; worker: { id: string; host: string; pid: number } | null }
  | { type: 'ended'; taskId: string | null; result: TaskRunResult };
