/**
 * Where a task's prd.json and progress.txt live (config `memory.in_workdir`): in its session
 * folder, as always, or in its working folder, where the agent's `git add -A` commits them with the
 * code. Pure decisions; `workdir-store.ts` carries them out.
 */

/**
 * The folder, relative to the agent's workdir, that holds a task's memory kept there:
 * `.ralph/<task id>/`. One folder per task, so that tasks landing on one base never conflict over
 * each other's prd.json, and the base keeps each one's record. Documented: never change it.
 */
export function workdirMemoryDir(taskId: string): string {
  return `.ralph/${taskId}`;
}

/** What the checkpoint's `memory:` key holds: the folder, relative to the workdir, ending in `/`. */
export function workdirMemoryKey(taskId: string): string {
  return `${workdirMemoryDir(taskId)}/`;
}

export interface MemoryPlaceInput {
  /** `memory.in_workdir`. */
  inWorkdir: boolean;
  /** The task works in a git repository: its own worktree, or in place (`wiggum ralph`). */
  repository: boolean;
  /** Its session memory is on disk (not the in-memory fallback, whose loud warning already stands). */
  durable: boolean;
}

export type MemoryPlace =
  { where: 'workdir' } | { where: 'session'; why: 'configured' | 'not-a-repository' | 'not-durable' };

export function memoryPlace(input: MemoryPlaceInput): MemoryPlace {
  if (!input.inWorkdir) return { where: 'session', why: 'configured' };
  // Outside a repository nothing commits the files: the workdir would only collect stray copies.
  if (!input.repository) return { where: 'session', why: 'not-a-repository' };
  // No session folder to keep the synced copy in: status and the reports would read nothing.
  if (!input.durable) return { where: 'session', why: 'not-durable' };
  return { where: 'workdir' };
}

/**
 * Which copy of one memory file a run starts from once memory lives in the workdir. A session just
 * created starts from what it was built with (the task's stories), whatever an earlier task left on
 * the branch; a resumed one (a restart, `wiggum retry`) keeps the workdir's copy, which the branch
 * holds and the agent may have committed, and takes the session's only when the workdir has none.
 */
export function seedFrom(input: { sessionCreated: boolean; inWorkdir: boolean }): 'session' | 'workdir' {
  if (input.sessionCreated) return 'session';
  return input.inWorkdir ? 'workdir' : 'session';
}
