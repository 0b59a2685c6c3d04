/**
 * Which tasks may run together. In a git repository each task works in a worktree of its own, so
 * tasks on one repository run side by side, except two on one branch (git checks a branch out in
 * one place only, and the second builds on the first's commits); outside a repository tasks that
 * share a workdir would edit the same files, so they take turns. Pure: the scheduler holds the state.
 */

/** What a job claims while it is queued or running. */
export interface Claim {
  /** Jobs with the same key never run together. */
  key: string;
  /** The repository (git's common dir) the job works in, or null outside one. */
  repository: string | null;
}

/** The key of a task: its repository and branch in a repository, else its workdir. */
export function claimFor(workdir: string, repo: { commonDir: string; branch: string } | null): Claim {
  if (repo === null) return { key: `workdir:${workdir}`, repository: null };
  return { key: `branch:${repo.commonDir}\0${repo.branch}`, repository: repo.commonDir };
}

/**
 * Whether a job may be queued beside those `holding` a slot or a place in the queue: no one holds
 * its key, and its repository has fewer than `maxPerRepo` (null: no cap of its own).
 */
export function mayStart(job: Claim, holding: readonly Claim[], maxPerRepo: number | null): boolean {
  if (holding.some((other) => other.key === job.key)) return false;
  if (maxPerRepo === null || job.repository === null) return true;
  return holding.filter((other) => other.repository === job.repository).length < maxPerRepo;
}
