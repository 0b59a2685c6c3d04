import { isAbsolute, resolve } from 'node:path';
import { gitOk } from './git.js';

/**
 * `git worktree add` and `remove` in one repository at the same time race: one reads the metadata
 * folder (`.git/worktrees/<name>/`) the other is half-way through writing and fails ("failed to
 * read .git/worktrees/x/commondir"). Seen with five landings at once. So every change to a
 * repository's worktree list goes through this queue, one at a time per repository (keyed by its
 * git common dir, the same for all its worktrees). Mutual exclusion, not first-come order (the key
 * is looked up first). In-process only: one daemon owns a vault.
 */
const tails = new Map<string, Promise<unknown>>();

export async function serialPerRepository<T>(repo: string, work: () => Promise<T>): Promise<T> {
  const key = await commonDir(repo);
  const previous = tails.get(key) ?? Promise.resolve();
  const run = previous.then(work, work);
  const tail = run.catch(() => undefined);
  tails.set(key, tail);
  try {
    return await run;
  } finally {
    if (tails.get(key) === tail) tails.delete(key);
  }
}

/** The repository's git common dir, absolute: one key for the user's copy and every worktree. */
export async function commonDir(repo: string): Promise<string> {
  const common = (
    await gitOk(repo, ['rev-parse', '--path-format=absolute', '--git-common-dir'], 'finding the repository')
  ).trim();
  return isAbsolute(common) ? common : resolve(repo, common);
}
