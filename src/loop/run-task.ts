import type { ErrorCode } from '../errors.js';
import { WiggumError, isWiggumError } from '../errors.js';
import { formatProblem } from '../problem.js';
import { checkTaskAgainstConfig } from '../task/check.js';
import type { Task } from '../task/parse.js';
import { readTaskFile } from '../task/read.js';
import { isoSeconds } from '../time/clock.js';
import { checkpointData, loopStateFromCheckpoint } from './checkpoint.js';
import { endTask, moveToEnd, rejectMalformed } from './ending.js';
import type { LoopEvent, TaskRunResult } from './events.js';
import { prepareTask } from './prepare.js';
import type { RunTaskDeps, RunTaskRequest } from './request.js';
import { TaskLoop } from './task-loop.js';
import type { PreparedTask } from './prepare.js';
import { failureReport } from './reports.js';

/**
 * Takes one task file through the persistence loop (SPEC.md "One iteration") until it is done,
 * rejected, stopped or interrupted, checkpointing after every iteration. Running it again on the
 * same file resumes from the checkpoint.
 */
export async function runTask(request: RunTaskRequest, deps: RunTaskDeps): Promise<TaskRunResult> {
  const { logger, layout } = deps;
  const endingDeps = { layout, logger, clock: deps.clock };
  const emit = (event: LoopEvent): void => request.onEvent?.(event);

  const read = await readTaskFile(request.file);
  if (!read.result.ok) {
    const result = await rejectMalformed(request.file, read.text, read.result.problems, endingDeps);
    emit({ type: 'ended', taskId: null, result });
    return result;
  }
  const task = read.result.task;
  const log = logger.child({ taskId: task.id });

  const half = halfDoneEnding(task);
  if (half !== null) {
    const file = await moveToEnd(half, task.file, endingDeps);
    log.info('finished moving a task whose loop had already ended');
    const result: TaskRunResult = { status: half, taskId: task.id, file, iterations: task.frontmatter.persistence_loop?.iteration ?? 0 };
    emit({ type: 'ended', taskId: task.id, result });
    return result;
  }

  const problems = await checkTaskAgainstConfig(task, deps.config, layout);
  let prepared: PreparedTask;
  try {
    if (problems.length > 0) throw new WiggumError('E_TASK_SCHEMA', problems.map(formatProblem).join('\n'), { details: { problems } });
    prepared = await prepareTask(task, request.overrides ?? {}, { ...deps, logger: log });
  } catch (error) {
    if (!isWiggumError(error)) throw error;
    const code = error.code;
    const message = error.message;
    log.error({ code }, `cannot start: ${message}`);
    const file = (await endTask('rejected', task.file, task.text, rejection(task, code, message, deps), endingDeps)).file;
    const result: TaskRunResult = { status: 'rejected', taskId: task.id, file, iterations: 0, reason: message, code };
    emit({ type: 'ended', taskId: task.id, result });
    return result;
  }

  const result = await new TaskLoop(task, prepared, request, deps).run();
  emit({ type: 'ended', taskId: task.id, result });
  return result;
}

/** A task whose file already says it ended: a crash came between the final write and the move. */
function halfDoneEnding(task: Task): 'done' | 'rejected' | null {
  const status = task.frontmatter.persistence_loop?.status;
  if (task.frontmatter.state === 'Done' || status === 'done') return 'done';
  if (task.frontmatter.state === 'Rejected' || status === 'rejected') return 'rejected';
  return null;
}

function rejection(task: Task, code: ErrorCode, message: string, deps: RunTaskDeps): Parameters<typeof endTask>[3] {
  const now = deps.clock.now();
  const loop = task.frontmatter.persistence_loop;
  const report = failureReport({
    taskId: task.id,
    harness: task.frontmatter.harness ?? deps.config.harness.defaultName,
    iterations: loop?.iteration ?? 0,
    maxIterations: task.frontmatter.max_iterations ?? deps.config.loop.maxIterations,
    startedAt: loop?.started ?? isoSeconds(now),
    endedAt: isoSeconds(now),
    activeMs: 0,
    stories: task.stories.map((story) => ({ id: story.id, title: story.title, passes: story.checked })),
    sessionDir: null,
    history: [],
    lastOutput: '',
    code,
    reason: message,
    failedIteration: (loop?.iteration ?? 0) + 1,
    errorDetail: message,
    checkpoint: { completed_steps: [], current_step: null },
    logFile: null,
  });
  const state = loopStateFromCheckpoint(loop, task.frontmatter.max_iterations ?? deps.config.loop.maxIterations);
  return {
    keys: {
      state: 'Rejected',
      persistence_loop: checkpointData({ state, status: 'rejected', session: loop?.session ?? 'none', started: loop?.started ?? isoSeconds(now), nowMs: now, completedSteps: [], currentStep: null, ended: true, exitReason: code }),
    },
    section: report,
  };
}
