import { join } from 'node:path';
import { openTaskWorktree, readRepository } from '../git/worktree.js';
import type { Logger } from '../log/logger.js';
import type { RunPlaces } from './run-places.js';

/** Where a task's worktree is, for closing it when the task ends and for status. */
export interface PreparedWorktree {
  /** The user's working copy (the repository's main worktree). */
  repository: string;
  path: string;
  branch: string;
  /** The repository's shared git dir and the worktree's own (a confined agent's git mounts: git/sandbox-git.ts). */
  commonDir: string;
  gitDir: string;
}

/** Opens (or finds again) the task's own worktree of the repository at `workdir`, and says so in the log. */
export async function openWorktree(
  workdir: string,
  taskId: string,
  branch: string,
  base: string | null,
  places: RunPlaces,
  logger: Logger,
): Promise<PreparedWorktree & { workdir: string }> {
  const repository = await readRepository(workdir);
  const opened = await openTaskWorktree({
    repository,
    taskId,
    branch,
    base,
    worktreesRoot: join(places.state, 'worktrees'),
  });
  logger.info(
    {
      event: 'git.worktree-opened',
      branch: opened.branch,
      worktree: opened.path,
      created: opened.created,
      base: opened.base,
      reused: opened.reused,
    },
    opened.created
      ? `working in ${opened.path} on the new branch ${opened.branch} (from ${opened.base ?? 'HEAD'})`
      : `working in ${opened.path} on the branch ${opened.branch}`,
  );
  return {
    repository: repository.top,
    path: opened.path,
    branch: opened.branch,
    commonDir: opened.commonDir,
    gitDir: opened.gitDir,
    workdir: opened.workdir,
  };
}
