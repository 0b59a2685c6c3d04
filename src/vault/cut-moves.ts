import { lstatSync, readdirSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { basename, join } from 'node:path';
import { readTaskFile } from '../task/read.js';
import { endedAs, finishHalfDoneMove, hasPendingMove, isBlocked } from '../loop/ending.js';
import { withKeptId } from '../memory/kept-id.js';
import type { Logger } from '../log/logger.js';
import type { Clock } from '../time/clock.js';
import type { VaultLayout } from './layout.js';
import { vaultEndingDeps } from './run-host.js';
import type { EndingDeps } from '../loop/ending.js';

/**
 * Finishes the moves a crash cut between their link and their unlink. wiggum moves a task to
 * Done/ or Rejected/ by a hard link and then an unlink, so such a crash leaves one file under two
 * names: in Approved/ and in Done/ (or Rejected/). The vault scan never starts a file with another
 * hard link, so without this the Approved/ name would stay forever beside its Done/ twin. Only a
 * file whose state already says how it ended, and whose twin is in Done/ or Rejected/ under its own
 * name, is taken as wiggum's cut move; any other hard link is left alone. Run under the vault lock,
 * before the watcher starts. Returns the names whose move it finished.
 */
export async function finishCutMoves(options: {
  layout: VaultLayout;
  logger: Logger;
  clock: Clock;
}): Promise<string[]> {
  const { layout } = options;
  const deps = vaultEndingDeps(layout, options.logger, options.clock);
  const finished: string[] = [];
  for (const name of listing(layout.approved)) {
    if (!name.endsWith('.md')) continue;
    const file = join(layout.approved, name);
    const stat = lstatOrNull(file);
    if (stat === null || !stat.isFile() || stat.nlink < 2) continue;
    if (
      !hasTwin(layout.done, name, stat) &&
      !hasTwin(layout.rejected, name, stat) &&
      !hasTwin(layout.blocked, name, stat)
    )
      continue;
    const read = await readTaskFile(file).catch(() => null);
    if (read === null || !read.result.ok) continue;
    const kind = endedAs(read.result.task) ?? (isBlocked(read.result.task) ? 'blocked' : null);
    if (kind === null) continue;
    await finishHalfDoneMove(read.result.task, kind, deps);
    finished.push(name);
  }
  return [...finished, ...(await finishCutBlocks(layout, deps))];
}

/**
 * Finishes the moves to Blocked/ that a crash cut between the checkpoint (`status: blocked` and the
 * question, written in Approved/) and the move: the `.ending` marker says the move was under way.
 * Without this such a file would wait in Approved/ for an answer nobody was asked for. Only run
 * when a marker exists, so a daemon start reads no task file in the common case.
 */
async function finishCutBlocks(layout: VaultLayout, deps: EndingDeps): Promise<string[]> {
  if (!listing(layout.taskLocks).some((name) => name.endsWith('.ending'))) return [];
  const finished: string[] = [];
  for (const name of listing(layout.approved)) {
    if (!name.endsWith('.md')) continue;
    const file = join(layout.approved, name);
    const stat = lstatOrNull(file);
    if (stat === null || !stat.isFile() || stat.nlink !== 1) continue;
    const read = await readTaskFile(file).catch(() => null);
    if (read === null || !read.result.ok) continue;
    const task = withKeptId(read.result.task, layout.sessions);
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
