import { serialPerRepository } from './repo-serial.js';
import { existsSync } from 'node:fs';
import { mkdir, realpath } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { WiggumError } from '../errors.js';
import { NO_SUBMODULE_STATUS, git, gitOk } from './git.js';
import {
  chooseBase,
  gitRefusal,
  parseWorktreeList,
  worktreeAction,
  worktreeEnd,
  worktreePath,
} from './worktree-plan.js';
import type { WorktreeEnd } from './worktree-plan.js';
import {
  findWorktreeGitDir,
  forgetWorktree,
  orphanRepository,
  restoreGitFile,
  trustWorktree,
} from './worktree-dirs.js';
import type { WorktreeGitDirs } from './worktree-dirs.js';

/** The repository a workdir belongs to, as seen from the user's working copy. */
export interface Repository {
  /** The top of the user's working tree (real path). */
  top: string;
  /** git's common dir (real path): one per repository, shared by all its worktrees. */
  commonDir: string;
  /** The workdir's folder relative to `top` ('' at the top). */
  subfolder: string;
  /** The branch the user's copy is on; null on a detached HEAD. */
  branch: string | null;
  rebasing: boolean;
}

/** Reads the repository that `workdir` is inside of (the caller knows it is one). */
export async function readRepository(workdir: string): Promise<Repository> {
  const [top, commonDir] = (
    await gitOk(workdir, ['rev-parse', '--show-toplevel', '--git-common-dir'], 'finding the repository')
  )
    .trim()
    .split('\n');
  if (top === undefined || commonDir === undefined)
    throw new WiggumError('E_GIT', `git rev-parse did not name the repository of ${workdir}`);
  const realTop = await realpath(top);
  const branch = await git(workdir, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  const rebasing = await Promise.all(
    ['rebase-merge', 'rebase-apply'].map(async (name) =>
      existsSync(
        resolve(workdir, (await gitOk(workdir, ['rev-parse', '--git-path', name], 'looking for a rebase')).trim()),
      ),
    ),
  );
  return {
    top: realTop,
    commonDir: await realpath(resolve(workdir, commonDir)),
    subfolder: relative(realTop, await realpath(workdir)),
    branch: branch.exitCode === 0 ? branch.stdout.trim() : null,
    rebasing: rebasing.some(Boolean),
  };
}

/** git's common dir of the repository `dir` is in (real path): the same for all its worktrees. */
export async function commonDirOf(dir: string): Promise<string> {
  const commonDir = (await gitOk(dir, ['rev-parse', '--git-common-dir'], 'finding the repository')).trim();
  return realpath(resolve(dir, commonDir));
}

export interface WorktreeRequest {
  repository: Repository;
  taskId: string;
  branch: string;
  /** The task's `base:` or `git.base`; null: the user's current branch. */
  base: string | null;
  /** Where task worktrees go (`.wiggum/worktrees/`). */
  worktreesRoot: string;
}

export interface TaskWorktree {
  /** The worktree's top. */
  path: string;
  /** Where the agent works: the workdir's subfolder inside the worktree. */
  workdir: string;
  branch: string;
  /** Whether the branch was made now, and from which base. */
  created: boolean;
  base: string | null;
  /** Whether an existing worktree of this task was found and kept (a resume). */
  reused: boolean;
  /** The repository's shared git dir (real path), as read from the user's copy. */
  commonDir: string;
  /** The worktree's own git dir, `<commonDir>/worktrees/<name>`: wiggum's git there uses it (worktree-dirs.ts). */
  gitDir: string;
}

/**
 * Gives the task its own worktree on its branch, outside the user's working copy: an existing
 * branch is checked out as it is (a retry goes on from its commits), a new one starts from the
 * base. Nothing in the user's working copy changes: `git worktree add` writes only under `.git/`
 * and in the new folder. Problems a person must fix are E_GIT with what to do.
 */
export function openTaskWorktree(request: WorktreeRequest): Promise<TaskWorktree> {
  // One change to a repository's worktree list at a time (repo-serial.ts): five tasks starting on
  // one repository at once would otherwise race inside .git/worktrees/.
  return serialPerRepository(request.repository.top, () => openNow(request));
}

async function openNow(request: WorktreeRequest): Promise<TaskWorktree> {
  const { repository, taskId, branch } = request;
  const top = repository.top;
  await checkBranchName(top, branch);
  await mkdir(request.worktreesRoot, { recursive: true });
  const path = worktreePath(await realpath(request.worktreesRoot), taskId);
  const entries = parseWorktreeList(await gitOk(top, ['worktree', 'list', '--porcelain'], 'listing worktrees'));
  // A worktree left by an earlier run gets back the `.git` file git wrote before git reads it.
  const earlier = await findWorktreeGitDir(repository.commonDir, path);
  if (earlier !== null && existsSync(path))
    await restoreGitFile({ workTree: path, gitDir: earlier, commonDir: repository.commonDir });
  const action = worktreeAction(entries, { path, branch, userCopy: top, pathExists: existsSync(path) });
  const done = async (created: boolean, base: string | null, reused: boolean): Promise<TaskWorktree> => {
    const dirs = await knownDirs(repository.commonDir, path);
    return withWorkdir({ path, workdir: join(path, repository.subfolder), branch, created, base, reused, ...dirs });
  };

  switch (action.kind) {
    case 'problem':
      throw new WiggumError('E_GIT', action.message, { details: { why: action.why, path, branch } });
    case 'reuse':
      return done(false, null, true);
    case 'replace':
      await gitOk(
        top,
        ['worktree', 'remove', path],
        `removing the task's worktree, which was on ${action.branch ?? 'a detached HEAD'}`,
      );
      break;
    case 'add':
      if (action.prune) await gitOk(top, ['worktree', 'prune'], 'pruning a worktree whose folder is gone');
      break;
  }

  if (await branchExists(top, branch)) {
    await addWorktree(top, ['worktree', 'add', '--quiet', path, branch], branch);
    return done(false, null, false);
  }
  const choice = chooseBase(request.base, repository);
  if (choice.kind === 'problem') throw new WiggumError('E_GIT', choice.message, { details: { why: choice.why } });
  const base = choice.ref;
  if ((await git(top, ['rev-parse', '--verify', '--quiet', `${base}^{commit}`])).exitCode !== 0)
    throw new WiggumError(
      'E_GIT',
      `the base "${base}" does not exist in ${top}: name an existing branch in base: (or git.base), e.g. one that "git branch" lists`,
      { details: { why: 'no-base', base } },
    );
  // A base that is a local branch becomes the task branch's upstream (as `git checkout -b` with
  // branch.autoSetupMerge does): the repository itself then records where the branch lands, for a
  // retry, a restart or a person running `git status` in the worktree.
  const track = (await branchExists(top, base)) ? ['--track'] : [];
  await addWorktree(top, ['worktree', 'add', '--quiet', ...track, '-b', branch, path, base], branch);
  return done(true, base, false);
}

/** The worktree's git dirs, found in the common dir and remembered for wiggum's git there. */
async function knownDirs(commonDir: string, path: string): Promise<{ commonDir: string; gitDir: string }> {
  const gitDir = await findWorktreeGitDir(commonDir, path);
  if (gitDir === null)
    throw new WiggumError(
      'E_GIT',
      `git made the worktree ${path} but none of ${join(commonDir, 'worktrees')} names it: run "git worktree prune" in the repository and start the task again`,
      { details: { why: 'no-worktree-gitdir', path } },
    );
  trustWorktree({ workTree: path, gitDir, commonDir });
  return { commonDir, gitDir };
}

/** The agent's folder exists even when the subfolder is not in the branch (untracked in the user's copy). */
async function withWorkdir(worktree: TaskWorktree): Promise<TaskWorktree> {
  await mkdir(worktree.workdir, { recursive: true });
  return worktree;
}

async function checkBranchName(top: string, branch: string): Promise<void> {
  if ((await git(top, ['check-ref-format', '--branch', branch])).exitCode !== 0)
    throw new WiggumError(
      'E_GIT',
      `git refuses "${branch}" as a branch name (git check-ref-format): name another branch: in the task`,
      { details: { why: 'bad-branch', branch } },
    );
}

async function branchExists(top: string, branch: string): Promise<boolean> {
  return (await git(top, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])).exitCode === 0;
}

