import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { NO_SUBMODULE_STATUS, git, gitOk } from './git.js';
import { serialPerRepository } from './repo-serial.js';

/** One entry of `git worktree list --porcelain`. */
export interface WorktreeEntry {
  path: string;
  head: string | null;
  /** `refs/heads/…`, or null when detached or bare. */
  branch: string | null;
}

/** Serialized with `worktree add`/`remove` (repo-serial.ts): a listing during an add can fail. */
export async function listWorktrees(repo: string): Promise<WorktreeEntry[]> {
  const out = await serialPerRepository(repo, () =>
    gitOk(repo, ['worktree', 'list', '--porcelain'], 'listing worktrees'),
  );
  const entries: WorktreeEntry[] = [];
  for (const block of out.split('\n\n')) {
    let entry: WorktreeEntry | null = null;
    for (const line of block.split('\n')) {
      if (line.startsWith('worktree ')) entry = { path: line.slice('worktree '.length), head: null, branch: null };
      else if (entry !== null && line.startsWith('HEAD ')) entry.head = line.slice('HEAD '.length);
      else if (entry !== null && line.startsWith('branch ')) entry.branch = line.slice('branch '.length);
    }
    if (entry !== null) entries.push(entry);
  }
  return entries;
}

/** What stops a checkout from following its base: an operation in progress, or local changes. */
export interface CheckoutState {
  path: string;
  /** The operation git has in progress there, if any. */
  busy: 'merge' | 'rebase' | 'cherry-pick' | 'revert' | null;
  /** Tracked paths with staged or unstaged changes (untracked files do not count: see landMerge). */
  changed: string[];
}

const OPERATIONS: Array<[string, CheckoutState['busy']]> = [
  ['MERGE_HEAD', 'merge'],
  ['rebase-merge', 'rebase'],
  ['rebase-apply', 'rebase'],
  ['CHERRY_PICK_HEAD', 'cherry-pick'],
  ['REVERT_HEAD', 'revert'],
];

export async function checkoutState(path: string): Promise<CheckoutState> {
  let busy: CheckoutState['busy'] = null;
  for (const [name, operation] of OPERATIONS) {
    const where = (await gitOk(path, ['rev-parse', '--git-path', name], 'looking for an operation in progress')).trim();
    if (existsSync(isAbsolute(where) ? where : resolve(path, where))) {
      busy = operation;
      break;
    }
  }
  const status = await gitOk(
    path,
    ['status', NO_SUBMODULE_STATUS, '--porcelain=v1', '-z', '--untracked-files=no'],
    'looking for local changes',
  );
  const changed = status
    .split('\0')
    .filter((record) => record.length > 3)
    .map((record) => record.slice(3));
  return { path, busy, changed };
}

/**
 * Why a checkout of the base cannot follow a landing now, or null when it can. Pure. A checkout
 * with local changes is the user's work in progress: the landing waits rather than touch it.
 */
export function followBlocker(state: CheckoutState, base: string): string | null {
  if (state.busy !== null)
    return `${state.path} has ${base} checked out with a ${state.busy} in progress; the merge waits until it is finished or aborted`;
  if (state.changed.length > 0) {
    const shown = state.changed.slice(0, 5).join(', ') + (state.changed.length > 5 ? ', …' : '');
    return `${state.path} has ${base} checked out with local changes (${shown}); the merge waits until they are committed or stashed`;
  }
  return null;
}

/** Which tree a checkout's index holds: `old`'s, `new`'s, or another. */
export async function indexAt(path: string, oldCommit: string, newCommit: string): Promise<'old' | 'new' | 'other'> {
  // write-tree fails on an index with unmerged entries: that is "another tree" too.
  const written = await git(path, ['write-tree']);
  if (written.exitCode !== 0) return 'other';
  const index = written.stdout.trim();
  const tree = async (commit: string): Promise<string> =>
    (await git(path, ['rev-parse', `${commit}^{tree}`])).stdout.trim();
  if (index === (await tree(oldCommit))) return 'old';
  if (index === (await tree(newCommit))) return 'new';
  return 'other';
}
