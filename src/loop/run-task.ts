import { WiggumError, isWiggumError } from '../errors.js';
import { describeErrorChain } from './error-chain.js';
import { formatProblem } from '../problem.js';
import { basename } from 'node:path';
import { checkTaskAgainstConfig } from '../task/check.js';
import { chooseHarness, noHarnessError } from '../task/harness-choice.js';
import type { Task } from '../task/parse.js';
import { readTaskFile } from '../task/read.js';
import { withKeptId } from '../memory/kept-id.js';
import { updateTaskFile } from '../task/update-file.js';
import { historyLength, sentBackLoop } from './send-back-loop.js';
import { isoSeconds } from '../time/clock.js';
import { NO_CHANGE_REQUEST_TEXT } from '../task/readiness.js';
import { changeRequestOf } from '../task/review.js';
import { checkpointData, loopStateFromCheckpoint } from './checkpoint.js';
import { endedAs, finishHalfDoneMove, finishStopped, hasPendingMove, isBlocked, rejectInvalid } from './ending.js';
import { answerState, unansweredText } from '../task/question-section.js';
import type { EndingDeps } from './ending.js';
import type { TaskRunResult } from './events.js';
import { closeEndedWorktree } from './close-worktree.js';
import { prepareTask } from './prepare.js';
import { sandboxRefusal } from './sandbox-gate.js';
import type { PreparedTask } from './prepare.js';
import { runMask } from './request.js';
import type { RunTaskDeps, RunTaskRequest } from './request.js';
import { isAgentReported } from './reports.js';
import { lockTask } from './task-lock.js';
import { startPlan } from './resume-plan.js';
import { runTaskLoop } from './task-loop.js';

/**
 * Takes one task file through the persistence loop, one iteration at a time, until it is done,
 * rejected, stopped or interrupted, checkpointing after every iteration. Running it again on the
 * same file resumes from the checkpoint. A task another process is running is refused with
 * E_LOCKED (thrown: nothing about the task changes).
 */
export async function runTask(request: RunTaskRequest, given: RunTaskDeps): Promise<TaskRunResult> {
  // One secret set for the whole run: built here when the caller has none (config/secret-values.ts).
  const deps = given.mask === undefined ? { ...given, mask: runMask(given) } : given;
  const result = await runTaskFile(request, deps);
  request.onEvent?.({ type: 'ended', taskId: result.taskId, result });
  return result;
}

async function runTaskFile(request: RunTaskRequest, deps: RunTaskDeps): Promise<TaskRunResult> {
  const endingDeps = endingDepsOf(deps, deps.logger);
  const first = await readTaskFile(request.file);
  // A note just created (nothing but white space) is never a task: not run, not rejected.
  if (first.text !== null && first.text.trim() === '')
    throw new WiggumError(
      'E_TASK_EMPTY',
      `${basename(request.file)} is empty: write the task (a title, \`harness: NAME\`, what to do), then it runs`,
    );
  if (!first.result.ok) return rejectInvalid(request.file, first.text, first.result.problems, endingDeps);
  const { id } = withKeptId(first.result.task, deps.host.places.sessions);
  const lock = await lockTask(deps.host.places.taskLocks, id, deps.logger);
  try {
    // Read again under the lock: a run that held it until now may have moved the checkpoint on.
    const read = await readTaskFile(request.file).catch((error: unknown) => {
      if (isWiggumError(error, 'E_TASK_NOT_FOUND')) return null;
      throw error;
    });
    if (read === null)
      return finishStopped(
        { taskId: id, file: request.file, lastText: first.text ?? '' },
        null,
        'task-gone',
        0,
        endingDeps,
      );
    if (!read.result.ok) return rejectInvalid(request.file, read.text, read.result.problems, endingDeps);
    return await runParsedTask(withKeptId(read.result.task, deps.host.places.sessions), request, deps);
  } finally {
    await lock?.release();
  }
}

