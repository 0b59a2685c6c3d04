import type { WiggumConfig } from '../config/config.js';
import { isGitRepository } from '../git/git.js';
import { commonDirOf } from '../git/worktree.js';
import { taskBranch } from '../git/worktree-plan.js';
import { withKeptId } from '../memory/kept-id.js';
import { idFromFileName } from '../task/id.js';
import { readTaskFile } from '../task/read.js';
import { resolveWorkdir } from '../task/workdir.js';
import type { VaultLayout } from '../vault/layout.js';
import { claimFor } from './admission.js';
import type { Claim } from './admission.js';
import type { Job } from './task-queue.js';
import { ownCopy } from '../own-copy.js';

/**
 * What the scheduler needs to know about a task file before it runs: its id, its claim (the
 * repository and branch of a task in a git repository, else its workdir) and its priority. A file that does not parse, or whose workdir is invalid, still
 * becomes a job: its run rejects it with a report, and a key of its own keeps it out of others' way.
 */
export async function jobFor(
  name: string,
  file: string,
  config: WiggumConfig,
  layout: VaultLayout,
  nowMs: number,
): Promise<Job> {
  const read = await readTaskFile(file).catch(() => null);
  if (read === null || !read.result.ok) {
    const id = idFromFileName(name);
    return {
      id,
      name,
      file,
      ...claimFor(`invalid:${name}`, null),
      priority: config.daemon.defaultPriority,
      enqueuedAtMs: nowMs,
    };
  }
  const task = withKeptId(read.result.task, layout.sessions);
  const workdir = await resolveWorkdir(task.id, task.frontmatter.workdir, {
    vaultRoot: layout.root,
    allowedRoots: config.allowedWorkdirs,
    workspaces: layout.workspaces,
  }).catch(() => null);
  const claim =
    workdir === null
      ? claimFor(`invalid:${name}`, null)
      : await claimOf(
          workdir,
          task.frontmatter.workdir !== undefined,
          taskBranch(task.frontmatter.branch ?? null, task.id),
          config,
        );
  // The job lives as long as the task waits in the queue: its strings are copied off the file's text.
  const session = task.frontmatter.persistence_loop?.session;
  return {
    id: ownCopy(task.id),
    name,
    file,
    ...claim,
    priority: task.frontmatter.priority ?? config.daemon.defaultPriority,
    enqueuedAtMs: nowMs,
    ...(session === undefined ? {} : { session: ownCopy(session) }),
  };
}

/**
 * A task with a `workdir:` in a repository works in a worktree on its branch (loop/prepare.ts), so
 * its claim is that branch; a task's own workspace, or git turned off, works in the folder itself.
 * A branch named only by the task's prd file is not read here: such tasks take turns by git's own
 * refusal to check one branch out twice, reported when the second starts.
 */
async function claimOf(workdir: string, named: boolean, branch: string, config: WiggumConfig): Promise<Claim> {
  if (!config.git.enabled || !named || !(await isGitRepository(workdir))) return claimFor(workdir, null);
  const commonDir = await commonDirOf(workdir).catch(() => null);
  return claimFor(workdir, commonDir === null ? null : { commonDir, branch });
}
