import { isWiggumError } from '../errors.js';
import type { TaskRunResult } from '../loop/events.js';
import type { LogEvent } from '../log/events.js';
import { elapsed } from './dashboard.js';

/** A task another process (`wiggum run`) is running is looked at again this often, to take it once that ends. */
export const BUSY_TASK_RETRY_MS = 5_000;

/** What the daemon does about a task once its run has settled; daemon.ts carries each out. */
export type SettleAction =
  /** No longer listed in status.json and the Dashboard. */
  | { kind: 'forget' }
  /** The watcher may offer the task again when it sees it in Approved/ (see vault/reconcile.ts). */
  | { kind: 'mark-finished' }
  /** The task stopped for its stop flag: the watcher offers it again once the flag goes. */
  | { kind: 'mark-stopped' }
  /** The watcher looks at Approved/ now. */
  | { kind: 'rescan' }
  /** The watcher offers the task again after `delayMs` (unless its file has gone by then). */
  | { kind: 'retry-later'; delayMs: number }
  /** Listed as running in the process `pid` holds it, never as queued here. */
  | { kind: 'list-running-elsewhere'; pid: number }
  /** Still listed, with why and when it is tried again: a task the daemon keeps failing on is never hidden. */
  | { kind: 'list-failing'; reason: string; retryAtMs: number }
  | { kind: 'log'; level: 'warn' | 'error'; event: LogEvent; message: string; fields: Record<string, unknown> }
  /** Said in the log once: later settles of the same kind stay quiet until the task runs. */
  | { kind: 'note-said'; what: SaidOnce }
  /** The task ran here: what was said about it may be said again. */
  | { kind: 'clear-said' };

/** What the daemon says once per task until it runs: taken by another process, or not readable. */
export type SaidOnce = 'busy-elsewhere' | 'unreadable';

export interface SettleFacts {
  /** The task's file name in Approved/. */
  name: string;
  /** What ended the run: null when the run came to an end of its own (done, rejected, stopped). */
  error: unknown;
  /** Whether the task file is still where the job found it. */
  fileExists: boolean;
  /** What the log already said about this task. */
  said: ReadonlySet<SaidOnce>;
  /** `daemon.failed_retry`. */
  failedRetryMs: number;
  nowMs: number;
}

/** The watcher reads the task again now, as it reads a new one. */
const OFFER_AGAIN: SettleAction[] = [{ kind: 'mark-finished' }, { kind: 'rescan' }];

/**
 * What the watcher is told about a run that came to an end of its own: stopped by its flag, it
 * waits for the flag to go; done, rejected or stopped because its file went, it is finished; an
 * interrupted run (a drain) leaves the task as it was, to run at the next start.
 */
export function endedPolicy(result: Pick<TaskRunResult, 'status' | 'reason'>): SettleAction[] {
  if (result.status === 'stopped' && result.reason === 'stop-flag') return [{ kind: 'mark-stopped' }];
  if (result.status === 'interrupted') return [];
  return [{ kind: 'mark-finished' }];
}

/**
 * What follows a run, decided on the error's code, never on its text. Pure: table-tested in
 * test/daemon/settle-policy.test.ts.
 */
export function settlePolicy(facts: SettleFacts): SettleAction[] {
  const { error } = facts;
  if (error === null) return [{ kind: 'clear-said' }];
  // Changed between the scan and the run (emptied, its harness removed): the watcher reads it again, and it waits there.
  if (
    isWiggumError(error, 'E_NO_HARNESS') ||
    isWiggumError(error, 'E_TASK_EMPTY') ||
    isWiggumError(error, 'E_TASK_UNANSWERED') ||
    isWiggumError(error, 'E_SANDBOX_UNAVAILABLE')
  )
    return [{ kind: 'forget' }, ...OFFER_AGAIN];
  if (isWiggumError(error, 'E_LOCKED')) {
    const owner = error.details.owner as { pid?: unknown } | undefined;
    return [
      ...(facts.said.has('busy-elsewhere')
        ? []
        : [
            log('warn', 'task.busy-elsewhere', `${error.message}; it is taken here once that run ends`, {
              owner: error.details.owner,
            }),
          ]),
      { kind: 'note-said', what: 'busy-elsewhere' },
      typeof owner?.pid === 'number' ? { kind: 'list-running-elsewhere', pid: owner.pid } : { kind: 'forget' },
      { kind: 'retry-later', delayMs: BUSY_TASK_RETRY_MS },
    ];
  }
  // Moved or deleted by its author between the queue and the run: nothing failed, nothing to list.
  if (isWiggumError(error, 'E_TASK_NOT_FOUND') && !facts.fileExists) return [{ kind: 'forget' }, ...OFFER_AGAIN];
  // Tried again after daemon.failed_retry, not in a hot loop. A file the daemon may not read is the
  // user's to fix, not a failure of the daemon: said once, then tried again quietly.
  const every = elapsed(facts.failedRetryMs);
  const said: SettleAction[] = isWiggumError(error, 'E_TASK_UNREADABLE')
    ? facts.said.has('unreadable')
      ? []
      : [
          { kind: 'note-said', what: 'unreadable' },
          log('warn', 'task.unreadable', `${error.message} (every ${every})`, { err: error }),
        ]
    : [
        log(
          'error',
          'task.loop-failed',
          `the loop of ${facts.name} failed unexpectedly; it is tried again in ${every}`,
          { err: error },
        ),
      ];
  return [
    ...said,
    {
      kind: 'list-failing',
      reason: error instanceof Error ? error.message : 'an unknown failure',
      retryAtMs: facts.nowMs + facts.failedRetryMs,
    },
    { kind: 'retry-later', delayMs: facts.failedRetryMs },
  ];
}

function log(level: 'warn' | 'error', event: LogEvent, message: string, fields: Record<string, unknown>): SettleAction {
  return { kind: 'log', level, event, message, fields };
}
