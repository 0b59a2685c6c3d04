import { isWiggumError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { withAddedStories } from '../memory/prd.js';
import type { Prd, UserStory } from '../memory/prd.js';
import type { MemoryStore } from '../memory/store.js';
import type { Task } from '../task/parse.js';
import { readTaskFileSync } from '../task/read.js';
import { storiesAddedDuring } from './late-stories.js';

/** What the loop keeps of its task file between iterations. */
export interface TaskFileView {
  body: string;
  /** The text last read or written: the base a checkpoint merges the user's edits onto. */
  text: string;
  prd: Prd | null;
  /** The file's own `max_iterations` when last read (null: absent), to see the user change it. */
  fileMax: number | null;
}

/**
 * Re-reads the task file before an iteration, so edits the user makes mid-loop reach the next
 * prompt. Returns the new view, the same view while the file does not parse (an edit in
 * progress), or null when the file is gone.
 */
export async function reloadTaskFile(
  file: string,
  view: TaskFileView,
  store: MemoryStore,
  log: Logger,
): Promise<TaskFileView | null> {
  let read;
  try {
    // Synchronous: a few KB read twice an iteration, where the four thread-pool round trips of an
    // async read (open, stat, read, close) cost more than the read (npm run bench: naive).
    read = readTaskFileSync(file, { ownedKeysReplaceable: true });
  } catch (error) {
    if (isWiggumError(error, 'E_TASK_NOT_FOUND')) return null;
    throw error;
  }
  if (!read.result.ok) {
    log.warn(
      { event: 'loop.task-unparsable', problems: read.result.problems.length },
      'the task file does not parse right now (an edit in progress?): using its last good body',
    );
    return view;
  }
  const task = read.result.task;
  return {
    body: task.body,
    text: task.text,
    prd: await takeInAddedStories(task, view.prd, store, log),
    fileMax: task.frontmatter.max_iterations ?? null,
  };
}

/**
 * The task file read again right after a run, before its outcome is decided: stories the user
 * added to the checklist while the agent worked are taken into prd.json and returned, so that a
 * completion claim made without them is refused (late-stories.ts). `view.prd` is prd.json as the
 * run left it. The file's `max_iterations` is left to the check before the next iteration.
 */
export async function storiesAddedDuringRun(
  file: string,
  view: TaskFileView & { prd: Prd },
  store: MemoryStore,
  log: Logger,
): Promise<{ view: TaskFileView; added: UserStory[] }> {
  const after = await reloadTaskFile(file, view, store, log);
  // A file gone meanwhile: the next iteration's check stops the loop.
  if (after === null) return { view, added: [] };
  const added = after.prd === null ? [] : storiesAddedDuring(view.prd, after.prd);
  return { view: { ...after, fileMax: view.fileMax }, added };
}

/**
 * Checklist items the user added to the body mid-loop become stories in prd.json, so the loop
 * works on them and the task is not done before they pass. A task with its own prd file (`prd:`)
 * keeps its stories there.
 */
async function takeInAddedStories(task: Task, prd: Prd | null, store: MemoryStore, log: Logger): Promise<Prd | null> {
  if (task.frontmatter.prd !== undefined || prd === null) return prd;
  // The loop's last view of prd.json answers the common case (nothing added) without a read.
  if (withAddedStories(prd, task.stories) === null) return prd;
  const current = await store.loadPrd();
  const updated = withAddedStories(current, task.stories);
  if (updated === null) return prd;
  await store.savePrd(updated);
  const added = updated.userStories.slice(current.userStories.length).map((story) => story.id);
  log.info(
    { event: 'loop.stories-added', stories: added },
    `took in ${added.length} stor${added.length === 1 ? 'y' : 'ies'} added to the task's checklist: ${added.join(', ')}`,
  );
  return updated;
}
