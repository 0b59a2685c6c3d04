import { join } from 'node:path';
import type { Mount } from '../sandbox/mount.js';

/**
 * The pure part of what a confined agent sees of its repository's shared `.git` (sandbox-git.ts
 * prepares the folders and carries out the end of a run). docs/decisions.md, "A confined agent
 * commits into private objects and a private branch folder", says why it is shaped this way.
 */

/** Where the real objects show, read-only, inside the agent's private objects folder (its `info/alternates` names it). */
export const REAL_OBJECTS_FOLDER = 'wiggum-real-objects';

/** The folders a run's plan binds over the shared `.git`; all but commonDir and gitDir are wiggum's own. */
export interface GitSandboxPaths {
  /** The repository's common dir. */
  commonDir: string;
  /** The worktree's git dir, `<commonDir>/worktrees/<name>`. */
  gitDir: string;
  branch: string;
  /** Shown at `<commonDir>/objects`, writable: the run's new objects. */
  privateObjects: string;
  /** Shown over the branch's ref folder, writable: a copy of its loose refs. */
  privateRefs: string;
  /** Shown over the branch's reflog folder, writable: a copy of its reflogs. */
  privateLogs: string;
}

/** The folder of a branch's ref below `refs/heads/` ('' at the top) and its last part. */
export function branchRefFolder(branch: string): { folder: string; name: string } {
  const slash = branch.lastIndexOf('/');
  return slash === -1
    ? { folder: '', name: branch }
    : { folder: branch.slice(0, slash), name: branch.slice(slash + 1) };
}

/**
 * The mounts, applied after the sandbox's own (whose hides may cover the repository): the whole
 * common dir read-only first, then only what a commit on the task's branch writes. A later mount
 * covers an earlier one at or under its target.
 */
export function gitSandboxMounts(paths: GitSandboxPaths): Mount[] {
  const { commonDir, gitDir } = paths;
  const { folder } = branchRefFolder(paths.branch);
  const objects = join(commonDir, 'objects');
  return [
    { kind: 'ro', source: commonDir, target: commonDir },
    { kind: 'rw', source: paths.privateObjects, target: objects },
    { kind: 'ro', source: objects, target: join(objects, REAL_OBJECTS_FOLDER) },
    { kind: 'rw', source: gitDir, target: gitDir },
    ...['commondir', 'gitdir', 'config.worktree'].map((name): Mount => ({
      kind: 'ro',
      source: join(gitDir, name),
      target: join(gitDir, name),
    })),
    { kind: 'rw', source: paths.privateRefs, target: join(commonDir, 'refs', 'heads', folder) },
    { kind: 'rw', source: paths.privateLogs, target: join(commonDir, 'logs', 'refs', 'heads', folder) },
  ];
}

/**
 * Configuration for the agent's git, as `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`
 * (after `extra`, which a caller's own pairs go into): no automatic gc or maintenance, whose writes
 * (packed-refs, gc.pid, packs) land in read-only folders or in the private objects, never both.
 */
export function gitSandboxEnv(extra: ReadonlyArray<readonly [string, string]> = []): Record<string, string> {
  const pairs = [...extra, ['gc.auto', '0'] as const, ['maintenance.auto', 'false'] as const];
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(pairs.length) };
  pairs.forEach(([key, value], n) => {
    env[`GIT_CONFIG_KEY_${n}`] = key;
    env[`GIT_CONFIG_VALUE_${n}`] = value;
  });
  return env;
}

/** What the end of a run does with the branch ref the agent left in its private folder. */
export type BranchUpdate =
  | { kind: 'unchanged' }
  | { kind: 'move'; to: string }
  | { kind: 'refused'; why: 'symbolic' | 'not-an-object-name' | 'not-a-commit'; message: string };

/**
 * Decides from the branch's tip before the run (`before`) and the text of the loose ref the agent
 * left (`left`, null when there is none: a branch only in packed-refs that no commit moved).
 */
export function branchUpdate(branch: string, before: string, left: string | null): BranchUpdate {
  if (left === null) return { kind: 'unchanged' };
  const text = left.trim();
  if (text === before) return { kind: 'unchanged' };
  if (text.startsWith('ref:'))
    return {
      kind: 'refused',
      why: 'symbolic',
      message: `the agent made the branch ${branch} a symbolic ref (${text}); the branch stays at ${before}`,
    };
  if (!/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(text))
    return {
      kind: 'refused',
      why: 'not-an-object-name',
      message: `the agent left "${text.slice(0, 80)}" as the branch ${branch}, which names no object; the branch stays at ${before}`,
    };
  return { kind: 'move', to: text };
}

/** What the end of a run did to the task's branch and the worktree's git files. */
export interface GitRunEnd {
  branch: BranchUpdate | { kind: 'moved'; from: string; to: string };
  /** Files of the worktree's git the agent changed and wiggum put back (`HEAD`, `.git`). */
  restored: string[];
}

export interface GitSandboxPlan {
  /** Applied after the sandbox's own mounts, in this order. */
  mounts: Mount[];
  /** For the agent's environment (gitSandboxEnv). */
  env: Record<string, string>;
  /** Once the run's processes are gone, before wiggum reads the worktree: moves the real branch. */
  afterRun(): Promise<GitRunEnd>;
  /** The ends of earlier runs cut off by a kill of wiggum, done while planning this one. */
  recovered: GitRunEnd[];
}
