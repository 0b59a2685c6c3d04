import type { StopReason } from '../loop/outcome.js';

/** One task waiting for, or holding, a slot. */
export interface Job {
  id: string;
  /** The task's file name in Approved/ (the watcher's key). */
  name: string;
  file: string;
  /**
   * Tasks with the same key never run at the same time (`claimFor`, admission.ts): the repository
   * and branch of a task in a git repository, else its workdir.
   */
  key: string;
  /** The repository (git's common dir) a task works in, for `git.max_parallel_per_repo`; null outside one. */
  repository: string | null;
  /** Lower runs sooner (priority 1 before 2); equal priorities run first come, first served. */
  priority: number;
  enqueuedAtMs: number;
  /** The session its checkpoint names, if it has run before: it identifies the task across a rename. */
  session?: string;
}

/** Runs one job; `signal` aborts with a `StopReason` ('stop-flag', 'interrupted', 'task-gone'). */
export type RunJob = (job: Job, signal: AbortSignal) => Promise<void>;

/** Called once per job that was run (or dropped while queued): `error` is null when `runJob` resolved. */
export type JobSettled = (job: Job, error: unknown) => void;

/**
 * What the daemon needs of a queue. The in-process one (`Scheduler`, on p-queue) is the default;
 * one on Redis (BullMQ) can sit behind the same interface for several hosts, with the vault host
 * staying the single writer of task files: the queue only decides when a job runs.
 */
export interface TaskQueue {
  /** Adds a job unless its task is already queued or running; returns whether it was added. */
  add(job: Job): boolean;
  /** Stops a task: a queued one is dropped, a running one is aborted with `reason`. */
  stop(id: string, reason: StopReason): boolean;
  /** Stops every task (drain). */
  stopAll(reason: StopReason): void;
  /** While paused nothing new starts; running jobs go on. */
  pause(): void;
  resume(): void;
  concurrency: number;
  byName(name: string): Job | undefined;
  running(): Job[];
  /** Queued and parked jobs, in the order they would start. */
  waiting(): Job[];
  /** Resolves when nothing is queued, parked or running. */
  idle(): Promise<void>;
}

export type TaskQueueFactory = (
  concurrency: number,
  runJob: RunJob,
  onSettled: JobSettled,
  options: { maxPerRepo: number | null },
) => TaskQueue;
