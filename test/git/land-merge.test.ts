import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isWiggumError } from '../../src/errors.js';
import { landMerge } from '../../src/git/land-merge.js';
import type { VerifyResult } from '../../src/git/land-merge.js';
import { git, gitRepo } from '../helpers/git-repo.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A repository on main and a task branch `task` with one commit of its own file. */
function repoWithTask(): { repo: string; intentFile: string } {
  const repo = gitRepo(undefined, { files: { 'shared.txt': 'one\ntwo\nthree\n' } });
  git(repo, 'branch', 'task');
  const wt = join(tempDir('wiggum-task-wt-'), 'wt');
  git(repo, 'worktree', 'add', '--quiet', wt, 'task');
  commitIn(wt, 'work.txt', 'work of the task\n');
  git(repo, 'worktree', 'remove', wt);
  return { repo, intentFile: join(tempDir('wiggum-intent-'), 'landing.json') };
}

function commitIn(dir: string, file: string, text: string): string {
  writeFileSync(join(dir, file), text);
  git(dir, 'add', file);
  git(dir, 'commit', '--quiet', '-m', `change ${file}`);
  return git(dir, 'rev-parse', 'HEAD');
}

/** The user's working copy as bytes and git's view of it. */
function fingerprint(repo: string): string {
  return [
    git(repo, 'symbolic-ref', 'HEAD'),
    git(repo, 'rev-parse', 'HEAD'),
    git(repo, 'ls-files', '-s'),
    git(repo, 'status', '--porcelain', '-uall'),
  ].join('\n');
}

