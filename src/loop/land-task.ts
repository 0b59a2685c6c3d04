import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { WiggumConfig } from '../config/config.js';
import type { LandMode } from '../config/schema.js';
import { WiggumError, systemErrorCode } from '../errors.js';
import { branchSummary } from '../git/branch-summary.js';
import { git } from '../git/git.js';
import { landMerge } from '../git/land-merge.js';
import type { LandMergeOutcome, VerifyResult } from '../git/land-merge.js';
import { landPr } from '../git/land-pr.js';
import type { LandPrOutcome } from '../git/land-pr.js';
import { trackedBase, uncommittedFiles } from '../git/worktree.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import type { PreparedWorktree } from './prepare.js';

/** What a complete task's landing needs: how, where git runs, the branch and the base it lands on. */
export interface LandingTarget {
  mode: LandMode;
  worktree: PreparedWorktree;
  /** The agent's folder inside the worktree, relative to its top ('' at the top): where the check runs. */
  subfolder: string;
  base: string;
}

/**
 * The base a task's branch lands on: the task's `base:` or `git.base`, else the branch it was
 * started from (git records it as the branch's upstream: worktree.ts), else the branch the user's
 * copy is on. A detached HEAD with none of these is a problem the person must settle with `base:`.
 */
export async function landingBase(worktree: PreparedWorktree, configured: string | null): Promise<string> {
  if (configured !== null) return configured;
  const tracked = await trackedBase(worktree.repository, worktree.branch);
  if (tracked !== null) return tracked;
  const current = await git(worktree.repository, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (current.exitCode === 0 && current.stdout.trim() !== '' && current.stdout.trim() !== worktree.branch)
    return current.stdout.trim();
  throw new WiggumError(
    'E_GIT',
    `there is no base to land ${worktree.branch} on: git records none for it and the repository is on a detached HEAD; set base: (e.g. base: main) in the task or git.base in the config`,
    { details: { branch: worktree.branch } },
  );
}

export function landingTarget(
  mode: LandMode,
  worktree: PreparedWorktree,
  agentWorkdir: string,
  base: string,
): LandingTarget {
  return { mode, worktree, subfolder: relative(worktree.path, agentWorkdir), base };
}

/** One landing attempt's outcome and the Markdown the Done summary shows for it. */
export interface LandingStep {
  outcome: LandMergeOutcome | LandPrOutcome | { kind: 'kept' };
  /** The branch, its commits and diffstat against the base, and what the landing did. */
  summary: string;
}

export interface LandingEffects {
  config: WiggumConfig;
  title: string;
  intentFile: string;
  /** Runs the task's verify check in a folder holding the merged result; absent: no check. */
  verify?: (dir: string) => Promise<VerifyResult>;
}

/**
 * Lands the branch once: `branch` keeps it (the summary says where it is), `merge` merges it into
 * the base (landMerge: a scratch worktree, the check on the merged result, compare-and-swap of the
 * base), `pr` pushes it and opens a pull request. The branch summary is taken before the landing,
 * against the base as it was: after a fast-forward there would be nothing left to show.
 */
export async function landOnce(target: LandingTarget, effects: LandingEffects): Promise<LandingStep> {
  const { worktree, base } = target;
  const repo = worktree.path;
  const described = (await branchSummary(repo, worktree.branch, base)).text;
  switch (target.mode) {
    case 'branch': {
      const uncommitted = await uncommittedFiles(worktree.path);
      const left =
        uncommitted.length === 0
          ? ''
          : `\n\n${uncommitted.length} file${uncommitted.length === 1 ? ' was' : 's were'} left uncommitted (${uncommitted.slice(0, 5).join(', ')}${uncommitted.length > 5 ? ', …' : ''}): the worktree ${worktree.path} is kept with them.`;
      return {
        outcome: { kind: 'kept' },
        summary: `${described}\n\nThe branch is kept for review; merge it with \`git merge ${worktree.branch}\`.${left}`,
      };
    }
    case 'merge': {
      const outcome = await landMerge({
        repo,
        branch: worktree.branch,
        base,
        intentFile: effects.intentFile,
        ...(effects.verify === undefined
          ? {}
          : { verify: (dir: string) => effects.verify!(join(dir, target.subfolder)) }),
      });
      return {
        outcome,
        summary:
          outcome.kind === 'landed' ? `${described}\n\n${mergedLine(outcome, worktree.branch, base)}` : described,
      };
    }
    case 'pr': {
      const { remote, pr } = effects.config.git;
      const outcome = await landPr({ repo, branch: worktree.branch, base, remote, title: effects.title, command: pr });
      const opened =
        outcome.kind !== 'opened'
          ? ''
          : outcome.url === null
            ? `Pushed to \`${remote}\`; the pull-request command succeeded without printing a URL.`
            : `Pull request: ${outcome.url}`;
      return { outcome, summary: opened === '' ? described : `${described}\n\n${opened}` };
    }
  }
}

function mergedLine(outcome: Extract<LandMergeOutcome, { kind: 'landed' }>, branch: string, base: string): string {
  const short = outcome.newBase.slice(0, 12);
  if (outcome.how === 'up-to-date') return `\`${base}\` already held \`${branch}\`: nothing to merge.`;
  const how = outcome.how === 'ff' ? 'fast-forward' : `merge commit ${short}`;
  const followed =
    outcome.followed.length === 0 ? '' : ` The checkout of \`${base}\` at ${outcome.followed.join(', ')} was updated.`;
  return `Merged into \`${base}\` (${how}): \`${base}\` is now at ${short}, was ${outcome.oldBase.slice(0, 12)}.${followed}`;
}

/** Where a task's landing keeps its records: its session folder, else the state folder. */
export function landingFiles(
  sessionDir: string | null,
  stateDir: string,
  taskId: string,
): { intent: string; attempts: string } {
  const dir = sessionDir ?? join(stateDir, 'landing', taskId);
  return { intent: join(dir, 'landing-intent.json'), attempts: join(dir, 'landing-attempts') };
}

/** Landings of this task that ended in a conflict or a failed check, kept across restarts. */
export async function readLandingAttempts(file: string): Promise<number> {
  try {
    const value = Number((await readFile(file, 'utf8')).trim());
    return Number.isInteger(value) && value >= 0 ? value : 0;
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return 0;
    throw error;
  }
}

export async function writeLandingAttempts(file: string, attempts: number): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, `${attempts}\n`);
}
