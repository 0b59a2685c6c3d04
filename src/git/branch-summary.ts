import { gitOk } from './git.js';

/** What a task's branch holds compared with its base, for the Done summary of a `branch` landing. */
export interface BranchSummary {
  branch: string;
  base: string;
  /** The commit the branch forked from (`git merge-base base branch`). */
  mergeBase: string;
  /** The branch's own commits, oldest first: short sha and subject. */
  commits: Array<{ sha: string; subject: string }>;
  /** `git diff --stat` from the merge base to the branch tip (empty when nothing changed). */
  diffstat: string;
  /** All of the above as Markdown lines, ready for the summary. */
  text: string;
}

const MAX_COMMITS_LISTED = 50;

/**
 * The branch's commits and a diffstat against the merge base with `base` (not against the base's
 * tip: what the user reviews is what the task did, not what landed on the base since).
 */
export async function branchSummary(repo: string, branch: string, base: string): Promise<BranchSummary> {
  const what = `summing up branch ${branch} against ${base}`;
  const branchRef = `refs/heads/${branch}`;
  const mergeBase = (await gitOk(repo, ['merge-base', `refs/heads/${base}`, branchRef], what)).trim();
  const log = await gitOk(repo, ['log', '--reverse', '--format=%h%x00%s', `${mergeBase}..${branchRef}`], what);
  const commits = log
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [sha = '', subject = ''] = line.split('\0');
      return { sha, subject };
    });
  const diffstat = (
    await gitOk(repo, ['diff', '--no-ext-diff', '--no-textconv', '--stat=100', mergeBase, branchRef], what)
  ).trimEnd();
  return { branch, base, mergeBase, commits, diffstat, text: summaryText(branch, base, commits, diffstat) };
}

/** The summary as Markdown: the branch, its commits (the first 50), the diffstat in a code block. */
export function summaryText(
  branch: string,
  base: string,
  commits: ReadonlyArray<{ sha: string; subject: string }>,
  diffstat: string,
): string {
  const count = commits.length === 1 ? '1 commit' : `${commits.length} commits`;
  const lines = [`Branch \`${branch}\`: ${count} on top of \`${base}\`.`];
  if (commits.length > 0) {
    lines.push('');
    for (const commit of commits.slice(0, MAX_COMMITS_LISTED)) lines.push(`- ${commit.sha} ${commit.subject}`);
    if (commits.length > MAX_COMMITS_LISTED) lines.push(`- … and ${commits.length - MAX_COMMITS_LISTED} more`);
  }
  if (diffstat !== '') lines.push('', '```', diffstat, '```');
  return lines.join('\n');
}
