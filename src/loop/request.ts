import type { Writable } from 'node:stream';
import type { WiggumConfig } from '../config/config.js';
import type { ProcessHost } from '../harness/process-host.js';
import type { Logger } from '../log/logger.js';
import type { Clock } from '../time/clock.js';
import type { VaultLayout } from '../vault/layout.js';
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