async function runParsedTask(parsed: Task, request: RunTaskRequest, deps: RunTaskDeps): Promise<TaskRunResult> {
  let task = parsed;
  const log = deps.logger.child({ taskId: task.id });
  const endingDeps = endingDepsOf(deps, log);
  const parked = await fromBlocked(task, endingDeps);
  if (parked !== null) return parked;
  const ended = endedAs(task);
  const start = startPlan(ended, ended !== null && hasPendingMove(task.id, endingDeps));
  if (start.kind === 'finish-move') return finishHalfDoneMove(task, start.as, endingDeps);
  // No implicit agent: a task that names none, with no default configured, waits for its author.
  const harnessName = chooseHarness(
    request.overrides?.harness,
    task.frontmatter.harness,
    deps.config.harness.defaultName,
  );
  if (harnessName === null) throw noHarnessError(basename(task.file));
  // Fail closed: a run that must be confined and cannot be never starts; the task waits.
  const refusal = await sandboxRefusal(harnessName.name, deps.config, deps.env);
  if (refusal !== null) throw refusal;
  if (start.kind === 'send-back') task = await sendBack(task, start.from, deps, log);
  if (start.kind === 'review-returned') task = await sendBackWithChanges(task, deps, log);

  const reject = (error: WiggumError): Promise<TaskRunResult> => rejectBeforeStart(task, error, deps, endingDeps);
  try {
    const problems = await checkTaskAgainstConfig(task, deps.config, deps.host.places);
    if (problems.length > 0)
      throw new WiggumError('E_TASK_SCHEMA', problems.map(formatProblem).join('\n'), { details: { problems } });
  } catch (error) {
    if (!isWiggumError(error)) throw error;
    return reject(error);
  }
  // The run goes elsewhere (a worker, through the queue): everything before this point is the same.
  if (deps.engine !== undefined) return deps.engine(task, request, { ...deps, logger: log }, reject);
  let prepared: PreparedTask;
  try {
    prepared = await prepareTask(task, request.overrides ?? {}, { ...deps, places: deps.host.places, logger: log });
  } catch (error) {
    if (!isWiggumError(error)) throw error;
    return reject(error);
  }
  const result = await runTaskLoop(task, prepared, request, deps);
  await closeEndedWorktree(prepared.worktree, result, deps.config.git.keepWorktree, log);
  return result;
}

/** What the endings of a run need: its host's places and task file home, its log and clock. */
export function endingDepsOf(deps: RunTaskDeps, logger: RunTaskDeps['logger']): EndingDeps {
  return { places: deps.host.places, taskFile: deps.host.taskFile, logger, clock: deps.clock, mask: runMask(deps) };
}

/**
 * A task whose file says it is blocked (its agent asked a person): a crash cut its move to Blocked/
 * short (its marker is there: the move is finished), or the person moved it back. Answered, it
 * runs on, the next prompt carrying the question and the answer; without an answer it does not run
 * (E_TASK_UNANSWERED: the daemon lets it wait in Approved/ with the message, see readiness.ts).
 */
async function fromBlocked(task: Task, deps: EndingDeps): Promise<TaskRunResult | null> {
  if (!isBlocked(task)) return null;
  if (hasPendingMove(task.id, deps)) return finishHalfDoneMove(task, 'blocked', deps);
  const state = answerState(task.body);
  if (state.kind === 'none') return null;
  if (state.kind !== 'answered') {
    const message = `${basename(task.file)}: ${unansweredText(state)}`;
    deps.logger.warn({ event: 'task.unanswered', file: task.file, reason: state.kind }, message);
    throw new WiggumError('E_TASK_UNANSWERED', message);
  }
  deps.logger.info(
    { event: 'task.answered', question: state.question.slice(0, 200), answer: state.answer.slice(0, 200) },
    'the question was answered: the task runs on, with the question and the answer in its prompt',
  );
  return null;
}

