import { relative } from 'node:path';
import { WiggumError } from '../errors.js';
import type { Task } from '../task/parse.js';
import { readTaskFile } from '../task/read.js';
import { changesSection } from '../task/review.js';
import { updateTaskFile } from '../task/update-file.js';
import type { PersistenceLoopData } from '../task/render.js';
import { findTaskIn, folderName } from './find-task.js';
import type { FoundTask, VaultFolder } from './find-task.js';
import type { VaultLayout } from './layout.js';
import { moveWithoutClobber } from './move.js';

/**
 * A person's answer to a task waiting in Review/: approve it (to Done/) or ask for changes (back to
 * Approved/, with the request written under `## Changes requested`). The daemon does the rest: it
 * marks a task moved to Done/ approved (`markApproved`), and sends one moved back to the loop.
 */

export interface ReviewMove {
  id: string;
  from: string;
  to: string;
}

/**
 * `wiggum approve ID`: Review/ → Done/. The file is moved first, then marked: a crash between the
 * two leaves a task in Done/ still saying Review, which the daemon marks approved when it sees it
 * (as it does a file a person moved by hand), never a file in Review/ that says Done.
 */
export async function approveTask(ref: string, layout: VaultLayout): Promise<ReviewMove> {
  const found = await inReview(ref, layout, 'approve');
  const to = await moveWithoutClobber(found.file, layout.done);
  const moved = await readTaskFile(to);
  if (moved.result.ok) await markApproved(moved.result.task);
  return { id: found.id, from: found.file, to };
}

/**
 * `wiggum request-changes ID TEXT`: appends TEXT under `## Changes requested` and moves the file
 * back to Approved/, where the daemon runs it again with the request in every prompt.
 */
export async function requestChanges(ref: string, text: string, layout: VaultLayout): Promise<ReviewMove> {
  if (text.trim() === '')
    throw new WiggumError(
      'E_USAGE',
      'the change request is empty: say what to change, e.g. wiggum request-changes ID "Add a test for the toggle."',
    );
  const found = await inReview(ref, layout, 'request-changes');
  if (found.task === null)
    throw new WiggumError(
      'E_USAGE',
      `${relative(layout.root, found.file)} does not parse, so no request can be written into it: fix it (wiggum validate names the problem), then try again`,
    );
  await updateTaskFile(found.task.file, found.task.text, { keys: {}, section: changesSection(text) });
  const to = await moveWithoutClobber(found.file, layout.approved);
  return { id: found.id, from: found.file, to };
}

/** Writes a task's approval into its file in Done/: state Done, its loop `done`. */
export async function markApproved(task: Task): Promise<void> {
  const previous = task.frontmatter.persistence_loop;
  const loop: PersistenceLoopData | undefined =
    previous === undefined ? undefined : { ...(previous as PersistenceLoopData), status: 'done' };
  await updateTaskFile(task.file, task.text, {
    keys: { state: 'Done', ...(loop === undefined ? {} : { persistence_loop: loop }) },
  });
}

/** Whether a task in Done/ still says it waits for review: moved there by a person, not yet marked. */
export function awaitsApprovalMark(task: Task): boolean {
  return task.frontmatter.state === 'Review' || task.frontmatter.persistence_loop?.status === 'review';
}

function inReview(ref: string, layout: VaultLayout, verb: string): Promise<FoundTask> {
  return findTaskIn(ref, layout, ['review'], (found: FoundTask, folder: VaultFolder) => {
    const file = relative(layout.root, found.file);
    return `${file} is in ${folderName(layout, folder)}, not ${folderName(layout, 'review')}: only a task waiting for review can be given to ${verb}`;
  });
}
