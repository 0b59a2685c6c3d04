import { recordHarness, recordHarnessMarker } from '../harness/pid-record.js';
import { systemProcessHost } from '../harness/process-host.js';
import type { Logger } from '../log/logger.js';
import type { SecretMask } from '../secret-mask.js';
import type { Task } from '../task/parse.js';
import type { Writable } from 'node:stream';
import type { Budget, CheckDefinition, HarnessDefinition, WiggumConfig } from '../config/config.js';
import type { GitState } from '../git/changes.js';
import type { HarnessDriver } from '../harness/drivers/driver.js';
import type { ProcessHost } from '../harness/process-host.js';
import type { IterationRecord } from '../memory/history.js';
import type { Prd } from '../memory/prd.js';
import type { MemoryStore } from '../memory/store.js';
import type { Clock } from '../time/clock.js';
import type { IterationOutcome } from './outcome.js';
import type { PreparedTask, PreparedWorktree } from './prepare.js';
import type { RunPlaces } from './run-places.js';
import { runMask } from './request.js';
import type { RunTaskDeps, RunTaskRequest } from './request.js';

/** Everything about a task that stays fixed while its loop runs. */
export interface IterationContext {
  taskId: string;
  taskFile: string;
  title: string;
  workdir: string;
  harness: HarnessDefinition;
  driver: HarnessDriver;
  promise: string;
  verify: CheckDefinition | null;
  /** The task's budgets: a run is stopped when it would cross max_duration. */
  budget: Budget;
  branch: string | null;
  /** The workdir is a git repository and git is enabled. */
  git: boolean;
  /** The workdir is wiggum's own worktree of the task: its index is wiggum's to refresh (git.ts GitOptions). */
  ownWorktree: boolean;
  /** wiggum's own worktree of the task, for a confined agent's git mounts; null: none. */
  worktree: PreparedWorktree | null;
  store: MemoryStore;
  /** The run's places: the vault (hidden from a confined agent) and wiggum's folder (private homes, run folders). */
  places: RunPlaces;
  config: WiggumConfig;
  clock: Clock;
  /** Spawning, signals and their waits, beside the clock. */
  processes: ProcessHost;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** Secret values hidden from the harness's output and everything derived from it. */
  mask: SecretMask;
  /** Live output goes here (`--no-stream`: null). */
  stream: Writable | null;
  /** Aborted with a StopReason to stop the harness at once. */
  signal: AbortSignal;
  /** Aborted to kill the harness's process group now (SIGKILL), without the rest of its stop grace. */
  kill?: AbortSignal;
  /**
   * Called with the harness pid and the run's marker right after spawn, so that a crash of wiggum
   * can be followed by killing its group and the background jobs that left it.
   */
  onSpawn: (pid: number, marker: string) => void;
  /** The run's marker just before spawn (see ProcessSpec.onMarker). */
  onMarker: (marker: string) => void;
}

export interface IterationRun {
  outcome: IterationOutcome;
  /** The repository after the run, which the next iteration can start from. */
  gitState: GitState | null;
  /** The history line, without the decision's `action` and `nextState`, which the caller adds. */
  record: Omit<IterationRecord, 'action' | 'nextState'>;
  prd: Prd;
  /** The last lines of output as displayed, for reports. */
  outputTail: string;
  stderrTail: string;
}

/** What every iteration of one task's run shares, from the task, its preparation and the run's request. */
export function iterationContext(
  task: Task,
  prepared: PreparedTask,
  request: RunTaskRequest,
  deps: RunTaskDeps,
  logger: Logger,
): IterationContext {
  const record = prepared.harnessRecord;
  return {
    taskId: task.id,
    taskFile: task.file,
    title: task.frontmatter.title ?? task.id,
    workdir: prepared.workdir,
    harness: prepared.harness,
    driver: prepared.driver,
    promise: prepared.promise,
    verify: prepared.verify,
    budget: prepared.loop.budget,
    branch: prepared.branch,
    git: prepared.git,
    ownWorktree: prepared.worktree !== null,
    worktree: prepared.worktree,
    store: prepared.session.store,
    places: deps.host.places,
    config: deps.config,
    clock: deps.clock,
    processes: deps.processes ?? systemProcessHost,
    logger,
    env: deps.env,
    mask: runMask(deps),
    stream: request.stream,
    signal: request.signal,
    ...(request.kill === undefined ? {} : { kill: request.kill }),
    // The harness's pid and marker are kept in the session, so a crashed wiggum's agent is found and killed.
    onMarker: (marker) => {
      if (record !== null) recordHarnessMarker(record, marker);
    },
    onSpawn: (pid, marker) => {
      if (record !== null) void recordHarness(record, pid, marker).catch(() => undefined);
    },
  };
}
