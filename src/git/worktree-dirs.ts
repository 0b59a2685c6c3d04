import { lstat, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';

/**
 * Where git keeps a task worktree's own state, as wiggum knows it: never read from the worktree's
 * `.git` file, which the agent can rewrite to name a git dir of its own (with its config, hooks,
 * fsmonitor and filters). wiggum's git runs in a known worktree with `GIT_DIR`, `GIT_COMMON_DIR`
 * and `GIT_WORK_TREE` set from these.
 */
export interface WorktreeGitDirs {
  /** The worktree's top (real path). */
  workTree: string;
  /** `<commonDir>/worktrees/<name>`: HEAD, index, logs/HEAD of this worktree. */
  gitDir: string;
  /** The repository's shared git dir (real path), taken from the user's copy. */
  commonDir: string;
}

/**
 * The worktrees this process opened, by top. In-process, as the per-repository queue is: every
 * task opens its worktree (a resume too) before any git runs in it.
 */
const known = new Map<string, WorktreeGitDirs>();

export function trustWorktree(dirs: WorktreeGitDirs): void {
  known.set(dirs.workTree, dirs);
}

export function forgetWorktree(workTree: string): void {
  known.delete(workTree);
}

/** The known worktree `dir` is in (its top or below), or null. */
export function knownWorktreeOf(dir: string): WorktreeGitDirs | null {
  if (known.size === 0) return null;
  for (let current = resolve(dir); ; current = resolve(current, '..')) {
    const dirs = known.get(current);
    if (dirs !== undefined) return dirs;
    if (resolve(current, '..') === current) return null;
  }
}

/** The environment that makes git use exactly these dirs, whatever the worktree's `.git` says. */
export function worktreeGitEnv(dirs: WorktreeGitDirs): Record<string, string> {
  return { GIT_DIR: dirs.gitDir, GIT_COMMON_DIR: dirs.commonDir, GIT_WORK_TREE: dirs.workTree };
}

/**
 * The git dir of the worktree at `workTree` among `<commonDir>/worktrees/*`: the one whose `gitdir`
 * file names `<workTree>/.git` (git writes it at `worktree add`; inside a sandbox it is read-only).
 * Null when the repository has no such worktree.
 */
export async function findWorktreeGitDir(commonDir: string, workTree: string): Promise<string | null> {
  const root = join(commonDir, 'worktrees');
  const names = await readdir(root).catch(() => [] as string[]);
  const wanted = join(workTree, '.git');
  for (const name of names.sort()) {
    const named = await readFile(join(root, name, 'gitdir'), 'utf8').catch(() => null);
    if (named === null) continue;
    const path = resolve(root, name, named.trim());
    if (path === wanted || (await realpath(path).catch(() => null)) === wanted) return join(root, name);
  }
  return null;
}

/**
 * Puts the worktree's `.git` back to the file git wrote (`gitdir: <gitDir>`) when it says anything
 * else, or is a folder or a link: a person's git in a kept worktree, and git's own
 * `worktree remove` (which checks that the file points back), then see the real repository.
 * Returns whether it had to.
 */
export async function restoreGitFile(dirs: WorktreeGitDirs): Promise<boolean> {
  const file = join(dirs.workTree, '.git');
  const wanted = `gitdir: ${dirs.gitDir}\n`;
  const stat = await lstat(file).catch(() => null);
  if (stat?.isFile() === true && (await readFile(file, 'utf8')) === wanted) return false;
  if (stat !== null) await rm(file, { recursive: true, force: true });
  await writeFile(file, wanted);
  return true;
}

/** Whether `path` is `dir` or inside it. */
export function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/**
 * The common dir the orphan worktree `path`'s `.git` file names, or null when it names none, or one
 * that does not list `path`, or one inside wiggum's state folder (where worktrees and an agent's
 * scratch folders are) or inside another git dir (an agent's own worktree git dir is writable).
 */
export async function orphanRepository(path: string): Promise<string | null> {
  const text = await readFile(join(path, '.git'), 'utf8').catch(() => null);
  const named = /^gitdir: (.+)$/m.exec(text ?? '')?.[1]?.trim();
  if (named === undefined) return null;
  const gitDir = await realpath(resolve(path, named)).catch(() => null);
  if (gitDir === null || basename(dirname(gitDir)) !== 'worktrees') return null;
  const commonDir = dirname(dirname(gitDir));
  if (isInside(commonDir, dirname(dirname(path)))) return null;
  for (let above = dirname(commonDir); dirname(above) !== above; above = dirname(above))
    if (existsSync(join(above, 'HEAD')) && existsSync(join(above, 'objects'))) return null;
  return (await findWorktreeGitDir(commonDir, path)) === gitDir ? commonDir : null;
}
