import type { Writable } from 'node:stream';
import type { WiggumConfig } from '../config/config.js';
import type { ProcessHost } from '../harness/process-host.js';
import type { Logger } from '../log/logger.js';
import type { SecretMask } from '../secret-mask.js';
import { secretMaskOf } from '../config/secret-values.js';
import type { Clock } from '../time/clock.js';
import type { WiggumError } from '../errors.js';
import type { Task } from '../task/parse.js';
import type { TaskRunResult } from './events.js';
import type { LoopEvent } from './events.js';
import type { RunOverrides } from './prepare.js';
import type { RunHost } from './run-host.js';

export interface RunTaskDeps {
  config: WiggumConfig;
  /** Where the run lives: its places, its task file's home, its reports, holds and pauses (run-host.ts). */
  host: RunHost;
  clock: Clock;
  random: () => number;
  logger: Logger;
  /** wiggum's own environment, filtered for the harness. */
  env: NodeJS.ProcessEnv;
  /**
   * The secret values hidden in everything the run derives from its agent and writes for people
   * (output, log, reports, frontmatter, history); absent: built from `config` and `env` when the
   * run starts (config/secret-values.ts), the HTTP token included.
   */
  mask?: SecretMask;
  /** Spawning, signals and the waits around them, beside the clock; the real ones by default. */
  processes?: ProcessHost;
  /** Work in the task's workdir itself rather than in a worktree of its own (`wiggum ralph`). */
  workInPlace?: boolean;
  /**
   * Runs a task that is ready to run (checked, not ended, not blocked) in place of the local loop:
   * the vault host's dispatch to workers (queue/host-run.ts). `reject` rejects it as a task that
   * cannot start.
   */
  engine?: TaskEngine;
}

/** The run's secret mask: the one it was given, else one built from its config and environment. */
export function runMask(deps: RunTaskDeps): SecretMask {
  return deps.mask ?? secretMaskOf(deps.config, deps.env, deps.host.places.state);
}

export type TaskEngine = (
  task: Task,
  request: RunTaskRequest,
  deps: RunTaskDeps,
  reject: (error: WiggumError) => Promise<TaskRunResult>,
) => Promise<TaskRunResult>;

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
