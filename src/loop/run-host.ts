import type { WaitCause } from './decide.js';
import type { Endings } from './endings.js';
import type { IterationRecord } from '../memory/history.js';
import type { PersistenceLoopData } from '../task/render.js';
import type { RunPlaces, TaskFileHome } from './run-places.js';

export type { EndKind, RunPlaces, TaskFileHome } from './run-places.js';

/**
 * The ports a run talks to. The loop never addresses the vault, Redis or the daemon: each place a
 * run lives (the vault, for the daemon and `run`/`ralph`: `vault/run-host.ts`; a queue worker:
 * `queue/worker-host.ts`) implements these once, and one contract suite
 * (test/loop/run-contract.test.ts) runs the same scenarios against each.
 *
 * A run's stop and kill are the request's AbortSignals (request.ts), aborted with a StopReason:
 * they belong to one run, while a host serves every run of its process.
 */
export interface RunHost {
  /** Where a run keeps its session, locks, worktrees and workspaces. */
  places: RunPlaces;
  /** What the task file is: where it goes when its run ends, and which names are task files. */
  taskFile: TaskFileHome;
  /** How a run reports: the way it ends its file, and each iteration as soon as it is recorded. */
  reports: RunReports;
  /** Whether runs are held (the vault's STOP, a queue's hold): no iteration starts while they are. */
  signals: RunSignals;
  /** Usage-limit and outage pauses, keyed by account, shared by every run of the host. */
  pauses: PauseBoard;
}

/** How a run reports into its task file and to whoever follows it. */
export interface RunReports {
  /** The four ways a run ends its file (ending.ts). */
  endings: Endings;
  /**
   * Awaited after each iteration's history line, before the loop acts on it: a worker commits,
   * pushes and sends the iteration to the vault host here. What it throws ends the run.
   */
  iterationRecorded?: (finished: FinishedIteration) => Promise<void>;
}

/** An iteration as the loop has just recorded it, and the checkpoint that counts it. */
export interface FinishedIteration {
  record: IterationRecord;
  checkpoint: PersistenceLoopData;
}

export interface RunSignals {
  /** Whether no iteration may start now (`STOP` in the vault, the queue's hold). */
  held(): boolean;
}

/** A pause in force: until when, and why. */
export interface Pause {
  untilMs: number;
  why: WaitCause;
}

/**
 * What the runs of one host know about the agents' accounts. A usage limit and an outage belong to
 * an account (a harness's `account:`, else its name: `accountOf`), not to one task: every run on
 * the account waits with the one that met it.
 */
export interface PauseBoard {
  /** `account` is out of use until `untilMs` (epoch ms); a later pause wins over an earlier one. */
  pause(account: string, untilMs: number, why?: WaitCause): void;
  /** The pause of `account` in force at `nowMs`, or null. */
  pauseOf(account: string, nowMs: number): Pause | null;
  /** A run of `taskId` on `account` failed with a network or overload error. */
  failed(account: string, taskId: string): void;
  /** `account` answered a run (whatever the answer): its outage, if any, is over. */
  answered(account: string): void;
  /** `taskId` no longer runs: its failures say nothing about the account any more. */
  forget(account: string, taskId: string): void;
  /** Whether a task other than `taskId` is failing on `account` with network or overload errors. */
  othersFailing(account: string, taskId: string): boolean;
}
