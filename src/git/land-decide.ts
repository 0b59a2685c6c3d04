import type { LandMergeOutcome } from './land-merge.js';
import type { LandPrOutcome } from './land-pr.js';

/**
 * What the loop does after a landing attempt:
 * - `done`: the work landed (or the pull request is open); the task moves to Done/;
 * - `send-back`: a conflict or a failing check on the merged result; the task goes back to the
 *   loop with `landingStory` as its next story (not a success, never Done/);
 * - `reject`: out of `git.land_attempts`, or a failure no retry can fix; Rejected/ with the reason;
 * - `wait`: something outside the task must change first (the user's local changes, a rebase in
 *   progress); try again later, the reason shown in status;
 * - `retry`: a transient failure (network, a 502); try again with the retry policy's backoff.
 */
export type LandingNext = 'done' | 'send-back' | 'reject' | 'wait' | 'retry';

/**
 * Pure. `attempt` counts landing attempts that ended in a conflict or a failed check, this one
 * included; `maxAttempts` is `git.land_attempts`.
 */
export function afterLanding(
  outcome: LandMergeOutcome | LandPrOutcome,
  attempt: number,
  maxAttempts: number,
): { next: LandingNext; reason: string } {
  switch (outcome.kind) {
    case 'landed':
      return {
        next: 'done',
        reason: outcome.how === 'up-to-date' ? 'the base already held the branch' : `landed (${outcome.how})`,
      };
    case 'opened':
      return { next: 'done', reason: outcome.url === null ? 'pull request opened' : `pull request ${outcome.url}` };
    case 'wait':
      return { next: 'wait', reason: outcome.reason };
    case 'failed':
      return outcome.retry === 'transient'
        ? { next: 'retry', reason: outcome.message }
        : { next: 'reject', reason: outcome.message };
    case 'conflict':
    case 'check-failed': {
      const what =
        outcome.kind === 'conflict'
          ? `the merge conflicts in ${outcome.files.join(', ')}`
          : 'the check failed on the merged result';
      return attempt < maxAttempts
        ? {
            next: 'send-back',
            reason: `${what}; back to the loop to resolve it (landing attempt ${attempt} of ${maxAttempts})`,
          }
        : {
            next: 'reject',
            reason: `${what}, still after ${maxAttempts} landing attempt${maxAttempts === 1 ? '' : 's'}`,
          };
    }
  }
}

/**
 * The story and context a task sent back gets: what conflicted (or failed) against which commit of
 * the base, and how to resolve it in its own worktree, so that the next landing merges cleanly.
 */
export function landingStory(
  outcome: Extract<LandMergeOutcome, { kind: 'conflict' | 'check-failed' }>,
  branch: string,
  base: string,
): { title: string; context: string } {
  if (outcome.kind === 'conflict') {
    const files = outcome.files.map((file) => `- ${file}`).join('\n');
    return {
      title: `Resolve the merge conflict between ${branch} and ${base}`,
      context: [
        `Landing ${branch} into ${base} (at ${outcome.baseCommit}) stopped on a merge conflict in:`,
        files,
        '',
        `Merge ${base} into this branch (\`git merge ${outcome.baseCommit}\`), resolve the conflicting files so`,
        `that both sides' intent is kept, make the checks pass, and commit the merge. The landing is tried`,
        'again when the task is complete.',
      ].join('\n'),
    };
  }
  return {
    title: `Make the checks pass on ${branch} merged with ${base}`,
    context: [
      `${branch} merged into ${base} (merged commit ${outcome.merged}) fails the task's check:`,
      '',
      '```',
      outcome.output.trim().split('\n').slice(-40).join('\n'),
      '```',
      '',
      `Merge ${base} into this branch, fix what the check reports, and commit. The landing is tried again`,
      'when the task is complete.',
    ].join('\n'),
  };
}

/**
 * How long a landing that waits (the user's copy of the base has local changes, a rebase is under
 * way) waits before it looks again: 1 s, doubling, at most 15 s, so that it lands soon after the
 * person commits or stashes and costs a few git calls a minute meanwhile. Pure.
 */
export function landingWaitMs(waits: number): number {
  return Math.min(1000 * 2 ** Math.max(0, waits - 1), 15_000);
}

/**
 * The story a complete task gets when its worktree holds work no commit has: a `merge` or `pr`
 * landing takes commits only, so landing now would leave that work behind while the task says
 * Done. Pure.
 */
export function uncommittedStory(files: readonly string[], branch: string): { title: string; context: string } {
  const shown = files.slice(0, 20).map((file) => `- ${file}`);
  if (files.length > 20) shown.push(`- … and ${files.length - 20} more`);
  return {
    title: `Commit the work left uncommitted on ${branch}`,
    context: [
      `The task was reported complete, but these files in its worktree are not committed on ${branch}:`,
      ...shown,
      '',
      'Landing takes commits only. Commit the files that are part of the work (remove the ones that are',
      'not, or add them to .gitignore), then finish as before. The landing is tried again when the task is',
      'complete.',
    ].join('\n'),
  };
}