/**
 * `git worktree add`, tried again while another task's git holds a lock of the shared repository
 * (several tasks start at once); any other refusal is E_GIT with git's words.
 */
async function addWorktree(top: string, args: string[], branch: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const result = await git(top, args);
    if (result.exitCode === 0) return;
    const refusal = gitRefusal(result.stderr);
    if (refusal === 'lock-busy' && attempt < 5) {
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      continue;
    }
    throw new WiggumError(
      'E_GIT',
      `git could not make the task's worktree on ${branch}: ${result.stderr.trim() || `exit ${result.exitCode}`}` +
        (refusal === 'already-checked-out'
          ? ' (another worktree has the branch: name another branch: in the task)'
          : ''),
      { details: { why: refusal, args } },
    );
  }
}

/** Removes an ended task's worktree (its branch stays), unless configured to keep it or it holds uncommitted work. */
export function closeTaskWorktree(top: string, path: string, keepWorktree: boolean): Promise<WorktreeEnd> {
  return serialPerRepository(top, () => closeNow(top, path, keepWorktree));
}

async function closeNow(top: string, path: string, keepWorktree: boolean): Promise<WorktreeEnd> {
  if (!existsSync(path)) {
    forgetWorktree(path);
    return { kind: 'remove' };
  }
  const dirs = await dirsOf(top, path);
  // git's `worktree remove` refuses a worktree whose `.git` file no longer points back at it.
  if (dirs !== null) await restoreGitFile(dirs);
  const end = worktreeEnd(keepWorktree, await uncommittedFiles(path, dirs), path);
  if (end.kind === 'remove') {
    await gitOk(top, ['worktree', 'remove', path], "removing the task's worktree");
    forgetWorktree(path);
  }
  return end;
}

