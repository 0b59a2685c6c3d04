/** The words a task file is written in, without a schema library: cheap to import. */

/** A task id names files and folders, so it is kept to a safe, portable alphabet. */
export const TASK_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export const TASK_STATES = ['Approved', 'Done', 'Rejected', 'Review', 'Blocked'] as const;
export type TaskState = (typeof TASK_STATES)[number];

/**
 * The lifecycle of a task's loop, as written into `persistence_loop.status`:
 * queued → running (⇄ waiting, for an agent's usage limit) → (stopped | interrupted → running …) → done | rejected.
 * With review: running → review (in Review/) → done (approved) or queued again (changes requested).
 * A task whose agent asked a person is `blocked` (in Blocked/) until it is answered and moved back: then running.
 */
export const LOOP_STATUSES = [
  'queued',
  'running',
  'waiting',
  'stopped',
  'interrupted',
  'done',
  'rejected',
  'review',
  'blocked',
] as const;
export type LoopStatus = (typeof LOOP_STATUSES)[number];
