import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { WiggumError } from '../errors.js';
import { checkoutState, followBlocker, listWorktrees } from './base-checkouts.js';
import { git, gitOk } from './git.js';
import { clearLandingIntent, writeLandingIntent } from './land-intent.js';
import { commonDir, serialPerRepository } from './repo-serial.js';
import type { LandingIntent } from './land-intent.js';

/** What the verify check said about the merged tree. */
export type VerifyResult = { passed: true } | { passed: false; output: string };

export interface LandMergeOptions {
  /** A work tree of the repository to run git in; nothing in it changes unless it has the base checked out. */
  repo: string;
  branch: string;
  base: string;
  /** Runs the task's check in `dir`, a scratch worktree holding the merged result. */
  verify?: (dir: string) => Promise<VerifyResult>;
  /** Where the landing intent is kept while the landing is under way (see land-intent.ts). */
  intentFile: string;
  /** The scratch worktree's path; default `<git common dir>/wiggum-land/<branch>-<hash>`. */
  scratchDir?: string;
  /** How often a base that moved between merge and update is merged again; default 3. */
  attempts?: number;
}

export type LandMergeOutcome =
  | {
      kind: 'landed';
      /** `up-to-date`: the base already held the branch; nothing was changed. */
      how: 'ff' | 'merge-commit' | 'up-to-date';
      oldBase: string;
      newBase: string;
      /** The work trees with the base checked out that were brought to the new base. */
      followed: string[];
    }
  | { kind: 'conflict'; files: string[]; baseCommit: string; branchCommit: string }
  | { kind: 'check-failed'; output: string; merged: string }
  | { kind: 'wait'; reason: string };

/**
 * Merges `branch` into `base` without touching any checkout but the base's own (which follows only
 * when clean): fast-forward when the base is in the branch's history, else a merge commit made with
 * `git merge-tree` and `commit-tree`. The check runs on the merged result in a scratch worktree,
 * and the base ref moves only if it passes, by compare-and-swap from the tip the merge was made on.
 */
export async function landMerge(options: LandMergeOptions): Promise<LandMergeOutcome> {
  const attempts = options.attempts ?? 3;
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await landOnce(options);
    if (outcome !== 'base-moved') return outcome;
    if (attempt >= attempts)
      return {
        kind: 'wait',
        reason: `${options.base} moved ${attempts} times while ${options.branch} was being merged into it; trying again later`,
      };
  }
}

async function landOnce(options: LandMergeOptions): Promise<LandMergeOutcome | 'base-moved'> {
  const { repo, branch, base } = options;
  const oldBase = await tipOf(repo, base, 'base');
  const branchTip = await tipOf(repo, branch, 'task branch');
  const blocked = await blockedCheckouts(repo, base);
  if (blocked.reason !== null) return { kind: 'wait', reason: blocked.reason };
  if (await isAncestor(repo, branchTip, oldBase))
    return { kind: 'landed', how: 'up-to-date', oldBase, newBase: oldBase, followed: [] };

  let newBase: string;
  let how: 'ff' | 'merge-commit';
  if (await isAncestor(repo, oldBase, branchTip)) {
    newBase = branchTip;
    how = 'ff';
  } else {
    const merged = await mergeCommit(repo, branch, base, oldBase, branchTip);
    if ('conflict' in merged)
      return { kind: 'conflict', files: merged.conflict, baseCommit: oldBase, branchCommit: branchTip };
    newBase = merged.commit;
    how = 'merge-commit';
  }

  const scratch = options.verify === undefined ? null : (options.scratchDir ?? (await defaultScratch(repo, branch)));
  const intent: LandingIntent = { version: 1, repo, branch, base, oldBase, newBase, how, scratch, phase: 'merging' };
  await writeLandingIntent(options.intentFile, intent);
  try {
    if (options.verify !== undefined && scratch !== null) {
      await serialPerRepository(repo, async () => {
        await removeScratchNow(repo, scratch);
        await gitOk(
          repo,
          ['worktree', 'add', '--quiet', '--force', '--detach', scratch, newBase],
          'making a scratch worktree for the merge',
        );
      });
      const verdict = await options.verify(scratch);
      if (!verdict.passed) return { kind: 'check-failed', output: verdict.output, merged: newBase };
    }
    // The user may have started editing while the check ran.
    const again = await blockedCheckouts(repo, base);
    if (again.reason !== null) return { kind: 'wait', reason: again.reason };

    await writeLandingIntent(options.intentFile, { ...intent, phase: 'updating' });
    const moved = await git(repo, [
      'update-ref',
      '-m',
      `wiggum: land ${branch} (${how})`,
      `refs/heads/${base}`,
      newBase,
      oldBase,
    ]);
    if (moved.exitCode !== 0) return 'base-moved';
    const followed: string[] = [];
    for (const path of again.checkouts) {
      const reason = await follow(path, oldBase, newBase);
      if (reason !== null) {
        // Put the base back (compare-and-swap again) rather than leave a checkout that shows the
        // landing undone as local changes.
        await git(repo, ['update-ref', '-m', 'wiggum: landing undone', `refs/heads/${base}`, oldBase, newBase]);
        for (const done of followed) await follow(done, newBase, oldBase);
        return {
          kind: 'wait',
          reason: `${path} has ${base} checked out and could not follow the merge (${reason}); the merge waits`,
        };
      }
      followed.push(path);
    }
    return { kind: 'landed', how, oldBase, newBase, followed };
  } finally {
    if (scratch !== null) await removeScratch(repo, scratch);
    await clearLandingIntent(options.intentFile);
  }
}

