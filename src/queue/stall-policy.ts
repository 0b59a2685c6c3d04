import type { ErrorCode } from '../errors.js';

/**
 * What the vault host hears about a task's job (from QueueEvents, or found on catch-up):
 * - `completed`: the worker's loop ended the run (done, rejected, stopped…): its return value says how;
 * - `progress`: an iteration's record (progress.ts);
 * - `handed-back`: a worker stopped with SIGTERM put the job back in the queue (moveToWait): no
 *   attempt and no stall used, another worker resumes it from the last checkpoint;
 * - `stalled`: the worker's lock lapsed (killed with -9, cut off, machine lost): BullMQ put the job
 *   back in the queue; `stalls` counts them, a run may have queue.max_stalled;
 * - `failed`: the job failed: for good after a stall too many (`stalls` > max), else with the error
 *   `code` the worker's run raised outside the loop's own handling; `attemptsLeft`: BullMQ retries it.
 */
export type JobEvent =
  | { kind: 'completed' }
  | { kind: 'progress' }
  | { kind: 'handed-back' }
  | { kind: 'stalled'; stalls: number }
  | { kind: 'failed'; code: ErrorCode | null; stalls: number; attemptsLeft: number };

/**
 * What the host does:
 * - `finish`: write the ending from the job's return value, move the file as today, remove the job;
 * - `apply-progress`: judge it with applyProgress and write what it says;
 * - `catch-up`: read the job's stored progress (events may have been missed) and apply it; the
 *   job is queued again and resumes from the last checkpoint and pushed commit;
 * - `wait`: nothing to write: BullMQ runs the job again (a retry, or another worker after a hand-back);
 * - `requeue`: add the task's job again after daemon.failed_retry, resuming from its checkpoint, as
 *   the daemon offers a task again whose loop failed outside its own handling;
 * - `reject`: move the task to Rejected/ with `report` appended, its code recorded.
 */
export type HostAction =
  | { kind: 'finish' }
  | { kind: 'apply-progress' }
  | { kind: 'catch-up' }
  | { kind: 'wait' }
  | { kind: 'requeue' }
  | { kind: 'reject'; code: ErrorCode; report: string };

/** Failures no other run fixes: the task or the config must change first. */
const TASK_FAULTS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'E_TASK_SCHEMA',
  'E_TASK_YAML',
  'E_TASK_FRONTMATTER',
  'E_TASK_TOO_LARGE',
  'E_TASK_ENCODING',
  'E_TASK_EMPTY',
  'E_NO_HARNESS',
  'E_HARNESS_UNKNOWN',
  'E_WORKDIR',
  'E_QUEUE_JOB_TOO_LARGE',
]);

export interface StallFacts {
  taskId: string;
  maxStalled: number;
  /** The last iteration the host wrote: where a run moved back to Approved/ resumes. */
  iteration: number;
}

/** The host's decision for a job event. Pure; a table test lists every row (test/queue/stall-policy.test.ts). */
export function hostAction(event: JobEvent, facts: StallFacts): HostAction {
  switch (event.kind) {
    case 'completed':
      return { kind: 'finish' };
    case 'progress':
      return { kind: 'apply-progress' };
    case 'handed-back':
      return { kind: 'wait' };
    case 'stalled':
      return { kind: 'catch-up' };
    case 'failed':
      // A stall past the limit fails the job whatever its attempts (BullMQ does not retry it): it
      // is told by the count, never by BullMQ's message text.
      if (event.stalls > facts.maxStalled)
        return { kind: 'reject', code: 'E_QUEUE_STALLED', report: stalledReport(facts, event.stalls) };
      if (event.attemptsLeft > 0) return { kind: 'wait' };
      if (event.code !== null && TASK_FAULTS.has(event.code))
        return {
          kind: 'reject',
          code: event.code,
          report: `The run failed on its worker with ${event.code}, which no other run fixes: see the worker's log for the message, fix the task or the config, then move the task back to Approved/.`,
        };
      return { kind: 'requeue' };
  }
}

/** The report a task rejected for its stalls gets: what happened, and what to do. */
export function stalledReport(facts: StallFacts, stalls: number): string {
  return [
    `The run of task ${facts.taskId} stalled ${stalls} times, more than queue.max_stalled (${facts.maxStalled}) allows: ` +
      'each time, the worker running it stopped renewing its lock (killed, cut off from Redis, its machine lost, ' +
      'or its event loop blocked longer than queue.lock_duration).',
    `What to do: look at the workers' logs and the machines' health for the cause; if the workers were only ` +
      'slow, raise queue.lock_duration (or queue.max_stalled); then move the task back to Approved/: it resumes ' +
      `from its last checkpoint (iteration ${facts.iteration}) and its last pushed commit.`,
  ].join('\n\n');
}
