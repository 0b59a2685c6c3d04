import type { NotifyEventName } from '../config/notify-schema.js';

/**
 * Every state a task can be in, in the order every view lists them: the tasks that wait on a
 * person first (a question, a review, a file its author must finish or fix), then the ones at work,
 * the ones waiting their turn, the ones a person paused, and the ended ones last.
 *
 * The name is the state's one word in every view: the `state` field of the JSON views (`status
 * --json`, `status ID --json`, the HTTP API), the `state` label of `/metrics`' `wiggum_tasks` gauge,
 * and, with its dashes read as spaces (`stateWord`), the text views (`status`, Dashboard.md, the
 * web page).
 */
export const TASK_STATES = [
  'blocked',
  'in-review',
  'needs-harness',
  'being-written',
  'waiting-for-you',
  'invalid',
  'running',
  'landing',
  'retrying',
  'usage-limit',
  'outage',
  'held',
  'failing',
  'queued',
  'review-slot',
  'waiting-on-dependency',
  'scheduled',
  'stopped',
  'interrupted',
  'done',
  'rejected',
] as const;
export type TaskStateName = (typeof TASK_STATES)[number];

/** The vault folders a task file can be in; a lookup by id searches them in this order. */
export const TASK_FOLDERS = ['approved', 'blocked', 'review', 'done', 'rejected'] as const;
export type TaskFolder = (typeof TASK_FOLDERS)[number];

/** What every view and command needs to know of one state. */
export interface StateRow {
  /** The folder a task in this state is in: where a lookup by its id finds it. */
  folder: TaskFolder;
  /**
   * The exit code of `wiggum run` / `ralph` when a run leaves the task in this state (0 complete,
   * 1 rejected, 2 it could not start, 3 stopped or waiting); null: no run ends in it.
   */
  exitCode: 0 | 1 | 2 | 3 | null;
  /** The notification (`notify.events`) that entering this state sends; null: none. */
  event: NotifyEventName | null;
  /** Only a person moves it on (answer, approve, write, fix): listed first in every view. */
  waitsOnPerson: boolean;
  /** An iteration is at work or between two of a run (a retry, a limit, a landing, STOP): shown with its run's facts. */
  atWork: boolean;
  /** What the state means and what moves it on, for the headings of the text views. */
  meaning: string;
}

/**
 * The table. `satisfies` makes a new state in TASK_STATES fail to compile until it has its row,
 * and every consumer switches over TaskStateName exhaustively (lint: switch-exhaustiveness-check).
 */
