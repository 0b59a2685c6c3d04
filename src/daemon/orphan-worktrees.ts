import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { WiggumConfig } from '../config/config.js';
import { recoverOrphanRuns } from '../git/sandbox-git.js';
import { closeOrphanWorktree } from '../git/worktree.js';
import { taskSandboxFolder } from '../loop/sandbox-run.js';
import type { Logger } from '../log/logger.js';
import { withKeptId } from '../memory/kept-id.js';
import { readTaskFile } from '../task/read.js';
import { isTaskFileName } from '../vault/names.js';
import type { VaultLayout } from '../vault/layout.js';

/** The worktree folders (task ids) whose task is no longer in Approved/. Pure. */
export function orphanWorktrees(folders: readonly string[], approvedIds: ReadonlySet<string>): string[] {
  return folders.filter((id) => !approvedIds.has(id)).sort();
}

/**
 * At start, before any task runs: a worktree under `.wiggum/worktrees/` whose task is in Approved/
 * is left for that task to find again (it resumes there); one whose task is gone — deleted, or
 * moved to Done/ or Rejected/ by a crash that came before the worktree's removal — is closed, its
 * branch kept. Problems are logged; the daemon starts regardless.
 */
export async function reclaimOrphanWorktrees(layout: VaultLayout, config: WiggumConfig, logger: Logger): Promise<void> {
  const root = join(layout.state, 'worktrees');
  const folders = await readdir(root).catch(() => [] as string[]);
  if (folders.length === 0) return;
  const ids = new Set<string>();
  for (const name of await readdir(layout.approved).catch(() => [] as string[])) {
    if (!isTaskFileName(name)) continue;
    const read = await readTaskFile(join(layout.approved, name)).catch(() => null);
    if (read !== null && read.result.ok) ids.add(withKeptId(read.result.task, layout.sessions).id);
  }
  for (const id of orphanWorktrees(folders, ids)) {
    const path = join(root, id);
    try {
      for (const cut of await recoverOrphanRuns(path, taskSandboxFolder(layout.state, id)))
        if (cut.branch.kind === 'moved')
          logger.info(
            { event: 'sandbox.git-recovered', taskId: id, from: cut.branch.from, to: cut.branch.to },
            `a run of ${id} cut off by a kill of wiggum had committed: its branch moved to ${cut.branch.to} before its worktree is closed`,
          );
      const end = await closeOrphanWorktree(path, config.git.keepWorktree);
      if (end === null) continue;
      if (end.kind === 'remove')
        logger.info(
          { event: 'git.worktree-removed', worktree: path, taskId: id },
          `removed the worktree ${path}: its task is no longer in Approved/ (its branch stays)`,
        );
      else logger.warn({ event: 'git.worktree-kept', worktree: path, taskId: id }, end.message);
    } catch (error) {
      logger.warn(
        { event: 'git.worktree-close-failed', worktree: path, taskId: id, err: error },
        `could not remove the worktree ${path} of a task that is gone (${error instanceof Error ? error.message : String(error)}): remove it with "git worktree remove ${path}"`,
      );
    }
  }
}
