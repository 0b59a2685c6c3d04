import { existsSync } from 'node:fs';
import { lstat, readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { WiggumError } from '../errors.js';
import type { ErrorCode } from '../errors.js';
import { formatProblem } from '../problem.js';
import type { Problem } from '../problem.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import type { Task } from '../task/parse.js';
import type { PersistenceLoopData } from '../task/render.js';
import { appendSection } from '../task/render.js';
import { questionSection } from '../task/question-section.js';
import type { QuestionFacts } from '../task/question-section.js';
import type { TaskFileWrite } from '../task/update-file.js';
import type { TaskRunResult } from './events.js';
import type { StopReason } from './outcome.js';
import type { Ended } from './resume-plan.js';
import type { EndKind, RunPlaces, TaskFileHome } from './run-places.js';
import { completionSummary, failureReport, invalidTaskReport } from './reports.js';
import { writeCheckpoint } from './write-checkpoint.js';
import type { CheckpointDeps } from './write-checkpoint.js';
import { findMovedTaskFile } from './follow-file.js';
import type { FailureFacts, LoopFacts } from './reports.js';
import { plural } from '../plural.js';

/**
 * Every way a task's run ends, in one place: done, rejected (by the loop, before it could start,
 * or because the file is not valid), stopped or interrupted, and the move a crash left half done.
 * Each builds its report with reports.ts, writes it and the final keys into the file, moves the
 * file, and says what happened as a TaskRunResult.
 */

export interface EndingDeps extends CheckpointDeps {
  places: RunPlaces;
  /** Where the file goes when it ends (the host's port: run-host.ts). */
  taskFile: TaskFileHome;
}

/** The task file as the loop last wrote it: its path and text (the base for merging user edits). */
export interface LoopFile {
  taskId: string;
  file: string;
  lastText: string;
}

export type { EndKind } from './run-places.js';

/** How often a final write is retried while the user's edit does not parse (write-checkpoint.ts waits between). */
const CONFLICT_RETRIES = 5;

export async function finishDone(
  target: LoopFile,
  loop: PersistenceLoopData,
  facts: LoopFacts,
  deps: EndingDeps,
  tickChecklist = false,
  review = false,
): Promise<TaskRunResult> {
  const passing = facts.stories.filter((story) => story.passes).map((story) => story.id);
  // A task that needs review is checkpointed `review` (not `done`): only a person's approval ends it.
  const write = {
    keys: review
      ? { state: 'Review' as const, persistence_loop: { ...loop, status: 'review' as const } }
      : { state: 'Done' as const, persistence_loop: loop },
    section: completionSummary(facts),
    ...(tickChecklist ? { tick: passing } : {}),
  };
  const ended = await endTask(review ? 'review' : 'done', target, write, deps);
  if (ended === null) return notEnded('done', target, facts.iterations, deps);
  if (review) {
    deps.logger.info(
      { event: 'task.review', iterations: facts.iterations, file: ended },
      `complete after ${plural(facts.iterations, 'iteration')}: waiting for review in ${relative(deps.places.root, ended)} (move it to ${relative(deps.places.root, deps.taskFile.endFolder('done'))}/ or wiggum approve ${target.taskId} to approve; wiggum request-changes ${target.taskId} "…" to send it back)`,
    );
    return { status: 'done', review: true, taskId: target.taskId, file: ended, iterations: facts.iterations };
  }
  deps.logger.info(
    { event: 'task.done', iterations: facts.iterations, file: ended },
    `done after ${plural(facts.iterations, 'iteration')}`,
  );
  return { status: 'done', taskId: target.taskId, file: ended, iterations: facts.iterations };
}

/**
 * A task whose final state could not be written into its file (it no longer parses, or it kept
 * changing) stays in Approved/ and is never reported as done or rejected: its next run ends it.
 */
function notEnded(kind: EndKind, target: LoopFile, iterations: number, deps: EndingDeps): TaskRunResult {
  const reason = `the task ${kind === 'done' ? 'is complete' : kind === 'blocked' ? 'asked a question' : 'was rejected'}, but its file could not be updated, so it stays in ${relative(deps.places.root, target.file)}; fix the file (wiggum validate names the problem) and run it again to end it`;
  deps.logger.error({ event: 'task.not-ended', file: target.file }, reason);
  return { status: 'interrupted', taskId: target.taskId, file: target.file, iterations, reason };
}

export async function finishRejected(
  target: LoopFile,
  loop: PersistenceLoopData,
  failure: FailureFacts,
  deps: EndingDeps,
): Promise<TaskRunResult> {
  deps.logger.error(
    { event: 'task.rejected', code: failure.code, iterations: failure.iterations },
    `rejected: ${failure.reason}`,
  );
  const ended = await endTask(
    'rejected',
    target,
    { keys: { state: 'Rejected', persistence_loop: loop }, section: failureReport(failure) },
    deps,
  );
  if (ended === null) return notEnded('rejected', target, failure.iterations, deps);
  return {
    status: 'rejected',
    taskId: target.taskId,
    file: ended,
    iterations: failure.iterations,
    reason: failure.reason,
    code: failure.code,
  };
}

/**
 * Stopped by its flag, interrupted by a signal, or gone because the user moved or deleted the file.
 * The one place a run's stop is written, whichever host stopped it: `loop` is the checkpoint as it
 * stands, and its status is set here (`stopped` for the flag or a file moved elsewhere in the vault,
 * else `interrupted`). The checkpoint is written unless the file is gone; a file moved out of its
 * folder gets it where it went (found by its session). The memory is kept in every case.
 */
export async function finishStopped(
  target: LoopFile,
  loop: PersistenceLoopData | null,
  reason: StopReason,
  iterations: number,
  deps: EndingDeps,
): Promise<TaskRunResult> {
  const movedTo =
    reason === 'task-gone' && loop?.session !== undefined && !existsSync(target.file)
      ? await findMovedTaskFile(deps.places.root, target.file, loop.session)
      : null;
  const status = stoppedStatus(reason, movedTo);
  const keys = loop === null ? null : { ...loop, status };
  if (reason !== 'task-gone' && keys !== null)
    await writeCheckpoint(target.file, target.lastText, { keys: { state: 'Approved', persistence_loop: keys } }, deps);
  if (movedTo !== null && keys !== null) {
    // Its `state:` is left as it is: the folder it is in now says where it stands.
    const written = await writeCheckpoint(movedTo, target.lastText, { keys: { persistence_loop: keys } }, deps).catch(
      (error: unknown) => {
        deps.logger.warn(
          { event: 'task.final-status-unwritten', file: movedTo, err: error },
          `could not write the final status into ${relative(deps.places.root, movedTo)}; it may still say running`,
        );
        return null;
      },
    );
    deps.logger.info(
      { event: 'task.moved-away', iteration: iterations, reason, file: movedTo },
      `the task file was moved to ${relative(deps.places.root, movedTo)}: stopped${written === null ? '' : ' (status: stopped written there)'}, memory kept`,
    );
    return { status: stoppedStatus(reason), taskId: target.taskId, file: movedTo, iterations, reason };
  }
  deps.logger.info(
    { event: reason === 'task-gone' ? 'task.stopped' : `task.${status}`, iterations, reason },
    reason === 'task-gone'
      ? 'the task file was moved or deleted: stopped, memory kept'
      : `${status} after ${plural(iterations, 'iteration')}`,
  );
  return { status: stoppedStatus(reason), taskId: target.taskId, file: target.file, iterations, reason };
}

/**
 * A task whose agent asked a person: its question is appended below everything the user wrote,
 * `status: blocked` is checkpointed, and the file moves to Blocked/. Like an ending, the move is
 * marked first, so that a crash between the checkpoint and the move ends in Blocked/ after a
 * restart (run-task.ts, vault/cut-moves.ts) rather than in Approved/ with no answer.
 */
export async function finishBlocked(
  target: LoopFile,
  loop: PersistenceLoopData,
  question: QuestionFacts,
  deps: EndingDeps,
): Promise<TaskRunResult> {
  const ended = await endTask(
    'blocked',
    target,
    { keys: { state: 'Blocked', persistence_loop: loop }, section: questionSection(question) },
    deps,
  );
  if (ended === null) return notEnded('blocked', target, question.iteration - 1, deps);
  deps.logger.info(
    {
      event: 'task.blocked',
      iteration: question.iteration,
      question: question.text.slice(0, 200),
      questionLength: question.length,
      file: ended,
    },
    `blocked: the agent asked a person in iteration ${question.iteration} (not counted)${question.length > question.text.length ? `; the question was ${question.length} characters, longer than ${question.text.length}, and was cut to ${question.text.length}` : ''}; answer under ## Answer in ${relative(deps.places.root, ended)} and move it back to Approved/, or run wiggum answer ${target.taskId} "text"`,
  );
  return {
    status: 'blocked',
    taskId: target.taskId,
    file: ended,
    iterations: question.iteration - 1,
    reason: question.text,
  };
}

/** Whether a task's file says it waits for a person's answer (`status: blocked`). */
export function isBlocked(task: Task): boolean {
  return task.frontmatter.state === 'Blocked' || task.frontmatter.persistence_loop?.status === 'blocked';
}

/** Which way a task's file says its run ended, or null while it is still to run. */
export function endedAs(task: Task): Ended | null {
  const status = task.frontmatter.persistence_loop?.status;
  if (task.frontmatter.state === 'Done' || status === 'done') return 'done';
  if (task.frontmatter.state === 'Rejected' || status === 'rejected') return 'rejected';
  if (task.frontmatter.state === 'Review' || status === 'review') return 'review';
  return null;
}

/**
 * `.wiggum/locks/<id>.ending`: written before a task's final state, removed once it is moved. In
 * Approved/ with a final state, a task whose marker exists was cut short by a crash between the
 * write and the move (the move is finished); one without it was put back by hand (it runs again).
 * The marker is written durably: lost to a power cut while the final state survived, a completed
 * task would run once more.
 */
function pendingMoveMarker(deps: EndingDeps, taskId: string): string {
  return join(deps.places.taskLocks, `${taskId}.ending`);
}

export function hasPendingMove(taskId: string, deps: EndingDeps): boolean {
  return existsSync(pendingMoveMarker(deps, taskId));
}

/** Finishes the move of a task whose final state was written before a crash. */
export async function finishHalfDoneMove(task: Task, kind: EndKind, deps: EndingDeps): Promise<TaskRunResult> {
  const file = await moveToEnd(kind, task.file, deps);
  await rm(pendingMoveMarker(deps, task.id), { force: true });
  deps.logger.info({ event: 'task.move-finished' }, 'finished moving a task whose loop had already ended');
  const iterations = task.frontmatter.persistence_loop?.iteration ?? 0;
  if (kind === 'review') return { status: 'done', review: true, taskId: task.id, file, iterations };
  return { status: kind, taskId: task.id, file, iterations };
}

/**
 * A task file that cannot be parsed goes to Rejected/ with the user's text untouched: the report,
 * naming file, line and problem, is appended after it (to the raw bytes, if they are not even
 * text), never written over it.
 */
export async function rejectInvalid(
  file: string,
  text: string | null,
  problems: Problem[],
  deps: EndingDeps,
): Promise<TaskRunResult> {
  // A folder, named pipe or device is not a task anyone wrote: reading a pipe would wait forever,
  // and moving it is not wiggum's business.
  const stat = await lstat(file).catch(() => null);
  if (stat !== null && !stat.isFile()) {
    throw new WiggumError(
      'E_USAGE',
      `${file} is not a regular file (a folder, pipe or device), so it is not a task; wiggum leaves it alone`,
      { details: { file } },
    );
  }
  const report = invalidTaskReport(problems, new Date(deps.clock.now()).toISOString());
  if (text !== null) {
    await writeFileAtomic(file, appendSection(text, report, text.includes('\r\n') ? '\r\n' : '\n'));
  } else {
    const bytes = await readFile(file);
    await writeFileAtomic(file, Buffer.concat([bytes, Buffer.from(`\n\n${report}\n`)]));
  }
  deps.logger.error(
    { event: 'task.invalid', file, problems: problems.map(formatProblem) },
    'the task file is invalid: rejected without running',
  );
  const destination = await moveToEnd('rejected', file, deps);
  const code: ErrorCode = 'E_TASK_SCHEMA';
  return {
    status: 'rejected',
    taskId: null,
    file: destination,
    iterations: 0,
    reason: problems.map(formatProblem).join('; '),
    code,
  };
}

/**
 * Ends a task: the final state and report are written into the file in
 * place, then the file is renamed into Done/ or Rejected/. A crash between the two leaves a file in
 * Approved/ whose state already says Done or Rejected, and the next run only finishes the move.
 * Returns where the file is now, or null when its final state could not be written (it stays put).
 */
async function endTask(
  kind: EndKind,
  target: LoopFile,
  write: TaskFileWrite,
  deps: EndingDeps,
): Promise<string | null> {
  const marker = pendingMoveMarker(deps, target.taskId);
  await writeFileAtomic(marker, `${kind}\n`).catch((error: unknown) =>
    deps.logger.warn(
      { event: 'task.move-marker-unwritten', err: error },
      `could not write ${marker}; a crash before the move would leave the task in Approved/, where it would run again`,
    ),
  );
  const written = (await writeCheckpoint(target.file, target.lastText, write, deps, CONFLICT_RETRIES)) !== null;
  if (!written) {
    await rm(marker, { force: true });
    deps.logger.error(
      { event: 'task.report-unwritten', file: target.file },
      `the ${kind === 'rejected' ? 'failure report' : kind === 'blocked' ? 'question' : 'completion summary'} could not be written; the task stays where it is`,
    );
    return null;
  }
  const moved = await moveToEnd(kind, target.file, deps);
  await rm(marker, { force: true });
  return moved;
}

/** Moves a task whose final state is written into Done/, Rejected/, Review/ or Blocked/ (the host's move: run-host.ts). */
async function moveToEnd(kind: EndKind, file: string, deps: EndingDeps): Promise<string> {
  const destination = await deps.taskFile.moveToEnd(kind, file);
  deps.logger.info({ event: 'task.moved', file: destination }, `moved to ${relative(deps.places.root, destination)}`);
  return destination;
}

/** The status a stop leaves: `stopped` by its flag or by a move elsewhere in the vault, else `interrupted`. */
function stoppedStatus(reason: StopReason, movedTo: string | null = null): 'stopped' | 'interrupted' {
  return reason === 'stop-flag' || movedTo !== null ? 'stopped' : 'interrupted';
}
