import { closeTaskWorktree } from '../git/worktree.js';
import type { Logger } from '../log/logger.js';
import type { TaskRunResult } from './events.js';
import type { PreparedWorktree } from './prepare.js';

/** Ended: in Done/ or Rejected/, or its file gone from Approved/ (a worktree found again at start is reclaimed too). */
export function hasEnded(result: TaskRunResult): boolean {
  return (
    result.status === 'done' ||
    result.status === 'rejected' ||
    (result.status === 'interrupted' && result.reason === 'task-gone')
  );
}

/**
 * Once a task has ended, its worktree goes and its branch stays. A task that was stopped by its
 * flag or interrupted keeps it: it resumes there. Closing never changes how the task ended:
 * a failure to remove is logged with what to do, and the worktree is left for the next start.
 */
export async function closeEndedWorktree(
  worktree: PreparedWorktree | null,
  result: TaskRunResult,
  keepWorktree: boolean,
  log: Logger,
): Promise<void> {
  if (worktree === null || !hasEnded(result)) return;
  const fields = { worktree: worktree.path, branch: worktree.branch };
  try {
    const end = await closeTaskWorktree(worktree.repository, worktree.path, keepWorktree);
    if (end.kind === 'remove')
      log.info(
        { event: 'git.worktree-removed', ...fields },
        `removed the worktree ${worktree.path}; the branch ${worktree.branch} stays`,
      );
    else if (end.why === 'configured') log.info({ event: 'git.worktree-kept', ...fields }, end.message);
    else log.warn({ event: 'git.worktree-kept', ...fields }, end.message);
  } catch (error) {
    log.warn(
      { event: 'git.worktree-close-failed', ...fields, err: error },
      `could not remove the worktree ${worktree.path} (${error instanceof Error ? error.message : String(error)}): remove it with "git worktree remove ${worktree.path}"`,
    );
  }
}
