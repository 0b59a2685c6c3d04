import { relative } from 'node:path';
import type { WiggumConfig } from '../config/config.js';
import { archiveSession } from '../memory/archive.js';
import { updateTaskFile } from '../task/update-file.js';
import type { PersistenceLoopData } from '../task/render.js';
import type { Clock } from '../time/clock.js';
import { historyLength, sentBackLoop } from '../loop/send-back-loop.js';
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