export const STATE_TABLE = {
  blocked: {
    folder: 'blocked',
    exitCode: 3,
    event: 'blocked',
    waitsOnPerson: true,
    atWork: false,
    meaning:
      'its agent asked a question: answer under ## Answer and move it back to Approved/ (or wiggum answer ID "…")',
  },
  'in-review': {
    folder: 'review',
    exitCode: 3,
    event: 'review',
    waitsOnPerson: true,
    atWork: false,
    meaning: 'complete, waiting for a person: wiggum approve ID, or wiggum request-changes ID "…"',
  },
  'needs-harness': {
    folder: 'approved',
    exitCode: 2,
    event: null,
    waitsOnPerson: true,
    atWork: false,
    meaning: 'names no harness and the config sets no harness.default: add `harness: NAME`',
  },
  'being-written': {
    folder: 'approved',
    exitCode: null,
    event: null,
    waitsOnPerson: true,
    atWork: false,
    meaning: 'its author is still writing it in place: it starts once the file is quiet',
  },
  'waiting-for-you': {
    folder: 'approved',
    exitCode: 2,
    event: null,
    waitsOnPerson: true,
    atWork: false,
    meaning: 'not run until its author fixes what is said',
  },
  invalid: {
    folder: 'approved',
    exitCode: 1,
    event: null,
    waitsOnPerson: true,
    atWork: false,
    meaning: 'does not parse as a task: fix it, or it goes to Rejected/ with a report (wiggum validate says why)',
  },
  running: {
    folder: 'approved',
    exitCode: null,
    event: null,
    waitsOnPerson: false,
    atWork: true,
    meaning: 'an iteration is at work',
  },
  landing: {
    folder: 'approved',
    exitCode: null,
    event: null,
    waitsOnPerson: false,
    atWork: true,
    meaning: 'complete: its branch is landing, or waits to land',
  },
  retrying: {
    folder: 'approved',
    exitCode: null,
    event: null,
    waitsOnPerson: false,
    atWork: true,
    meaning: 'a failed iteration is tried again after a pause',
  },
  'usage-limit': {
    folder: 'approved',
    exitCode: null,
    event: 'waiting',
    waitsOnPerson: false,
    atWork: true,
    meaning: 'its harness account reached a usage limit: it goes on when the limit resets',
  },
  outage: {
    folder: 'approved',
    exitCode: null,
    event: null,
    waitsOnPerson: false,
    atWork: true,
    meaning: 'its harness does not answer: paused, probing it again',
  },
  held: {
    folder: 'approved',
    exitCode: null,
    event: null,
    waitsOnPerson: false,
    atWork: true,
    meaning: 'the vault STOP file holds it: it goes on once STOP is removed',
  },
  failing: {
    folder: 'approved',
    exitCode: null,
    event: null,
    waitsOnPerson: false,
    atWork: false,
    meaning: 'the daemon could not start it: tried again',
  },
  queued: {
    folder: 'approved',
    exitCode: null,
    event: null,
    waitsOnPerson: false,
    atWork: false,
    meaning: 'waits for a free slot',
  },
  'review-slot': {
    folder: 'approved',
    exitCode: null,
    event: null,
    waitsOnPerson: false,
    atWork: false,
    meaning: 'not started while review.max_pending tasks wait in Review/',
  },
  'waiting-on-dependency': {
    folder: 'approved',
    exitCode: null,
    event: null,
    waitsOnPerson: false,
    atWork: false,
    meaning: 'starts once the tasks it depends on are in Done/',
  },
  scheduled: {
    folder: 'approved',
    exitCode: null,
    event: null,
    waitsOnPerson: false,
    atWork: false,
    meaning: 'starts at its not_before time',
  },
  stopped: {
    folder: 'approved',
    exitCode: 3,
    event: null,
    waitsOnPerson: false,
    atWork: false,
    meaning: 'held by its stop flag: remove the .stop file (or wiggum resume ID) to continue from the checkpoint',
  },
  interrupted: {
    folder: 'approved',
    exitCode: 3,
    event: null,
    waitsOnPerson: false,
    atWork: false,
    meaning: 'its run was cut short (a signal, a shutdown): the daemon resumes it from the checkpoint',
  },
  done: {
    folder: 'done',
    exitCode: 0,
    event: 'done',
    waitsOnPerson: false,
    atWork: false,
    meaning: 'complete, in Done/',
  },
  rejected: {
    folder: 'rejected',
    exitCode: 1,
    event: 'rejected',
    waitsOnPerson: false,
    atWork: false,
    meaning: 'failed, in Rejected/ with a report (wiggum retry ID sends it back)',
  },
} as const satisfies { readonly [S in TaskStateName]: StateRow };

/** The state as the text views say it: `in-review` → `in review`. */
export function stateWord(state: TaskStateName): string {
  return state.replace(/-/g, ' ');
}

/** A state's place in the order of every view (people first). */
export function stateRank(state: TaskStateName): number {
  return TASK_STATES.indexOf(state);
}

/** A count of 0 for every state, in the table's order. */
export function noTasksByState(): Record<TaskStateName, number> {
  return Object.fromEntries(TASK_STATES.map((state) => [state, 0])) as Record<TaskStateName, number>;
}

/** The state a task file's folder alone decides; Approved/ decides nothing by itself (null). */
export function stateOfFolder(folder: TaskFolder): TaskStateName | null {
  switch (folder) {
    case 'blocked':
      return 'blocked';
    case 'review':
      return 'in-review';
    case 'done':
      return 'done';
    case 'rejected':
      return 'rejected';
    case 'approved':
      return null;
  }
}

/**
 * The state a run leaves its task in, from its result (`TaskRunResult`: a complete task that waits
 * for review has status `done` and `review: true`): its exit code and notification are the table's.
 */
export function stateOfRunEnd(result: {
  status: 'done' | 'rejected' | 'stopped' | 'interrupted' | 'blocked';
  review?: true;
}): TaskStateName {
  return result.status === 'done' && result.review === true ? 'in-review' : result.status;
}
