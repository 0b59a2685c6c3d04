import { accessSync, constants, existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { WiggumError } from '../errors.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import { runCaptured } from '../harness/run-captured.js';
import type { CommandResult } from '../harness/run-captured.js';
import { knownWorktreeOf, worktreeGitEnv } from './worktree-dirs.js';
import type { WorktreeGitDirs } from './worktree-dirs.js';

const GIT_ENV = { GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0' };

/**
 * Put in front of every git command wiggum runs: hooks and fsmonitor off, whatever a repository's
 * files say (docs/decisions.md, "wiggum's own git runs no hook, fsmonitor or submodule's status").
 * `-c` reaches the git processes git itself starts.
 */
export const HARDENED_GIT = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];

/**
 * Given to every `git status` wiggum runs: without it git runs `git status` again inside each
 * submodule, with that repository's own config (its filters), and an agent can make a submodule
 * inside its worktree.
 */
export const NO_SUBMODULE_STATUS = '--ignore-submodules=all';

/**
 * git's absolute path, found once: a bare "git" makes every spawn try each PATH entry in turn, and
 * an iteration runs git several times.
 */
let gitBinary: string | null = null;

function gitPath(): string {
  if (gitBinary !== null) return gitBinary;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'git');
    try {
      accessSync(candidate, constants.X_OK);
      gitBinary = candidate;
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return 'git';
}

export interface GitOptions {
  /**
   * Let git take its optional locks (`git status` then writes the index it refreshed). Off by
   * default: wiggum never locks the index of a checkout that is a person's. On for a worktree that
   * is wiggum's own, between agent runs: right after `git worktree add` every entry is "racily
   * clean" (written in the same second as the index), and a status that may not write the index
   * hashes every file again on every call (35 ms instead of 8 over 5,000 files, measured).
   */
  optionalLocks?: boolean;
  /**
   * The worktree's git dirs to use (`GIT_DIR`, `GIT_COMMON_DIR`, `GIT_WORK_TREE`). Default: those of
   * the task worktree `cwd` is in, when this process opened it (worktree-dirs.ts); else git finds
   * the repository from `cwd` as usual.
   */
  worktree?: WorktreeGitDirs;
  /** More environment (object directories of an import). */
  env?: Record<string, string>;
  /** Written to git's stdin. */
  input?: string;
}

export async function git(cwd: string, args: string[], options: GitOptions = {}): Promise<CommandResult> {
  const worktree = options.worktree ?? knownWorktreeOf(cwd);
  const env = {
    ...process.env,
    ...GIT_ENV,
    ...(options.optionalLocks === true ? { GIT_OPTIONAL_LOCKS: '1' } : {}),
    ...(worktree === null ? {} : worktreeGitEnv(worktree)),
    ...options.env,
  };
  return runCaptured(gitPath(), [...HARDENED_GIT, ...args], {
    cwd,
    env,
    timeoutMs: 60_000,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
}

export async function gitOk(cwd: string, args: string[], what: string, options: GitOptions = {}): Promise<string> {
  const result = await git(cwd, args, options);
  if (result.exitCode !== 0) {
    throw new WiggumError(
      'E_GIT',
      `git ${args.join(' ')} failed in ${cwd} while ${what}: ${result.stderr.trim() || `exit ${result.exitCode}`}`,
      {
        details: { cwd, args },
      },
    );
  }
  return result.stdout;
}

/**
 * Whether \`dir\` is inside a git work tree (false when git is not installed). Most task workdirs
 * are not repositories, so git is asked only when a \`.git\` exists in \`dir\` or above it.
 */
export async function isGitRepository(dir: string): Promise<boolean> {
  if (!hasDotGitAbove(dir)) return false;
  try {
    const result = await git(dir, ['rev-parse', '--is-inside-work-tree']);
    return result.exitCode === 0 && result.stdout.trim() === 'true';
  } catch {
    return false;
  }
}

function hasDotGitAbove(dir: string): boolean {
  for (let current = resolve(dir); ; current = dirname(current)) {
    if (existsSync(join(current, '.git'))) return true;
    if (dirname(current) === current) return false;
  }
}

/** The commit HEAD points at, or null in a repository without commits. */
export async function headCommit(dir: string): Promise<string | null> {
  const result = await git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD']);
  return result.exitCode === 0 ? result.stdout.trim() : null;
}

export async function currentBranch(dir: string): Promise<string | null> {
  const result = await git(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  return result.exitCode === 0 ? result.stdout.trim() : null;
}

/** origin's default branch, else `main` or `master` if it exists, else the current branch. */
export async function defaultBranch(dir: string): Promise<string | null> {
  const remote = await git(dir, ['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD']);
  if (remote.exitCode === 0) return remote.stdout.trim().replace(/^origin\//, '');
  for (const candidate of ['main', 'master']) {
    if ((await git(dir, ['rev-parse', '--verify', '--quiet', `refs/heads/${candidate}`])).exitCode === 0)
      return candidate;
  }
  return currentBranch(dir);
}

/**
 * Puts the work tree on the task's `branch`: checked out if it exists, else created from the default
 * branch. Uncommitted changes travel with the checkout; git refuses when they would be overwritten,
 * and that refusal is E_GIT with git's own words.
 */
export async function checkoutTaskBranch(
  dir: string,
  branch: string,
): Promise<{ created: boolean; from: string | null }> {
  if ((await currentBranch(dir)) === branch) return { created: false, from: null };
  const exists = (await git(dir, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])).exitCode === 0;
  if (exists) {
    await gitOk(dir, ['checkout', '--quiet', branch], `checking out the task's branch ${branch}`);
    return { created: false, from: null };
  }
  if ((await headCommit(dir)) === null) {
    await gitOk(dir, ['checkout', '--quiet', '-b', branch], `creating the task's branch ${branch}`);
    return { created: true, from: null };
  }
  const base = await defaultBranch(dir);
  const startPoint =
    base !== null && (await git(dir, ['rev-parse', '--verify', '--quiet', `refs/heads/${base}`])).exitCode === 0
      ? base
      : 'HEAD';
  await gitOk(
    dir,
    ['checkout', '--quiet', '-b', branch, startPoint],
    `creating the task's branch ${branch} from ${startPoint}`,
  );
  return { created: true, from: startPoint };
}

/** Commits everything left uncommitted (config `git.auto_commit`); returns the new commit or null. */
export async function commitLeftovers(dir: string, message: string): Promise<string | null> {
  const status = await git(dir, ['status', NO_SUBMODULE_STATUS, '--porcelain', '--untracked-files=all']);
  if (status.exitCode !== 0 || status.stdout.trim() === '') return null;
  await gitOk(dir, ['add', '--all'], 'staging leftovers');
  await gitOk(dir, ['commit', '--quiet', '--no-verify', '-m', message], 'committing leftovers');
  return headCommit(dir);
}

/**
 * Hides wiggum's own state folder (`path`, relative to the work tree's top) from git through
 * `.git/info/exclude`, so that it is neither counted as an agent's change nor committed by an
 * agent's `git add -A`: everything in it but the user's `config.yaml`, which is theirs to commit
 * (`/.wiggum/*` and `!/.wiggum/config.yaml`). The file is local to the clone. A broad `/.wiggum/`
 * line from an earlier wiggum, which hid the config too, is replaced. Returns whether it changed.
 */
export async function excludeFromGit(dir: string, absolutePath: string): Promise<boolean> {
  const top = (await git(dir, ['rev-parse', '--show-toplevel'])).stdout.trim();
  if (top === '') return false;
  const rel = relative(top, absolutePath);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return false;
  const excludeFile = resolve(
    dir,
    (await gitOk(dir, ['rev-parse', '--git-path', 'info/exclude'], 'finding info/exclude')).trim(),
  );
  const current = await readFile(excludeFile, 'utf8').catch(() => '');
  const next = withStateExcluded(current, `/${rel.split(sep).join('/')}`);
  if (next === current) return false;
  await mkdir(dirname(excludeFile), { recursive: true });
  await writeFileAtomic(excludeFile, next);
  return true;
}

/**
 * `exclude` (the text of .git/info/exclude) with the lines that hide the state folder `folder`
 * (`/.wiggum`) but not its config.yaml; an old broad `folder/` line becomes those lines.
 */
export function withStateExcluded(exclude: string, folder: string): string {
  const wanted = [`${folder}/*`, `!${folder}/config.yaml`];
  const lines = exclude.split('\n');
  const broad = lines.findIndex((line) => line.trim() === `${folder}/`);
  if (broad !== -1) {
    lines.splice(broad, 1, ...wanted.filter((line) => !lines.some((other) => other.trim() === line)));
    return lines.join('\n');
  }
  const missing = wanted.filter((line) => !lines.some((other) => other.trim() === line));
  if (missing.length === 0) return exclude;
  const header = missing.length === wanted.length ? ["# wiggum's state (its config.yaml is yours to commit)"] : [];
  return `${exclude}${exclude === '' || exclude.endsWith('\n') ? '' : '\n'}${[...header, ...missing].join('\n')}\n`;
}
