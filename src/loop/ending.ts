import { readFile, rm } from 'node:fs/promises';
import { relative } from 'node:path';
import { isWiggumError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { formatProblem } from '../problem.js';
import type { Problem } from '../problem.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import { updateTaskFile } from '../task/update-file.js';
import type { TaskFileWrite } from '../task/update-file.js';
import { appendSection } from '../task/render.js';
import type { Clock } from '../time/clock.js';
import type { VaultLayout } from '../vault/layout.js';
import { stopFlagFor } from '../vault/layout.js';
import { moveWithoutClobber } from '../vault/move.js';
import type { TaskRunResult } from './events.js';
import { fence } from './reports.js';

export interface EndingDeps {
  layout: VaultLayout;
  logger: Logger;
  clock: Clock;
}

/** How often, and how far apart, a final write is retried while the user's edit does not parse. */
const CONFLICT_RETRIES = 5;
const CONFLICT_WAIT_MS = 1000;

/**
 * Writes a checkpoint, riding out a user edit that does not parse yet. Returns the new text, or null
 * when the file is gone or stays unparseable (the caller keeps going; the file is never overwritten).
 */
export async function writeCheckpoint(file: string, lastText: string, write: TaskFileWrite, deps: EndingDeps, retries = 0): Promise<string | null> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return (await updateTaskFile(file, lastText, write)).task.text;
    } catch (error) {
      if (isWiggumError(error, 'E_CHECKPOINT_CONFLICT') && attempt < retries) {
        await deps.clock.sleep(CONFLICT_WAIT_MS);
        continue;
      }
      if (isWiggumError(error, 'E_CHECKPOINT_CONFLICT') || isWiggumError(error, 'E_TASK_GONE')) {
        deps.logger.warn({ file, code: error.code }, error.message);
        return null;
      }
      throw error;
    }
  }
}

/**
 * Ends a task (SPEC.md "Ending a task"): the final state and report are written into the file in
 * place, then the file is renamed into Done/ or Rejected/. A crash between the two leaves a file in
 * Approved/ whose state already says Done or Rejected, and the next run only finishes the move.
 */
export async function endTask(
  kind: 'done' | 'rejected',
  file: string,
  lastText: string,
  write: TaskFileWrite,
  deps: EndingDeps,
): Promise<{ file: string; written: boolean }> {
  const written = (await writeCheckpoint(file, lastText, write, deps, CONFLICT_RETRIES)) !== null;
  if (!written) {
    deps.logger.error({ file }, `the ${kind === 'done' ? 'completion summary' : 'failure report'} could not be written; the task stays where it is`);
    return { file, written: false };
  }
  return { file: await moveToEnd(kind, file, deps), written: true };
}

/** Finishes a move whose state was already written (after a crash between the write and the move). */
export async function moveToEnd(kind: 'done' | 'rejected', file: string, deps: EndingDeps): Promise<string> {
  const destination = await moveWithoutClobber(file, kind === 'done' ? deps.layout.done : deps.layout.rejected);
  await rm(stopFlagFor(file), { force: true });
  deps.logger.info({ file: destination }, `moved to ${relative(deps.layout.root, destination)}`);
  return destination;
}

/**
 * A task file that cannot be parsed goes to Rejected/ with the user's text untouched: the report is
 * appended after it (to the raw bytes, if they are not even text), never written over it.
 */
export async function rejectMalformed(file: string, text: string | null, problems: Problem[], deps: EndingDeps): Promise<TaskRunResult> {
  const report = [
    '## Failure report',
    '',
    '- Reason: the task file is not valid, so no iteration was run (E_TASK_SCHEMA).',
    `- Rejected at ${new Date(deps.clock.now()).toISOString()}.`,
    '',
    '### Problems',
    '',
    fence(problems.map(formatProblem).join('\n')),
    '',
    '### What to do next',
    '',
    'Fix the problems above (`wiggum validate FILE` checks the file), delete this report, and move the file back to Approved/.',
  ].join('\n');
  if (text !== null) {
    await writeFileAtomic(file, appendSection(text, report, text.includes('\r\n') ? '\r\n' : '\n'));
  } else {
    const bytes = await readFile(file);
    await writeFileAtomic(file, Buffer.concat([bytes, Buffer.from(`\n\n${report}\n`)]));
  }
  deps.logger.error({ file, problems: problems.map(formatProblem) }, 'the task file is invalid: rejected without running');
  const destination = await moveToEnd('rejected', file, deps);
  return { status: 'rejected', taskId: null, file: destination, iterations: 0, reason: problems.map(formatProblem).join('; '), code: 'E_TASK_SCHEMA' };
}

export function stoppedStatus(reason: 'stop-flag' | 'interrupted' | 'task-gone'): 'stopped' | 'interrupted' {
  return reason === 'stop-flag' ? 'stopped' : 'interrupted';
}
