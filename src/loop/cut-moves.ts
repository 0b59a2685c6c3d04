import { lstatSync, readdirSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { basename, join } from 'node:path';
import { readTaskFile } from '../task/read.js';
import { endedAs, finishHalfDoneMove, hasPendingMove, isBlocked } from './ending.js';
import { withKeptId } from '../memory/kept-id.js';
import type { EndingDeps } from './ending.js';

/**
 * Finishes the moves a crash cut between their link and their unlink. wiggum moves a task to
 * Done/ or Rejected/ by a hard link and then an unlink, so such a crash leaves one file under two
 * names: in Approved/ and in Done/ (or Rejected/). The vault scan never starts a file with another
 * hard link, so without this the Approved/ name would stay forever beside its Done/ twin. Only a
 * file whose state already says how it ended, and whose twin is in Done/ or Rejected/ under its own
 * name, is taken as wiggum's cut move; any other hard link is left alone. Run under the vault lock,
 * before the watcher starts. Returns the names whose move it finished.
 */
export async function finishCutMoves(deps: EndingDeps): Promise<string[]> {
  const finished: string[] = [];
  for (const name of listing(deps.layout.approved)) {
    if (!name.endsWith('.md')) continue;
    const file = join(deps.layout.approved, name);
    const stat = lstatOrNull(file);
    if (stat === null || !stat.isFile() || stat.nlink < 2) continue;
    if (
      !hasTwin(deps.layout.done, name, stat) &&
      !hasTwin(deps.layout.rejected, name, stat) &&
      !hasTwin(deps.layout.blocked, name, stat)
    )
      continue;
    const read = await readTaskFile(file).catch(() => null);
    if (read === null || !read.result.ok) continue;
    const kind = endedAs(read.result.task) ?? (isBlocked(read.result.task) ? 'blocked' : null);
    if (kind === null) continue;
    await finishHalfDoneMove(read.result.task, kind, deps);
    finished.push(name);
  }
  return [...finished, ...(await finishCutBlocks(deps))];
}

/**
 * Finishes the moves to Blocked/ that a crash cut between the checkpoint (`status: blocked` and the
 * question, written in Approved/) and the move: the `.ending` marker says the move was under way.
 * Without this such a file would wait in Approved/ for an answer nobody was asked for. Only run
 * when a marker exists, so a daemon start reads no task file in the common case.
 */
async function finishCutBlocks(deps: EndingDeps): Promise<string[]> {
  if (!listing(deps.layout.taskLocks).some((name) => name.endsWith('.ending'))) return [];
  const finished: string[] = [];
  for (const name of listing(deps.layout.approved)) {
    if (!name.endsWith('.md')) continue;
    const file = join(deps.layout.approved, name);
    const stat = lstatOrNull(file);
    if (stat === null || !stat.isFile() || stat.nlink !== 1) continue;
    const read = await readTaskFile(file).catch(() => null);
    if (read === null || !read.result.ok) continue;
    const task = withKeptId(read.result.task, deps.layout.sessions);
    if (!isBlocked(task) || !hasPendingMove(task.id, deps)) continue;
    await finishHalfDoneMove(task, 'blocked', deps);
    finished.push(name);
  }
  return finished;
}

/** `folder/<stem>.md` or `folder/<stem>-N.md` (a clash suffix) is the same file as `stat`. */
function hasTwin(folder: string, name: string, stat: Stats): boolean {
  const stem = basename(name, '.md');
  return listing(folder).some((candidate) => {
    if (candidate !== name && !(candidate.startsWith(`${stem}-`) && /^-\d+\.md$/.test(candidate.slice(stem.length))))
      return false;
    const twin = lstatOrNull(join(folder, candidate));
    return twin !== null && twin.ino === stat.ino && twin.dev === stat.dev;
  });
}

function listing(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}
