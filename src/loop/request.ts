import type { Writable } from 'node:stream';
import type { WiggumConfig } from '../config/config.js';
import type { ProcessHost } from '../harness/process-host.js';
import type { Logger } from '../log/logger.js';
import type { Clock } from '../time/clock.js';
import type { VaultLayout } from '../vault/layout.js';
import type { WiggumError } from '../errors.js';
import type { IterationRecord } from '../memory/history.js';
import type { Task } from '../task/parse.js';
import type { TaskRunResult } from './events.js';
import type { PersistenceLoopData } from '../task/render.js';
import type { Endings } from './endings.js';
import type { LoopEvent } from './events.js';
import type { HarnessPauses } from './harness-pauses.js';
import type { RunOverrides } from './prepare.js';

export interface RunTaskDeps {
  config: WiggumConfig;
  layout: VaultLayout;
  clock: Clock;
  random: () => number;
  logger: Logger;
  /** wiggum's own environment, filtered for the harness. */
  env: NodeJS.ProcessEnv;
  /** Spawning, signals and the waits around them, beside the clock; the real ones by default. */
  processes?: ProcessHost;
  /** Harnesses waiting out a usage limit, shared by the tasks of one process (a fresh set by default). */
  pauses?: HarnessPauses;
  /** Work in the task's workdir itself rather than in a worktree of its own (`wiggum ralph`). */
  workInPlace?: boolean;
  /** How the run ends the task's file; the local endings by default (endings.ts). */
  endings?: Endings;
  /**
   * Awaited after each iteration's history line, before the loop acts on it: a worker commits,
   * pushes and sends the iteration to the vault host here. What it throws ends the run.
   */
  afterIteration?: (finished: FinishedIteration) => Promise<void>;
  /**
   * Runs a task that is ready to run (checked, not ended, not blocked) in place of the local loop:
   * the vault host's dispatch to workers (queue/host-run.ts). `reject` rejects it as a task that
   * cannot start.
   */
  engine?: TaskEngine;
}

export type TaskEngine = (
  task: Task,
  request: RunTaskRequest,
  deps: RunTaskDeps,
  reject: (error: WiggumError) => Promise<TaskRunResult>,
) => Promise<TaskRunResult>;

/** An iteration as the loop has just recorded it, and the checkpoint that counts it. */
export interface FinishedIteration {
  record: IterationRecord;
  checkpoint: PersistenceLoopData;
}

export interface RunTaskRequest {
  file: string;
  overrides?: RunOverrides;
  /** Live harness output; null for `--no-stream`. */
  stream: Writable | null;
  /** Aborted with a StopReason ('stop-flag', 'interrupted', 'task-gone') to stop the task at once. */
  signal: AbortSignal;
  /**
   * Aborted when a stop may wait no longer (the daemon's drain grace ran out): the agent's process
   * group is killed at once (SIGKILL) instead of being given the rest of `harness.stop_grace`.
   */
  kill?: AbortSignal;
  onEvent?: (event: LoopEvent) => void;
}
