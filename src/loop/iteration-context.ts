import { recordHarness, recordHarnessMarker } from '../harness/pid-record.js';
import { systemProcessHost } from '../harness/process-host.js';
import type { Logger } from '../log/logger.js';
import type { Task } from '../task/parse.js';
import type { IterationContext } from './iteration.js';
import type { PreparedTask } from './prepare.js';
import type { RunTaskDeps, RunTaskRequest } from './request.js';

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
    store: prepared.session.store,
    config: deps.config,
    clock: deps.clock,
    processes: deps.processes ?? systemProcessHost,
    logger,
    env: deps.env,
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
