import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { branchSummary, summaryText } from '../../src/git/branch-summary.js';
import { git, gitRepo } from '../helpers/git-repo.js';

describe('branchSummary', () => {
  test("names the branch's own commits and a diffstat against where it forked, not the base's tip", async () => {
    const repo = gitRepo();
    git(repo, 'checkout', '--quiet', '-b', 'ralph/t1');
    for (const [file, text] of [
      ['a.txt', 'one\n'],
      ['b.txt', 'two\nlines\n'],
    ] as const) {
      writeFileSync(join(repo, file), text);
      git(repo, 'add', file);
      git(repo, 'commit', '--quiet', '-m', `feat: ${file}`);
    }
    git(repo, 'checkout', '--quiet', 'main');
    writeFileSync(join(repo, 'later.txt'), 'landed on main since\n');
    git(repo, 'add', 'later.txt');
    git(repo, 'commit', '--quiet', '-m', 'later on main');

    const summary = await branchSummary(repo, 'ralph/t1', 'main');
    expect(summary.commits.map((c) => c.subject)).toEqual(['feat: a.txt', 'feat: b.txt']);
    expect(summary.commits[0]?.sha).toBe(git(repo, 'rev-parse', '--short', 'ralph/t1~1'));
    expect(summary.mergeBase).toBe(git(repo, 'rev-parse', 'main~1'));
    expect(summary.diffstat).toMatch(/2 files changed, 3 insertions\(\+\)/);
    expect(summary.diffstat).not.toMatch(/later\.txt/);
    expect(summary.text).toContain('Branch `ralph/t1`: 2 commits on top of `main`.');
    expect(summary.text).toContain(`- ${summary.commits[1]?.sha} feat: b.txt`);
  });

  test.each([
    ['no commits: just the line', [], '', 'Branch `b`: 0 commits on top of `main`.'],
    [
      'one commit and its stat',
      [{ sha: 'abc1234', subject: 'feat: x' }],
      ' x | 1 +',
      'Branch `b`: 1 commit on top of `main`.\n\n- abc1234 feat: x\n\n```\n x | 1 +\n```',
    ],
  ])('%s', (_, commits, stat, text) => {
    expect(summaryText('b', 'main', commits, stat)).toBe(text);
  });
});
