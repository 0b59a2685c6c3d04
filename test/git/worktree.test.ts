import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isWiggumError } from '../../src/errors.js';
import { closeTaskWorktree, openTaskWorktree, readRepository } from '../../src/git/worktree.js';
import type { WorktreeRequest } from '../../src/git/worktree.js';
import { fingerprint, git, gitRepo } from '../helpers/git-repo.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A user's repository: on `develop` (a commit ahead of main), with edits, a staged and an untracked file. */
function busyRepository(): { repo: string; main: string; develop: string } {
  const dir = tempDir('wiggum-user-');
  mkdirSync(join(dir, 'app'));
  const repo = gitRepo(dir, { files: { 'README.md': '# project\n', 'app/index.js': 'x\n' } });
  git(repo, 'checkout', '--quiet', '-b', 'develop');
  writeFileSync(join(repo, 'develop.txt'), 'on develop\n');
  git(repo, 'add', 'develop.txt');
  git(repo, 'commit', '--quiet', '-m', 'develop');
  writeFileSync(join(repo, 'README.md'), '# project\nthe user is editing this\n');
  writeFileSync(join(repo, 'staged.txt'), 'staged\n');
  git(repo, 'add', 'staged.txt');
  writeFileSync(join(repo, 'notes.txt'), 'untracked\n');
  return { repo, main: git(repo, 'rev-parse', 'main'), develop: git(repo, 'rev-parse', 'develop') };
}

async function open(
  workdir: string,
  taskId: string,
  extra: Partial<WorktreeRequest> = {},
  root = tempDir('wiggum-wt-'),
) {
  return openTaskWorktree({
    repository: await readRepository(workdir),
    taskId,
    branch: `ralph/${taskId}`,
    base: null,
    worktreesRoot: join(root, 'worktrees'),
    ...extra,
  });
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string; why: unknown }> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!isWiggumError(error)) throw new Error(`expected a WiggumError, got ${String(error)}`);
  return { code: error.code, message: error.message, why: error.details.why };
}

