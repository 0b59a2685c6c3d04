import { WiggumError } from '../errors.js';
import { runCommand } from '../harness/run-command.js';
import type { CommandResult } from '../harness/run-command.js';

/** What an iteration did to the repository (seed 001: history records at least the changed-file count). */
export interface GitSummary {
  headBefore: string | null;
  headAfter: string | null;
  /** `sha subject` of each commit made, oldest first. */
  commits: string[];
  filesChanged: number;
  /** Changed files: committed since `headBefore`, plus anything left uncommitted. */
  files: string[];
}

const GIT_ENV = { GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0' };
const MAX_FILES_LISTED = 200;

async function git(cwd: string, args: string[]): Promise<CommandResult> {
  return runCommand('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, timeoutMs: 60_000 });
}

async function gitOk(cwd: string, args: string[], what: string): Promise<string> {
  const result = await git(cwd, args);
  if (result.exitCode !== 0) {
    throw new WiggumError('E_GIT', `git ${args.join(' ')} failed in ${cwd} while ${what}: ${result.stderr.trim() || `exit ${result.exitCode}`}`, {
      details: { cwd, args },
    });
  }
  return result.stdout;
}

/** Whether `dir` is inside a git work tree (false when git is not installed). */
export async function isGitRepository(dir: string): Promise<boolean> {
  try {
    const result = await git(dir, ['rev-parse', '--is-inside-work-tree']);
    return result.exitCode === 0 && result.stdout.trim() === 'true';
  } catch {
    return false;
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
    if ((await git(dir, ['rev-parse', '--verify', '--quiet', `refs/heads/${candidate}`])).exitCode === 0) return candidate;
  }
  return currentBranch(dir);
}

/**
 * Puts the work tree on `branch` (seed 003): checked out if it exists, else created from the default
 * branch. Uncommitted changes travel with the checkout; git refuses when they would be overwritten,
 * and that refusal is E_GIT with git's own words.
 */
export async function checkoutTaskBranch(dir: string, branch: string): Promise<{ created: boolean; from: string | null }> {
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
  const startPoint = base !== null && (await git(dir, ['rev-parse', '--verify', '--quiet', `refs/heads/${base}`])).exitCode === 0 ? base : 'HEAD';
  await gitOk(dir, ['checkout', '--quiet', '-b', branch, startPoint], `creating the task's branch ${branch} from ${startPoint}`);
  return { created: true, from: startPoint };
}

/** Commits made and files changed since `headBefore`, including what is left uncommitted. */
export async function summarizeChanges(dir: string, headBefore: string | null): Promise<GitSummary> {
  const headAfter = await headCommit(dir);
  const commits: string[] = [];
  const files = new Set<string>();
  if (headAfter !== null && headAfter !== headBefore) {
    const range = headBefore === null ? [headAfter] : [`${headBefore}..${headAfter}`];
    const log = await git(dir, ['log', '--reverse', '--format=%h %s', ...range]);
    if (log.exitCode === 0) commits.push(...log.stdout.split('\n').filter((line) => line !== ''));
    const diff = headBefore === null ? await git(dir, ['show', '--name-only', '--format=', ...range]) : await git(dir, ['diff', '--name-only', headBefore, headAfter]);
    if (diff.exitCode === 0) for (const file of diff.stdout.split('\n')) if (file !== '') files.add(file);
  }
  const status = await git(dir, ['status', '--porcelain', '--untracked-files=all']);
  if (status.exitCode === 0) {
    for (const line of status.stdout.split('\n')) {
      const path = line.slice(3).replace(/^.* -> /, '');
      if (path !== '') files.add(path);
    }
  }
  const list = [...files].sort();
  return { headBefore, headAfter, commits, filesChanged: list.length, files: list.slice(0, MAX_FILES_LISTED) };
}

/** Commits everything left uncommitted (config `git.auto_commit`); returns the new commit or null. */
export async function commitLeftovers(dir: string, message: string): Promise<string | null> {
  const status = await git(dir, ['status', '--porcelain', '--untracked-files=all']);
  if (status.exitCode !== 0 || status.stdout.trim() === '') return null;
  await gitOk(dir, ['add', '--all'], 'staging leftovers');
  await gitOk(dir, ['commit', '--quiet', '--no-verify', '-m', message], 'committing leftovers');
  return headCommit(dir);
}
