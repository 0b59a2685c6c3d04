import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { WiggumError } from '../errors.js';
import { git, gitOk } from './git.js';
import { importObjects } from './sandbox-git-import.js';
import { inPlaceGitPlan } from './sandbox-git-in-place.js';
import {
  REAL_OBJECTS_FOLDER,
  branchRefFolder,
  branchUpdate,
  gitSandboxEnv,
  gitSandboxMounts,
} from './sandbox-git-plan.js';
import type { GitRunEnd, GitSandboxPaths, GitSandboxPlan } from './sandbox-git-plan.js';
export type { GitRunEnd, GitSandboxPlan } from './sandbox-git-plan.js';
import { findWorktreeGitDir, orphanRepository, restoreGitFile } from './worktree-dirs.js';
import type { WorktreeGitDirs } from './worktree-dirs.js';

/** The task's worktree, as openTaskWorktree returned it (`TaskWorktree` has these fields). */
export interface SandboxWorktree {
  /** The worktree's top. */
  path: string;
  commonDir: string;
  /** `<commonDir>/worktrees/<name>`. */
  gitDir: string;
  branch: string;
}

/**
 * Prepares what a confined agent sees of its worktree's shared `.git` for one run: the common dir
 * read-only; the worktree's own git dir writable but its `commondir`, `gitdir` and `config.worktree`;
 * a private objects folder (the real objects read-only behind it, through `info/alternates`); private
 * copies of the branch's ref folder and reflog folder. `scratchDir` is the run's own folder; its `git/`
 * is made here and removed by afterRun. A worktree that is the user's copy (gitDir = commonDir)
 * has its index and HEAD beside the config: sandbox-git-in-place.ts.
 */
export async function gitSandboxPlan(worktree: SandboxWorktree, scratchDir: string): Promise<GitSandboxPlan> {
  const { commonDir, gitDir, branch } = worktree;
  if (gitDir === commonDir) return inPlaceGitPlan(commonDir);
  // Runs of this task cut off before their end (wiggum killed) left their commits in their folders.
  const recovered = await recoverCutRuns(worktree, dirname(scratchDir));
  const root = join(scratchDir, 'git');
  const paths = privatePaths(worktree, root);
  const before = await tip(commonDir, branch);
  await rm(root, { recursive: true, force: true });
  await prepare(paths);
  // Written last: a folder with it is a run whose end is still owed (recoverCutRuns).
  await writeFile(join(root, BEFORE), `${before}\n${branch}\n`);
  return {
    mounts: gitSandboxMounts(paths),
    env: gitSandboxEnv(),
    afterRun: () => afterRun(worktree, paths, before, root),
    recovered,
  };
}

/**
 * Before a task worktree whose task is gone is closed (daemon/orphan-worktrees.ts): the commits of
 * its runs cut off by a kill of wiggum, moved onto their branch so that closing keeps them. The
 * branch is the one each run was planned for; the repository, the one the worktree's git lists.
 */
export async function recoverOrphanRuns(worktreePath: string, taskFolder: string): Promise<GitRunEnd[]> {
  const real = await realpath(worktreePath).catch(() => null);
  const commonDir = real === null ? null : await orphanRepository(real);
  if (real === null || commonDir === null) return [];
  const gitDir = await findWorktreeGitDir(commonDir, real);
  if (gitDir === null) return [];
  return recoverCutRuns({ path: real, commonDir, gitDir, branch: '' }, taskFolder);
}

/** In a run's `git/` folder: the branch's tip when the run started, and the branch, a line each. */
const BEFORE = 'before';

function privatePaths(worktree: SandboxWorktree, root: string): GitSandboxPaths {
  return {
    commonDir: worktree.commonDir,
    gitDir: worktree.gitDir,
    branch: worktree.branch,
    privateObjects: join(root, 'objects'),
    privateRefs: join(root, 'refs'),
    privateLogs: join(root, 'logs'),
  };
}

/**
 * The ends owed by runs of the task whose wiggum was killed before it moved their commits in
 * (each run folder under `taskFolder` whose `git/` still holds its `before`): done now, as the
 * run's own end would have, so a commit made before a kill -9 is not lost. Each folder goes after.
 */