describe('a task worktree', () => {
  test("made from the current branch, outside the user's copy, which stays byte for byte as it was", async () => {
    const { repo, develop } = busyRepository();
    const before = fingerprint(repo);
    const root = tempDir('wiggum-wt-');
    const a = await open(repo, 'a', {}, root);
    const b = await open(repo, 'b', { branch: 'feature/b', base: 'main' }, root);
    expect(a).toMatchObject({ branch: 'ralph/a', created: true, base: 'develop', reused: false });
    expect(a.path).toBe(join(realpathSync(root), 'worktrees', 'a'));
    expect(git(a.workdir, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('ralph/a');
    expect(git(a.workdir, 'rev-parse', 'HEAD')).toBe(develop);
    expect(git(b.workdir, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('feature/b');
    expect(existsSync(join(b.workdir, 'develop.txt'))).toBe(false);
    // The agent's commit lands on its branch; the user's files, index and HEAD never see it.
    writeFileSync(join(a.workdir, 'work.txt'), 'work\n');
    git(a.workdir, 'add', '--all');
    git(a.workdir, 'commit', '--quiet', '-m', 'work');
    expect(git(repo, 'log', '--format=%s', '-1', 'ralph/a')).toBe('work');
    expect(fingerprint(repo)).toBe(before);
  });

  test('a subfolder workdir maps to the same subfolder of the worktree', async () => {
    const { repo } = busyRepository();
    const opened = await open(join(repo, 'app'), 'sub');
    expect(opened.workdir).toBe(join(opened.path, 'app'));
    expect(readFileSync(join(opened.workdir, 'index.js'), 'utf8')).toBe('x\n');
  });

  test('an existing branch is reused with its commits, and a second open finds the worktree again', async () => {
    const { repo } = busyRepository();
    git(repo, 'branch', 'ralph/again', 'main');
    const root = tempDir('wiggum-wt-');
    const first = await open(repo, 'again', {}, root);
    expect(first).toMatchObject({ created: false, reused: false });
    expect(git(first.workdir, 'rev-parse', 'HEAD')).toBe(git(repo, 'rev-parse', 'main'));
    const second = await open(repo, 'again', {}, root);
    expect(second).toMatchObject({ path: first.path, reused: true });
  });

  test('closing removes the worktree and keeps the branch; uncommitted work keeps it', async () => {
    const { repo } = busyRepository();
    const root = tempDir('wiggum-wt-');
    const done = await open(repo, 'done', {}, root);
    writeFileSync(join(done.workdir, 'work.txt'), 'work\n');
    git(done.workdir, 'add', '--all');
    git(done.workdir, 'commit', '--quiet', '-m', 'work');
    const top = realpathSync(repo);
    expect(await closeTaskWorktree(top, done.path, false)).toEqual({ kind: 'remove' });
    expect(existsSync(done.path)).toBe(false);
    expect(git(repo, 'log', '--format=%s', '-1', 'ralph/done')).toBe('work');

    const dirty = await open(repo, 'dirty', {}, root);
    writeFileSync(join(dirty.workdir, 'unsaved.txt'), 'not committed\n');
    expect(await closeTaskWorktree(top, dirty.path, false)).toMatchObject({ kind: 'keep', why: 'uncommitted' });
    expect(readFileSync(join(dirty.workdir, 'unsaved.txt'), 'utf8')).toBe('not committed\n');
    const kept = await open(repo, 'kept', {}, root);
    expect(await closeTaskWorktree(top, kept.path, true)).toMatchObject({ kind: 'keep', why: 'configured' });
    expect(existsSync(kept.path)).toBe(true);
  });

  test('a worktree whose folder was deleted (a crash, a cleanup) is pruned and made again', async () => {
    const { repo } = busyRepository();
    const root = tempDir('wiggum-wt-');
    const first = await open(repo, 'gone', {}, root);
    git(first.workdir, 'commit', '--quiet', '--allow-empty', '-m', 'kept commit');
    const { rmSync } = await import('node:fs');
    rmSync(first.path, { recursive: true, force: true });
    const again = await open(repo, 'gone', {}, root);
    expect(git(again.workdir, 'log', '--format=%s', '-1')).toBe('kept commit');
  });
});

describe('bad input', () => {
  test('a base that does not exist: E_GIT naming it, nothing made', async () => {
    const { repo } = busyRepository();
    const before = fingerprint(repo);
    const error = await failure(open(repo, 'bb', { base: 'no-such-base' }));
    expect(error).toMatchObject({ code: 'E_GIT', why: 'no-base' });
    expect(error.message).toMatch(/"no-such-base" does not exist/);
    expect(git(repo, 'branch', '--list', 'ralph/bb')).toBe('');
    expect(fingerprint(repo)).toBe(before);
  });

  test('a detached HEAD and no base: says so and asks for base:; with a base it works', async () => {
    const repo = gitRepo(tempDir('wiggum-user-'));
    git(repo, 'checkout', '--quiet', '--detach', 'HEAD');
    const before = fingerprint(repo);
    const error = await failure(open(repo, 'det'));
    expect(error).toMatchObject({ code: 'E_GIT', why: 'detached' });
    expect(error.message).toMatch(/detached HEAD.*base:/);
    await open(repo, 'det2', { base: 'main' });
    expect(fingerprint(repo)).toBe(before);
  });

  test("mid-rebase: a worktree from base: works and the user's rebase is left exactly as it was", async () => {
    const repo = gitRepo(tempDir('wiggum-user-'), { files: { 'shared.txt': 'one\ntwo\nthree\n' } });
    git(repo, 'checkout', '--quiet', '-b', 'topic');
    writeFileSync(join(repo, 'shared.txt'), 'one\ntwo, topic\nthree\n');
    git(repo, 'commit', '--quiet', '-am', 'topic');
    git(repo, 'checkout', '--quiet', 'main');
    writeFileSync(join(repo, 'shared.txt'), 'one\ntwo, main\nthree\n');
    git(repo, 'commit', '--quiet', '-am', 'main');
    git(repo, 'checkout', '--quiet', 'topic');
    expect(() => git(repo, 'rebase', '--quiet', 'main')).toThrow();
    const before = fingerprint(repo);
    expect(await failure(open(repo, 'reb0'))).toMatchObject({ code: 'E_GIT', why: 'rebasing' });
    const opened = await open(repo, 'reb', { base: 'main' });
    expect(readFileSync(join(opened.workdir, 'shared.txt'), 'utf8')).toBe('one\ntwo, main\nthree\n');
    expect(fingerprint(repo)).toBe(before);
    expect(existsSync(join(repo, '.git', 'rebase-merge'))).toBe(true);
  });

  test.each([['bad..name'], ['ends.lock'], ['has space']])('a branch name git refuses (%s)', async (branch) => {
    const { repo } = busyRepository();
    const error = await failure(open(repo, 'x', { branch }));
    expect(error).toMatchObject({ code: 'E_GIT', why: 'bad-branch' });
    expect(error.message).toContain(branch);
  });

  test("the branch checked out in the user's copy, or a locked worktree: a message saying what to do", async () => {
    const { repo } = busyRepository();
    const error = await failure(open(repo, 'mine', { branch: 'develop' }));
    expect(error).toMatchObject({ code: 'E_GIT', why: 'branch-in-use' });
    expect(error.message).toMatch(/checked out in your working copy/);

    const root = tempDir('wiggum-wt-');
    const locked = await open(repo, 'locked', {}, root);
    git(repo, 'worktree', 'lock', locked.path);
    git(repo, 'branch', '--force', 'ralph/other', 'main');
    const lockedError = await failure(open(repo, 'locked', { branch: 'ralph/other' }, root));
    expect(lockedError).toMatchObject({ code: 'E_GIT', why: 'locked' });
    expect(lockedError.message).toMatch(/git worktree unlock/);
    expect(existsSync(locked.path)).toBe(true);
  });

  test('a folder in the way that is no worktree is left alone', async () => {
    const { repo } = busyRepository();
    const root = tempDir('wiggum-wt-');
    mkdirSync(join(root, 'worktrees', 'in-way'), { recursive: true });
    writeFileSync(join(root, 'worktrees', 'in-way', 'precious.txt'), 'keep\n');
    expect(await failure(open(repo, 'in-way', {}, root))).toMatchObject({ why: 'foreign-folder' });
    expect(readFileSync(join(root, 'worktrees', 'in-way', 'precious.txt'), 'utf8')).toBe('keep\n');
  });
});
