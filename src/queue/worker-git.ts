import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { WiggumError } from '../errors.js';
import { commitLeftovers, git, gitOk, headCommit } from '../git/git.js';
import type { CodePlace } from './code-place.js';
import { COMMIT_PATTERN } from './code-place.js';
import { pushLeaseArgs, pushOutcome } from './fencing.js';
import type { PushOutcome } from './fencing.js';

/**
 * A worker's own clone of a task's code: cloned from the task's remote (or fetched again when the
 * worker ran the task before), on the task's branch at the commit the run resumes from.
 * `lease`: the commit the remote branch is at now (null: no such branch), the only state in which
 * this worker's first push may land.
 */
export interface WorkerClone {
  dir: string;
  lease: string | null;
}

export async function openWorkerClone(dir: string, code: CodePlace): Promise<WorkerClone> {
  if (existsSync(join(dir, '.git'))) {
    await gitOk(dir, ['remote', 'set-url', 'origin', code.remote], 'pointing the clone at the task remote');
    await gitOk(dir, ['fetch', '--quiet', '--prune', 'origin'], `fetching ${code.remote}`);
  } else {
    await mkdir(dirname(dir), { recursive: true });
    await gitOk(dirname(dir), ['clone', '--quiet', '--no-checkout', code.remote, dir], `cloning ${code.remote}`);
  }
  const lease = await remoteBranchCommit(dir, code.branch);
  const start = code.commit ?? lease ?? (await baseCommit(dir, code.base));
  await gitOk(dir, ['checkout', '--quiet', '--force', '-B', code.branch, start], `checking out ${code.branch}`);
  await gitOk(dir, ['clean', '--quiet', '-fdx'], 'cleaning the clone');
  return { dir, lease };
}

/** The commit `branch` is at on the remote now (one round trip), or null when it does not exist. */
export async function remoteBranchCommit(dir: string, branch: string): Promise<string | null> {
  const out = await gitOk(dir, ['ls-remote', 'origin', `refs/heads/${branch}`], `reading ${branch} on the remote`);
  const sha = out.trim().split(/\s+/)[0] ?? '';
  return COMMIT_PATTERN.test(sha) ? sha : null;
}

async function baseCommit(dir: string, base: string | null): Promise<string> {
  for (const ref of base === null ? ['origin/HEAD', 'origin/main', 'origin/master'] : [`origin/${base}`]) {
    const result = await git(dir, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
    if (result.exitCode === 0) return result.stdout.trim();
  }
  throw new WiggumError(
    'E_GIT',
    base === null
      ? "the task's remote has no default branch to start the task's branch from: push a first commit to it"
      : `the task's base branch ${base} is not on its remote: push it, or change the task's base:`,
  );
}

/** What came of an iteration's push. */
export type PushResult = { kind: 'pushed'; commit: string } | { kind: 'fenced'; outcome: PushOutcome };

/**
 * Commits what the agent left uncommitted, then pushes the branch with a lease on the last commit
 * this worker pushed (or resumed from): of two workers that think they own the run, only one push
 * lands. A push git could not make at all (the remote unreachable) is E_GIT.
 */
export async function pushIteration(clone: WorkerClone, code: CodePlace, message: string): Promise<PushResult> {
  await commitLeftovers(clone.dir, message);
  const head = await headCommit(clone.dir);
  if (head === null) throw new WiggumError('E_GIT', `the worker's clone ${clone.dir} has no commit to push`);
  if (head === clone.lease) return { kind: 'pushed', commit: head };
  const args = pushLeaseArgs({ remote: code.remote, branch: code.branch, commit: head, lease: clone.lease });
  const result = await git(clone.dir, args);
  const outcome = pushOutcome(result.stdout, code.branch);
  if (outcome === 'pushed' || outcome === 'up-to-date') {
    clone.lease = head;
    return { kind: 'pushed', commit: head };
  }
  if (outcome !== null) return { kind: 'fenced', outcome };
  throw new WiggumError(
    'E_GIT',
    `could not push ${code.branch} to ${code.remote}: ${result.stderr.trim() || `git exit ${result.exitCode}`}`,
  );
}
