import { relative } from 'node:path';
import { WiggumError } from '../errors.js';
import { answerSection, answerState } from '../task/question-section.js';
import { unansweredReasonOf } from '../task/readiness.js';
import { updateTaskFile } from '../task/update-file.js';
import { findTaskIn, folderName } from './find-task.js';
import type { VaultLayout } from './layout.js';
import { moveWithoutClobber } from './move.js';

export interface AnswerResult {
  id: string;
  /** Where the file was, and where it is now (Approved/ when it was moved back). */
  from: string;
  to: string;
}

/**
 * `wiggum answer ID TEXT`: writes TEXT under `## Answer` at the end of a blocked task (in Blocked/,
 * or moved back to Approved/ unanswered) and moves it back to Approved/, where the daemon runs it on
 * with the question and the answer in its prompt. A task that asks nothing is refused: an answer
 * to no question would be read by no one.
 */
export async function answerTask(ref: string, text: string, layout: VaultLayout): Promise<AnswerResult> {
  if (text.trim() === '')
    throw new WiggumError(
      'E_USAGE',
      'the answer is empty: give it as the second argument, e.g. wiggum answer ID "Use SQLite"',
    );
  const found = await findTaskIn(ref, layout, ['blocked', 'approved']);
  const task = found.task;
  const shown = relative(layout.root, found.file);
  if (task === null)
    throw new WiggumError('E_USAGE', `${shown} does not parse as a task: wiggum validate "${shown}" says why`);
  const state = answerState(task.body);
  const waiting = found.folder === layout.blocked || unansweredReasonOf(task) !== null;
  if (state.kind === 'none' || !waiting)
    throw new WiggumError(
      'E_USAGE',
      `${shown} is not waiting for an answer (${state.kind === 'none' ? 'it has no ## Question' : 'its last question is answered already'}); edit its ## Answer by hand to change it`,
    );
  await updateTaskFile(task.file, task.text, { keys: {}, section: answerSection(text) });
  const to = found.folder === layout.blocked ? await moveWithoutClobber(task.file, layout.approved) : task.file;
  return { id: task.id, from: found.file, to };
}

/** What `wiggum answer` prints. */
export function answeredText(result: AnswerResult, layout: VaultLayout): string {
  const moved = result.from === result.to ? '' : ` → ${relative(layout.root, result.to)}`;
  return `${result.id}: answered in ${relative(layout.root, result.from)}${moved}; it runs on with the question and the answer in its prompt (from ${folderName(layout, 'approved')})\n`;
}