async function recoverCutRuns(worktree: SandboxWorktree, taskFolder: string): Promise<GitRunEnd[]> {
  const ends: GitRunEnd[] = [];
  for (const run of await readdir(taskFolder).catch(() => [] as string[])) {
    const root = join(taskFolder, run, 'git');
    const [before = '', branch = ''] = (await readFile(join(root, BEFORE), 'utf8').catch(() => '')).split('\n');
    if (before === '') continue;
    try {
      // The branch the run was planned for (a worktree's HEAD is the agent's to rewrite).
      const planned = { ...worktree, branch: branch === '' ? worktree.branch : branch };
      ends.push(await afterRun(planned, privatePaths(planned, root), before, root));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }
  return ends;
}

async function prepare(paths: GitSandboxPaths): Promise<void> {
  const { commonDir, gitDir } = paths;
  const { folder } = branchRefFolder(paths.branch);
  await mkdir(join(paths.privateObjects, 'info'), { recursive: true });
  await mkdir(join(paths.privateObjects, REAL_OBJECTS_FOLDER));
  await writeFile(
    join(paths.privateObjects, 'info', 'alternates'),
    `${join(commonDir, 'objects', REAL_OBJECTS_FOLDER)}\n`,
  );
  // The folders the private copies are shown over must exist: nothing can be made in a read-only one.
  for (const [real, copy] of [
    [join(commonDir, 'refs', 'heads', folder), paths.privateRefs],
    [join(commonDir, 'logs', 'refs', 'heads', folder), paths.privateLogs],
  ] as const) {
    await mkdir(real, { recursive: true });
    await cp(real, copy, { recursive: true, verbatimSymlinks: true });
  }
  // Made empty when missing, so that it is there to be read-only: git reads it when
  // extensions.worktreeConfig is on, and the agent must not be the one to write it.
  const perWorktree = join(gitDir, 'config.worktree');
  if (!existsSync(perWorktree)) await writeFile(perWorktree, '');
}

async function afterRun(
  worktree: SandboxWorktree,
  paths: GitSandboxPaths,
  before: string,
  root: string,
): Promise<GitRunEnd> {
  const { commonDir, gitDir, branch } = worktree;
  const dirs: WorktreeGitDirs = { workTree: worktree.path, gitDir, commonDir };
  const restored: string[] = [];
  const head = `ref: refs/heads/${branch}\n`;
  if ((await readFile(join(gitDir, 'HEAD'), 'utf8').catch(() => '')) !== head) {
    await writeFile(join(gitDir, 'HEAD'), head);
    restored.push('HEAD');
  }
  if (await restoreGitFile(dirs)) restored.push('.git');
  const left = await readFile(join(paths.privateRefs, branchRefFolder(branch).name), 'utf8').catch(() => null);
  const update = branchUpdate(branch, before, left);
  if (update.kind !== 'move') {
    await rm(root, { recursive: true, force: true });
    return { branch: update, restored };
  }
  await importObjects(commonDir, paths.privateObjects, root);
  const what = `moving ${branch} to the agent's commit ${update.to}`;
  const complete = await isCompleteCommit(commonDir, update.to, before);
  if (complete !== null)
    return {
      branch: {
        kind: 'refused',
        why: 'not-a-commit',
        message: `the agent left ${branch} at ${update.to}, ${complete}; the branch stays at ${before}`,
      },
      restored,
    };
  await gitOk(
    commonDir,
    ['update-ref', '-m', `wiggum: the agent's commits on ${branch}`, `refs/heads/${branch}`, update.to, before],
    what,
    { env: { GIT_DIR: commonDir } },
  );
  await rm(root, { recursive: true, force: true });
  return { branch: { kind: 'moved', from: before, to: update.to }, restored };
}

/** Null when `commit` is a commit whose history down to `before` is all in the repository, else what it is. */
async function isCompleteCommit(commonDir: string, commit: string, before: string): Promise<string | null> {
  const env = { env: { GIT_DIR: commonDir } };
  const type = (await git(commonDir, ['cat-file', '-t', commit], env)).stdout.trim();
  if (type !== 'commit')
    return type === '' ? 'which is no object the repository has' : `which is a ${type}, not a commit`;
  const walk = await git(commonDir, ['rev-list', '--objects', '--quiet', commit, '--not', before], env);
  return walk.exitCode === 0 ? null : `whose history lacks objects (${walk.stderr.trim()})`;
}

async function tip(commonDir: string, branch: string): Promise<string> {
  const result = await git(commonDir, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], {
    env: { GIT_DIR: commonDir },
  });
  if (result.exitCode !== 0)
    throw new WiggumError(
      'E_GIT',
      `the task's branch ${branch} does not exist in ${commonDir}: open the task's worktree (which makes it) before planning its sandbox`,
      { details: { why: 'missing-branch', branch } },
    );
  return result.stdout.trim();
}