/** The worktree's dirs, from the repository of the user's copy `top` (never from the worktree's `.git`). */
async function dirsOf(top: string, path: string): Promise<WorktreeGitDirs | null> {
  const commonDir = await commonDirOf(top);
  const gitDir = await findWorktreeGitDir(commonDir, path);
  return gitDir === null ? null : { workTree: path, gitDir, commonDir };
}

/** The files a worktree holds that no commit has: changed, staged or untracked (ignored ones aside). */
export async function uncommittedFiles(path: string, dirs: WorktreeGitDirs | null = null): Promise<string[]> {
  const status = await gitOk(
    path,
    ['status', NO_SUBMODULE_STATUS, '--porcelain', '--untracked-files=all'],
    'reading the worktree',
    dirs === null ? {} : { worktree: dirs },
  );
  return status
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.slice(3));
}

/**
 * Closes a worktree found under the worktrees root whose task is gone (deleted while it ran, or
 * while wiggum was down): removed as an ended task's would be, so its branch and commits stay and
 * uncommitted work keeps it. A folder git does not know as a worktree is left as it is (null).
 * Its repository is not known here, so it is read from the worktree's `.git` file, which an agent
 * may have rewritten: it is used only when the repository it names lists this worktree and does not
 * lie in a place an agent writes (orphanRepository).
 */
export async function closeOrphanWorktree(path: string, keepWorktree: boolean): Promise<WorktreeEnd | null> {
  const real = await realpath(path);
  const commonDir = await orphanRepository(real);
  if (commonDir === null) return null;
  const list = await git(commonDir, ['worktree', 'list', '--porcelain'], { env: { GIT_DIR: commonDir } });
  if (list.exitCode !== 0) return null;
  const [main, ...others] = parseWorktreeList(list.stdout);
  if (main === undefined || !others.some((entry) => entry.path === real)) return null;
  return closeTaskWorktree(main.path, real, keepWorktree);
}

/**
 * The local branch `branch` was started from (its upstream when that is a local branch: `--track`
 * above), or null when git records none (a branch made by hand, or from a tag or a commit).
 */
export async function trackedBase(top: string, branch: string): Promise<string | null> {
  const remote = await git(top, ['config', '--get', `branch.${branch}.remote`]);
  const merge = await git(top, ['config', '--get', `branch.${branch}.merge`]);
  if (remote.exitCode !== 0 || merge.exitCode !== 0 || remote.stdout.trim() !== '.') return null;
  const ref = merge.stdout.trim();
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null;
}
