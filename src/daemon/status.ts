import type { SandboxStatus } from '../sandbox/decision.js';
import type { TaskRunResult } from '../loop/events.js';
import type { WaitReason } from '../task/readiness.js';
import type { LinkRefusal } from '../vault/links.js';
import type { NotifierStatus } from '../notify/sender.js';
import type { WorkerHealth } from '../queue/worker-registry.js';

export type Lifecycle = 'starting' | 'running' | 'draining' | 'stopped';

/** One task the daemon knows about, as `wiggum status` and Dashboard.md show it. */
export interface TaskEntry {
  id: string;
  name: string;
  file: string;
  /** What the daemon does with it; `review-slot`: not started while review.max_pending tasks wait in Review/. */
  phase: 'queued' | 'running' | 'waiting' | 'held' | 'review-slot' | 'stopped';
  harness?: string;
  /** The worktree the task works in and its branch (a task in a repository). */
  worktree?: { path: string; branch: string };
  /** Iterations finished, as the task's checkpoint says (src/task/iteration-count.ts): the one count. */
  iteration?: number;
  maxIterations?: number;
  /** The iteration running now (`iteration + 1`); absent between iterations. */
  current?: number;
  attempt?: number;
  step?: string | null;
  /** When the current iteration (or wait) began / ends. */
  sinceMs: number;
  untilMs?: number;
  /** What a waiting task waits for: a retry's backoff, its harness's usage limit to reset, or its harness to answer again. */
  waitingFor?: 'retry' | 'usage-limit' | 'outage' | 'landing';
  /** Why it waits, in words, when the kind alone does not say (a landing that waits for the user's copy). */
  waitingReason?: string;
  /**
   * Its harness does not answer (network, overload): since when this task has waited on it. Kept
   * while the task probes the harness, until a run gets an answer: the task is waiting on an
   * outage, not failing.
   */
  outage?: { harness: string; sinceMs: number };
  taskStartedMs?: number;
  lastOutcome?: string;
  durable?: boolean;
  /** Another process runs it: a foreground `wiggum run` (or `ralph`) holding its task lock. */
  foreground?: { pid: number };
  /** The daemon's last attempt to run it failed before the loop could (the disk full, …): why, and when it tries again. */
  failure?: { message: string; retryAtMs: number };
  /** The `wiggum worker` that runs it (scale-out): absent when it runs here, or no worker holds it. */
  worker?: TaskWorker;
}

/** A `wiggum worker` as a task names it: its id (the key of `DaemonStatus.workers`) and where it is. */
export interface TaskWorker {
  id: string;
  host: string;
  pid: number;
}

/** One `wiggum worker` as the vault host last read it from Redis (src/queue/worker-registry.ts). */
export interface WorkerStatus {
  id: string;
  host: string;
  pid: number;
  health: WorkerHealth;
  concurrency: number;
  /** The ids of the tasks it runs. */
  running: string[];
  /** When it last published, by its own clock. */
  seenAtMs: number;
  startedAtMs: number;
  /** The harnesses it runs; null: every harness its config names. */
  harnesses: string[] | null;
}

/**
 * A file in Approved/ that does not run until its author fixes it (empty, names no harness, a link),
 * or that the order of work holds (`reason` an object: src/task/order.ts `OrderWait`).
 */
export interface AuthorWait {
  name: string;
  file: string;
  /** `being-written`: its author is writing it in place. */
  reason: WaitReason | LinkRefusal | 'being-written';
  /** What is wrong and how to fix it, for status and the Dashboard. */
  message: string;
}

export interface FinishedEntry {
  id: string | null;
  status: TaskRunResult['status'];
  file: string;
  iterations: number;
  reason?: string;
  atMs: number;
}

/** The daemon's live picture, written to `.wiggum/status.json` for `wiggum status`. */
export interface DaemonStatus {
  version: 1;
  pid: number;
  vault: string;
  startedAtMs: number;
  updatedAtMs: number;
  lifecycle: Lifecycle;
  /** The vault's STOP file exists: nothing new starts, running tasks hold. */
  held: boolean;
  concurrency: number;
  tasks: TaskEntry[];
  /** Files that wait for their author (absent in a status file of an older wiggum). */
  waitingForAuthor?: AuthorWait[];
  recent: FinishedEntry[];
  /** The notifiers (`notify:`) and how their deliveries go (absent: none configured, or an older wiggum). */
  notifiers?: NotifierStatus[];
  /** The `wiggum worker` processes, by id (absent: the daemon does not run tasks through a queue, or an older wiggum). */
  workers?: Record<string, WorkerStatus>;
  /** How the vault's agents run: confined, or not and why (absent: an older wiggum). */
  sandbox?: SandboxStatus;
}

/** How many finished tasks the status (and Dashboard.md) lists. */
export const RECENT = 20;