/** A task that cannot start (unknown harness, workdir outside the allowed folders, …): rejected with no iteration run. */
function rejectBeforeStart(
  task: Task,
  error: WiggumError,
  deps: RunTaskDeps,
  endingDeps: EndingDeps,
): Promise<TaskRunResult> {
  const now = deps.clock.now();
  const loop = task.frontmatter.persistence_loop;
  const maxIterations = task.frontmatter.max_iterations ?? deps.config.loop.maxIterations;
  const started = loop?.started ?? isoSeconds(now);
  const state = loopStateFromCheckpoint(loop, maxIterations);
  const keys = checkpointData({
    state,
    status: 'rejected',
    session: loop?.session ?? 'none',
    started,
    nowMs: now,
    completedSteps: [],
    currentStep: null,
    ended: true,
    exitReason: error.code,
  });
  return deps.host.reports.endings.rejected(
    { taskId: task.id, file: task.file, lastText: task.text },
    keys,
    {
      taskId: task.id,
      harness: chooseHarness(undefined, task.frontmatter.harness, deps.config.harness.defaultName)?.name ?? 'none',
      iterations: loop?.iteration ?? 0,
      maxIterations,
      startedAt: started,
      endedAt: isoSeconds(now),
      activeMs: 0,
      spent: state.spent,
      stories: task.stories.map((story) => ({ id: story.id, title: story.title, passes: story.checked })),
      sessionDir: null,
      noMemoryYet: true,
      history: [],
      lastOutput: '',
      code: error.code,
      reason: error.message,
      failedIteration: (loop?.iteration ?? 0) + 1,
      errorDetail: error.message,
      errorChain: isAgentReported(error.code) ? null : describeErrorChain(error, runMask(deps).values),
      checkpoint: { completed_steps: [], current_step: null },
      logFile: null,
    },
    endingDeps,
  );
}

/**
 * A task that waited for review, moved back into Approved/ with a change request: it goes back to
 * the loop as `wiggum retry` would send it (the same memory; a fresh iteration and time budget,
 * since the request is new work and the old budget was spent on the work reviewed). The request
 * stays in the file, so every prompt of the new run carries it, and the new run must claim
 * completion again before it returns to Review/. Without a request it is not run (E_TASK_EMPTY:
 * the daemon's scan keeps it waiting, saying what to do).
 */
async function sendBackWithChanges(task: Task, deps: RunTaskDeps, log: RunTaskDeps['logger']): Promise<Task> {
  const request = changeRequestOf(task.body);
  if (request === null) throw new WiggumError('E_TASK_EMPTY', `${basename(task.file)}: ${NO_CHANGE_REQUEST_TEXT}`);
  log.info(
    { event: 'task.changes-requested', request },
    `changes requested after review: it runs again with the request (${request.length > 80 ? `${request.slice(0, 77)}…` : request})`,
  );
  const loop = sentBackLoop(task, deps.config, await historyLength(deps.host.places.sessions, task.id));
  const sent = (await updateTaskFile(task.file, task.text, { keys: { state: 'Approved', persistence_loop: loop } }))
    .task;
  return { ...sent, id: task.id };
}

/**
 * A Done or Rejected task that someone moved back into Approved/ by hand: run again as `wiggum
 * retry` would send it (fresh budgets, the same memory, the old report or summary kept in the
 * file), never re-rejected or re-archived for the state it still carries.
 */
async function sendBack(
  task: Task,
  ended: 'done' | 'rejected',
  deps: RunTaskDeps,
  log: RunTaskDeps['logger'],
): Promise<Task> {
  log.info(
    { event: 'task.sent-back' },
    `the task was moved back into Approved/ after it was ${ended === 'done' ? 'done' : 'rejected'}: it runs again, as wiggum retry would send it`,
  );
  const loop = sentBackLoop(task, deps.config, await historyLength(deps.host.places.sessions, task.id));
  const sent = (await updateTaskFile(task.file, task.text, { keys: { state: 'Approved', persistence_loop: loop } }))
    .task;
  // The file read back derives its id again; the run keeps the one chosen for it (withKeptId).
  return { ...sent, id: task.id };
}
