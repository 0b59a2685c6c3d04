import { join } from 'node:path';

/**
 * The pure decisions behind a task's worktree: where it goes, which base a new branch starts from,
 * what to do with what `git worktree list` shows, and what a git refusal means. The effects are in
 * worktree.ts.
 */

/** Where task `taskId`'s worktree goes: outside the user's working copy, in the vault's state folder. */
export function worktreePath(worktreesRoot: string, taskId: string): string {
  return join(worktreesRoot, taskId);
}

/** The branch a task works on: its own `branch:` (or the prd's `branchName`), else `ralph/<id>`. */
export function taskBranch(named: string | null, taskId: string): string {
  return named ?? `ralph/${taskId}`;
}

/** What the user's repository is doing, as far as choosing a base goes. */
export interface RepositoryHead {
  /** The branch the user's working copy is on; null on a detached HEAD (a rebase detaches it too). */
  branch: string | null;
  /** A rebase is in progress in the user's working copy. */
  rebasing: boolean;
}

export type BaseChoice =
  { kind: 'base'; ref: string } | { kind: 'problem'; why: 'detached' | 'rebasing'; message: string };

/**
 * The ref a new task branch starts from: the task's `base:` or `git.base` (`chosen`), else the
 * branch the user's copy is on. A detached HEAD has no branch to follow, and a rebase detaches it:
 * both say so and ask for `base:` rather than guess from a commit the user is moving.
 */
export function chooseBase(chosen: string | null, head: RepositoryHead): BaseChoice {
  if (chosen !== null) return { kind: 'base', ref: chosen };
  if (head.branch !== null) return { kind: 'base', ref: head.branch };
  if (head.rebasing)
    return {
      kind: 'problem',
      why: 'rebasing',
      message:
        'the repository is in the middle of a rebase (its HEAD is detached), so there is no current branch to start the task branch from: set base: (e.g. base: main) in the task or git.base in the config',
    };
  return {
    kind: 'problem',
    why: 'detached',
    message:
      'the repository is on a detached HEAD, so there is no current branch to start the task branch from: set base: (e.g. base: main) in the task or git.base in the config',
  };
}

/** One entry of `git worktree list --porcelain`. */
export interface WorktreeEntry {
  path: string;
  /** The branch's short name, or null (detached, bare). */
  branch: string | null;
  locked: boolean;
  prunable: boolean;
}

/** Parses `git worktree list --porcelain` (records separated by blank lines). */
export function parseWorktreeList(text: string): WorktreeEntry[] {
  const entries: WorktreeEntry[] = [];
  for (const record of text.split(/\n\s*\n/)) {
    const lines = record.split('\n').filter((line) => line !== '');
    const path = lines.find((line) => line.startsWith('worktree '))?.slice('worktree '.length);
    if (path === undefined) continue;
    const ref = lines.find((line) => line.startsWith('branch '))?.slice('branch '.length) ?? null;
    entries.push({
      path,
      branch: ref === null ? null : ref.replace(/^refs\/heads\//, ''),
      locked: lines.some((line) => line === 'locked' || line.startsWith('locked ')),
      prunable: lines.some((line) => line === 'prunable' || line.startsWith('prunable ')),
    });
  }
  return entries;
}

export type WorktreeAction =
  /** Our worktree is there, on the task's branch (a resume after a crash or an interruption). */
  | { kind: 'reuse' }
  /** Nothing there: add it (after pruning a registration whose folder is gone, if `prune`). */
  | { kind: 'add'; prune: boolean }
  /** Our path holds a worktree on another branch (the task's branch changed): remove it first. */
  | { kind: 'replace'; branch: string | null }
  | { kind: 'problem'; why: 'locked' | 'branch-in-use' | 'foreign-folder'; message: string };

export interface WorktreeSituation {
  /** The task's worktree path. */
  path: string;
  branch: string;
  /** The user's working copy (the main worktree's path). */
  userCopy: string;
  /** A file or folder exists at `path`. */
  pathExists: boolean;
}

/**
 * What to do, given the repository's worktrees, to have the task's worktree at `path` on `branch`.
 * git allows a branch in one worktree only, so a branch checked out elsewhere (the user's copy,
 * another task's kept worktree) is a problem that names where; a locked worktree is never touched.
 */
export function worktreeAction(entries: readonly WorktreeEntry[], situation: WorktreeSituation): WorktreeAction {
  const { path, branch, userCopy, pathExists } = situation;
  const ours = entries.find((entry) => entry.path === path);
  if (ours !== undefined && ours.locked)
    return {
      kind: 'problem',
      why: 'locked',
      message: `the task's worktree ${path} is locked (git worktree lock): unlock it with "git worktree unlock ${path}" or remove it`,
    };
  if (ours !== undefined && !ours.prunable) {
    if (ours.branch === branch) return { kind: 'reuse' };
    return { kind: 'replace', branch: ours.branch };
  }
  const elsewhere = entries.find((entry) => entry.branch === branch && entry.path !== path && !entry.prunable);
  if (elsewhere !== undefined)
    return {
      kind: 'problem',
      why: 'branch-in-use',
      message:
        elsewhere.path === userCopy
          ? `the branch ${branch} is checked out in your working copy ${userCopy}, and git lets a branch be checked out in one place only: switch your working copy to another branch, or name another branch: in the task`
          : `the branch ${branch} is checked out in the worktree ${elsewhere.path}: remove it ("git worktree remove ${elsewhere.path}") or name another branch: in the task`,
    };
  if (pathExists && ours === undefined)
    return {
      kind: 'problem',
      why: 'foreign-folder',
      message: `${path} exists but is not a worktree of this repository: move it away, and the task makes its worktree there`,
    };
  return { kind: 'add', prune: ours !== undefined };
}

/** What a failed git command in a worktree operation means, from git's own words (it has no codes). */
export type GitRefusal = 'lock-busy' | 'bad-ref' | 'already-checked-out' | 'other';

export function gitRefusal(stderr: string): GitRefusal {
  if (/\.lock': File exists|Unable to create '.*\.lock'|cannot lock ref/i.test(stderr)) return 'lock-busy';
  if (/is already (checked out|used by worktree)/i.test(stderr)) return 'already-checked-out';
  if (/not a valid (branch|object|ref)|invalid reference|not a commit|invalid ref/i.test(stderr)) return 'bad-ref';
  return 'other';
}

/** Whether a worktree that ended can go: kept by config, or kept because it holds uncommitted work. */
export type WorktreeEnd = { kind: 'remove' } | { kind: 'keep'; why: 'configured' | 'uncommitted'; message: string };

export function worktreeEnd(keepWorktree: boolean, uncommitted: readonly string[], path: string): WorktreeEnd {
  if (keepWorktree)
    return { kind: 'keep', why: 'configured', message: `kept the worktree ${path} (git.keep_worktree)` };
  if (uncommitted.length > 0)
    return {
      kind: 'keep',
      why: 'uncommitted',
      message: `kept the worktree ${path}: it holds uncommitted changes (${uncommitted.slice(0, 5).join(', ')}${uncommitted.length > 5 ? ', …' : ''}) that removing it would lose; commit or discard them, then "git worktree remove ${path}"`,
    };
  return { kind: 'remove' };
}