/** The work trees with `base` checked out, and the first reason one of them cannot follow. */
async function blockedCheckouts(repo: string, base: string): Promise<{ checkouts: string[]; reason: string | null }> {
  const ref = `refs/heads/${base}`;
  const checkouts: string[] = [];
  for (const entry of await listWorktrees(repo)) {
    if (entry.branch !== ref && !(await rebasing(entry.path, ref))) continue;
    const reason = followBlocker(await checkoutState(entry.path), base);
    if (reason !== null) return { checkouts, reason };
    checkouts.push(entry.path);
  }
  return { checkouts, reason: null };
}

/** Whether a rebase of `ref` is in progress in `path` (git detaches HEAD meanwhile). */
async function rebasing(path: string, ref: string): Promise<boolean> {
  try {
    for (const dir of ['rebase-merge', 'rebase-apply']) {
      const where = (await git(path, ['rev-parse', '--git-path', `${dir}/head-name`])).stdout.trim();
      const file = isAbsolute(where) ? where : resolve(path, where);
      if (existsSync(file) && (await readFile(file, 'utf8')).trim() === ref) return true;
    }
    return false;
  } catch (error) {
    // The worktree went away while we looked (another task's, ended meanwhile): no rebase there.
    if (!existsSync(path)) return false;
    throw error;
  }
}

/**
 * Brings a checkout's index and files from `from` to `to` (its HEAD already follows the ref): a
 * two-way merge, which keeps nothing the user changed and refuses if it would overwrite anything.
 * Returns null, or git's reason for refusing.
 */
export async function follow(path: string, from: string, to: string): Promise<string | null> {
  await git(path, ['update-index', '-q', '--refresh']);
  const result = await git(path, ['read-tree', '-u', '-m', from, to]);
  return result.exitCode === 0 ? null : result.stderr.trim() || `exit ${result.exitCode}`;
}

async function tipOf(repo: string, name: string, what: string): Promise<string> {
  const result = await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${name}^{commit}`]);
  if (result.exitCode !== 0)
    throw new WiggumError('E_GIT', `the ${what} ${name} does not exist in ${repo}; name an existing branch`, {
      details: { repo, branch: name, reason: 'missing-branch' },
    });
  return result.stdout.trim();
}

async function isAncestor(repo: string, ancestor: string, descendant: string): Promise<boolean> {
  return (await git(repo, ['merge-base', '--is-ancestor', ancestor, descendant])).exitCode === 0;
}

/** A merge commit of the two tips made without any work tree, or the files that conflict. */
async function mergeCommit(
  repo: string,
  branch: string,
  base: string,
  oldBase: string,
  branchTip: string,
): Promise<{ commit: string } | { conflict: string[] }> {
  const merged = await git(repo, [
    'merge-tree',
    '--write-tree',
    '-z',
    '--name-only',
    '--no-messages',
    oldBase,
    branchTip,
  ]);
  const [tree = '', ...files] = merged.stdout.split('\0').filter((part) => part !== '');
  if (merged.exitCode === 1) return { conflict: [...new Set(files)].sort() };
  if (merged.exitCode !== 0 || tree === '')
    throw new WiggumError(
      'E_GIT',
      `git merge-tree failed in ${repo} while merging ${branch} into ${base}: ${merged.stderr.trim()}`,
      {
        details: { repo, branch, base },
      },
    );
  // commit-tree needs an identity; a daemon's environment often has none.
  const identity =
    (await git(repo, ['var', 'GIT_COMMITTER_IDENT'])).exitCode === 0
      ? []
      : ['-c', 'user.name=wiggum', '-c', 'user.email=wiggum@localhost'];
  const commit = await gitOk(
    repo,
    [...identity, 'commit-tree', tree, '-p', oldBase, '-p', branchTip, '-m', `Merge branch '${branch}' into ${base}`],
    `making the merge commit of ${branch} into ${base}`,
  );
  return { commit: commit.trim() };
}

async function defaultScratch(repo: string, branch: string): Promise<string> {
  const common = await commonDir(repo);
  // The hash keeps `a/b` and `a-b`, landing at the same time, apart.
  const name = `${branch.replace(/[^A-Za-z0-9._-]/g, '-')}-${createHash('sha1').update(branch).digest('hex').slice(0, 8)}`;
  return join(common, 'wiggum-land', name);
}

/**
 * Removes the scratch worktree if it is there (a crash may have left it). A registration whose folder
 * is gone is overridden by the next `worktree add --force`, so nothing else is pruned here.
 */
export async function removeScratch(repo: string, scratch: string): Promise<void> {
  await serialPerRepository(repo, () => removeScratchNow(repo, scratch));
}

async function removeScratchNow(repo: string, scratch: string): Promise<void> {
  if (existsSync(scratch)) await git(repo, ['worktree', 'remove', '--force', '--force', scratch]);
}