describe('landMerge', () => {
  test('fast-forwards the base, and the clean checkout of it follows and stays clean', async () => {
    const { repo, intentFile } = repoWithTask();
    const taskTip = git(repo, 'rev-parse', 'task');
    const outcome = await landMerge({ repo, branch: 'task', base: 'main', intentFile });
    expect(outcome).toMatchObject({ kind: 'landed', how: 'ff', newBase: taskTip, followed: [repo] });
    expect(git(repo, 'rev-parse', 'main')).toBe(taskTip);
    expect(readFileSync(join(repo, 'work.txt'), 'utf8')).toBe('work of the task\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(intentFile)).toBe(false);
  });

  test('makes a merge commit when the base moved on, checks it in a scratch worktree, leaves none behind', async () => {
    const { repo, intentFile } = repoWithTask();
    const userCommit = commitIn(repo, 'user.txt', "the user's own\n");
    const taskTip = git(repo, 'rev-parse', 'task');
    const seen: string[] = [];
    const verify = (dir: string): Promise<VerifyResult> => {
      seen.push(dir, String(existsSync(join(dir, 'user.txt')) && existsSync(join(dir, 'work.txt'))));
      return Promise.resolve({ passed: true });
    };
    const outcome = await landMerge({ repo, branch: 'task', base: 'main', intentFile, verify });
    expect(outcome).toMatchObject({ kind: 'landed', how: 'merge-commit', oldBase: userCommit });
    expect(seen[0]).not.toBe(repo);
    expect(seen[1]).toBe('true');
    expect(git(repo, 'rev-list', '--parents', '-n1', 'main').split(' ').slice(1)).toEqual([userCommit, taskTip]);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(repo, 'work.txt'))).toBe(true);
    expect(existsSync(seen[0] ?? '')).toBe(false);
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });

  test('a failing check leaves the base where it was and says what the check printed', async () => {
    const { repo, intentFile } = repoWithTask();
    const before = git(repo, 'rev-parse', 'main');
    const outcome = await landMerge({
      repo,
      branch: 'task',
      base: 'main',
      intentFile,
      verify: () => Promise.resolve({ passed: false, output: '2 tests failed' }),
    });
    expect(outcome).toMatchObject({ kind: 'check-failed', output: '2 tests failed' });
    expect(git(repo, 'rev-parse', 'main')).toBe(before);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  test('a conflict names the files and the base commit, and changes nothing', async () => {
    const { repo, intentFile } = repoWithTask();
    const wt = join(tempDir('wiggum-task-wt-'), 'wt');
    git(repo, 'worktree', 'add', '--quiet', wt, 'task');
    const branchCommit = commitIn(wt, 'shared.txt', 'one\ntwo by the task\nthree\n');
    git(repo, 'worktree', 'remove', wt);
    const baseCommit = commitIn(repo, 'shared.txt', 'one\ntwo by the user\nthree\n');
    const before = fingerprint(repo);
    const outcome = await landMerge({ repo, branch: 'task', base: 'main', intentFile });
    expect(outcome).toEqual({ kind: 'conflict', files: ['shared.txt'], baseCommit, branchCommit });
    expect(fingerprint(repo)).toBe(before);
  });

  test('a checkout of the base with local changes makes the merge wait, untouched', async () => {
    const { repo, intentFile } = repoWithTask();
    writeFileSync(join(repo, 'shared.txt'), 'the user is editing\n');
    const before = fingerprint(repo);
    const outcome = await landMerge({ repo, branch: 'task', base: 'main', intentFile });
    expect(outcome.kind).toBe('wait');
    expect(outcome.kind === 'wait' && outcome.reason).toMatch(/local changes \(shared\.txt\)/);
    expect(fingerprint(repo)).toBe(before);
  });

  test('the user on another branch with local changes: the base moves, their copy stays byte for byte', async () => {
    const { repo, intentFile } = repoWithTask();
    git(repo, 'checkout', '--quiet', '-b', 'develop');
    writeFileSync(join(repo, 'shared.txt'), 'the user is editing\n');
    writeFileSync(join(repo, 'notes.txt'), 'untracked\n');
    const before = fingerprint(repo);
    const outcome = await landMerge({ repo, branch: 'task', base: 'main', intentFile });
    expect(outcome).toMatchObject({ kind: 'landed', how: 'ff', followed: [] });
    expect(fingerprint(repo)).toBe(before);
  });

  test('an untracked file the merge would overwrite: the base is put back and the merge waits', async () => {
    const { repo, intentFile } = repoWithTask();
    const before = git(repo, 'rev-parse', 'main');
    writeFileSync(join(repo, 'work.txt'), "the user's own untracked file\n");
    const outcome = await landMerge({ repo, branch: 'task', base: 'main', intentFile });
    expect(outcome.kind).toBe('wait');
    expect(git(repo, 'rev-parse', 'main')).toBe(before);
    expect(readFileSync(join(repo, 'work.txt'), 'utf8')).toBe("the user's own untracked file\n");
  });

  test('two tasks rewrite one line: the first lands, the second conflicts, resolves in its worktree, then lands', async () => {
    const { repo, intentFile } = repoWithTask();
    const worktrees = tempDir('wiggum-task-wts-');
    for (const [task, line] of [
      ['one', 'two by one'],
      ['two', 'two by two'],
    ] as const) {
      git(repo, 'worktree', 'add', '--quiet', '-b', task, join(worktrees, task), 'main');
      commitIn(join(worktrees, task), 'shared.txt', `one\n${line}\nthree\n`);
    }
    expect(await landMerge({ repo, branch: 'one', base: 'main', intentFile })).toMatchObject({
      kind: 'landed',
      how: 'ff',
    });
    const conflict = await landMerge({ repo, branch: 'two', base: 'main', intentFile });
    expect(conflict).toMatchObject({
      kind: 'conflict',
      files: ['shared.txt'],
      baseCommit: git(repo, 'rev-parse', 'one'),
    });

    // What the agent does with the story it is sent back with, in its own worktree.
    const two = join(worktrees, 'two');
    try {
      git(two, 'merge', '--quiet', conflict.kind === 'conflict' ? conflict.baseCommit : 'main');
    } catch {
      // the conflict, as expected
    }
    writeFileSync(join(two, 'shared.txt'), 'one\ntwo: resolved\nthree\n');
    git(two, 'add', 'shared.txt');
    git(two, 'commit', '--quiet', '--no-edit');

    expect(await landMerge({ repo, branch: 'two', base: 'main', intentFile })).toMatchObject({
      kind: 'landed',
      how: 'ff',
    });
    expect(git(repo, 'show', 'main:shared.txt')).toBe('one\ntwo: resolved\nthree');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(repo, 'shared.txt'), 'utf8')).toBe('one\ntwo: resolved\nthree\n');
  });

  test("an untracked file out of the merge's way does not stop the checkout from following, and stays", async () => {
    const { repo, intentFile } = repoWithTask();
    writeFileSync(join(repo, 'notes.txt'), 'my notes\n');
    expect(await landMerge({ repo, branch: 'task', base: 'main', intentFile })).toMatchObject({
      kind: 'landed',
      followed: [repo],
    });
    expect(readFileSync(join(repo, 'notes.txt'), 'utf8')).toBe('my notes\n');
    expect(git(repo, 'status', '--porcelain')).toBe('?? notes.txt');
  });

  test('a branch already in the base lands as up-to-date without changing anything', async () => {
    const { repo, intentFile } = repoWithTask();
    git(repo, 'merge', '--quiet', '--ff-only', 'task');
    const outcome = await landMerge({ repo, branch: 'task', base: 'main', intentFile });
    expect(outcome).toMatchObject({ kind: 'landed', how: 'up-to-date', followed: [] });
  });

  test('a base that moves while the check runs is merged again, not clobbered', async () => {
    const { repo, intentFile } = repoWithTask();
    git(repo, 'checkout', '--quiet', '--detach');
    let userCommit = '';
    const verify = (): Promise<VerifyResult> => {
      if (userCommit === '') {
        // The user commits on main (from a worktree of their own) while the first check runs.
        const wt = join(tempDir('wiggum-user-wt-'), 'wt');
        git(repo, 'worktree', 'add', '--quiet', wt, 'main');
        userCommit = commitIn(wt, 'late.txt', 'late\n');
        git(repo, 'worktree', 'remove', wt);
      }
      return Promise.resolve({ passed: true });
    };
    const outcome = await landMerge({ repo, branch: 'task', base: 'main', intentFile, verify });
    expect(outcome).toMatchObject({ kind: 'landed', how: 'merge-commit', oldBase: userCommit });
    expect(git(repo, 'rev-parse', 'main^1')).toBe(userCommit);
  });

  test('five landings into one base at once: each lands, none is lost', async () => {
    const { repo } = repoWithTask();
    git(repo, 'checkout', '--quiet', '--detach');
    const worktrees = tempDir('wiggum-task-wts-');
    const tasks = ['t1', 't2', 't3', 't4', 't5'];
    for (const task of tasks) {
      git(repo, 'worktree', 'add', '--quiet', '-b', task, join(worktrees, task), 'main');
      commitIn(join(worktrees, task), `${task}.txt`, `${task}\n`);
    }
    const intents = tempDir('wiggum-intents-');
    const outcomes = await Promise.all(
      tasks.map((task) =>
        landMerge({
          repo,
          branch: task,
          base: 'main',
          intentFile: join(intents, `${task}.json`),
          attempts: 10,
          verify: () => Promise.resolve({ passed: true }),
        }),
      ),
    );
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(tasks.map(() => 'landed'));
    for (const task of tasks) expect(git(repo, 'merge-base', '--is-ancestor', task, 'main')).toBe('');
  });

  test('a base that does not exist is an E_GIT error naming it', async () => {
    const { repo, intentFile } = repoWithTask();
    const error = await landMerge({ repo, branch: 'task', base: 'no-such-base', intentFile }).catch((e: unknown) => e);
    expect(isWiggumError(error, 'E_GIT')).toBe(true);
    expect((error as Error).message).toMatch(/base no-such-base does not exist/);
  });

  test('a rebase of the base in progress in the user copy makes the merge wait', async () => {
    const { repo, intentFile } = repoWithTask();
    git(repo, 'checkout', '--quiet', '-b', 'side', 'main~0');
    commitIn(repo, 'shared.txt', 'one\nside\nthree\n');
    git(repo, 'checkout', '--quiet', 'main');
    commitIn(repo, 'shared.txt', 'one\nmain\nthree\n');
    try {
      git(repo, 'rebase', '--quiet', 'side');
    } catch {
      // the conflict is the point: a rebase of main stays in progress
    }
    const outcome = await landMerge({ repo, branch: 'task', base: 'main', intentFile });
    expect(outcome.kind === 'wait' && outcome.reason).toMatch(/rebase in progress/);
    expect(existsSync(join(repo, '.git', 'rebase-merge'))).toBe(true);
  });
});
