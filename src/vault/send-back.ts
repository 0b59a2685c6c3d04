import { relative } from 'node:path';
import type { WiggumConfig } from '../config/config.js';
import { archiveSession } from '../memory/archive.js';
import { readHistoryFile } from '../memory/history.js';
import { sessionPaths } from '../memory/paths.js';
import type { Task } from '../task/parse.js';
import { updateTaskFile } from '../task/update-file.js';
import type { PersistenceLoopData } from '../task/render.js';
import type { Clock } from '../time/clock.js';
import { findTaskIn, folderName } from './find-task.js';
import type { VaultLayout } from './layout.js';
import { moveWithoutClobber } from './move.js';

export interface SendBackResult {
  id: string;
  from: string;
  to: string;
  /** With --fresh: where the old session memory went. */
  archivedTo: string | null;
  /** The file did not parse: it went back as it was, to be fixed before it can run. */
  unparsed: boolean;
}

/**
 * `wiggum retry ID`: a Rejected or Done task goes back to Approved/. It keeps its session memory
 * (prd.json, progress.txt, git) and resumes from it with a fresh iteration budget and time budget;
 * `--fresh` archives the memory and forgets the checkpoint, so it starts over. Its failure report
 * (or completion summary) stays in the file, where the next iterations can read it. `ref` is the
 * id, the file name or the path. A file that does not parse (found by its name) goes back
 * untouched, since no key can be written into frontmatter that does not parse.
 */
export async function sendTaskBack(
  ref: string,
  layout: VaultLayout,
  config: WiggumConfig,
  options: { fresh: boolean; clock: Clock },
): Promise<SendBackResult> {
  const found = await findTaskIn(
    ref,
    layout,
    ['rejected', 'done'],
    (other) =>
      `${relative(layout.root, other.file)} is in ${folderName(layout, 'approved')} already: it runs (or waits its turn) without a retry (wiggum status ${other.id} shows where it stands)`,
  );
  const task = found.task;
  if (task === null) {
    const archivedTo = options.fresh
      ? await archiveSession({
          sessionsRoot: layout.sessions,
          archiveRoot: layout.archive,
          taskId: found.id,
          clock: options.clock,
        })
      : null;
    const to = await moveWithoutClobber(found.file, layout.approved);
    return { id: found.id, from: found.file, to, archivedTo, unparsed: true };
  }
  let archivedTo: string | null = null;
  let loop: PersistenceLoopData | null = null;
  if (options.fresh) {
    archivedTo = await archiveSession({
      sessionsRoot: layout.sessions,
      archiveRoot: layout.archive,
      taskId: task.id,
      clock: options.clock,
    });
  } else {
    loop = sentBackLoop(task, config, await historyLength(layout.sessions, task.id));
  }
  await updateTaskFile(task.file, task.text, { keys: { state: 'Approved', persistence_loop: loop } });
  const to = await moveWithoutClobber(task.file, layout.approved);
  return { id: task.id, from: task.file, to, archivedTo, unparsed: false };
}

/**
 * The checkpoint of a task sent back for another run: the same session (so the agent resumes from
 * its memory) with fresh budgets, since a task rejected for max_iterations or time would otherwise
 * be rejected again at once.
 */
export function sentBackLoop(task: Task, config: WiggumConfig, historyBase: number): PersistenceLoopData {
  const previous = task.frontmatter.persistence_loop;
  return {
    status: 'queued',
    ...(previous?.session === undefined ? {} : { session: previous.session }),
    ...(previous?.started === undefined ? {} : { started: previous.started }),
    iteration: 0,
    max_iterations: task.frontmatter.max_iterations ?? config.loop.maxIterations,
    checkpoint: {
      completed_steps: previous?.checkpoint?.completed_steps ?? [],
      current_step: previous?.checkpoint?.current_step ?? null,
      // The new run numbers its iterations from 1 again: the earlier run's history lines are not its own.
      ...(historyBase > 0 ? { state_data: { history_base: historyBase } } : {}),
    },
  };
}

/** How many iterations the task's session has recorded (0 without a session, or if it cannot be read). */
export async function historyLength(sessionsRoot: string, taskId: string): Promise<number> {
  return (await readHistoryFile(sessionPaths(sessionsRoot, taskId).history).catch(() => [])).length;
}
