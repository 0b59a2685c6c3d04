import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { recoverLanding, writeLandingIntent } from '../../src/git/land-intent.js';
import type { LandingIntent, LandingRecovery, LandingRepoState } from '../../src/git/land-intent.js';
import { landMerge } from '../../src/git/land-merge.js';
import { resumeLanding } from '../../src/git/land-recover.js';
import { git, gitRepo } from '../helpers/git-repo.js';
import { REPO_ROOT, killHard, requireBuild } from '../helpers/child.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitForFile } from '../helpers/wait.js';

const INTENT: LandingIntent = {
  version: 1,
  repo: '/r',
  branch: 'ralph/t',
  base: 'main',
  oldBase: 'old',
  newBase: 'new',
  how: 'merge-commit',
  scratch: '/r/.git/wiggum-land/ralph-t',
  phase: 'updating',
};
const STATE: LandingRepoState = { baseTip: 'old', newBaseInBase: false, scratchExists: true, checkouts: [] };
const copies = (...at: Array<'old' | 'new' | 'other'>): LandingRepoState['checkouts'] =>
  at.map((indexAt, i) => ({ path: `/copy${i}`, indexAt }));

describe('recoverLanding: what a start does with a landing a crash interrupted', () => {
  test.each<[string, Partial<LandingIntent>, Partial<LandingRepoState>, Partial<LandingRecovery>]>([
    ['crash during the check: the base untouched → undo and land again', { phase: 'merging' }, {}, { action: 'undo' }],
    ['crash before the compare-and-swap → undo', {}, {}, { action: 'undo', removeScratch: true }],
    [
      'crash after the swap, before the checkout followed → finish, the checkout at the old tree follows',
      {},
      { baseTip: 'new', newBaseInBase: true, checkouts: copies('old') },
      { action: 'finish', follow: ['/copy0'] },
    ],
    [
      'crash after the checkout followed → finish, nothing left to follow',
      {},
      { baseTip: 'new', newBaseInBase: true, checkouts: copies('new') },
      { action: 'finish', follow: [] },
    ],
    [
      'a checkout the user changed since is left alone',
      {},
      { baseTip: 'new', newBaseInBase: true, checkouts: copies('other', 'old') },
      { action: 'finish', follow: ['/copy1'] },
    ],
    [
      'the base moved on after the swap → finish without following',
      {},
      { baseTip: 'later', newBaseInBase: true, checkouts: copies('other') },
      { action: 'finish', follow: [] },
    ],
    [
      'the base moved by someone else before the swap → undo',
      {},
      { baseTip: 'theirs' },
      { action: 'undo', reason: 'main moved meanwhile; landing again on its new tip' },
    ],
    ['the base deleted → undo', {}, { baseTip: null }, { action: 'undo' }],
    ['no scratch worktree was made → nothing to remove', { scratch: null }, {}, { removeScratch: false }],
    ['the scratch worktree already gone → nothing to remove', {}, { scratchExists: false }, { removeScratch: false }],
    [
      'merging, but the base already holds the exact commit → finish',
      { phase: 'merging', how: 'ff' },
      { baseTip: 'new', newBaseInBase: true },
      { action: 'finish', follow: [] },
    ],
  ])('%s', (_, intent, state, expected) => {
    expect(recoverLanding({ ...INTENT, ...intent }, { ...STATE, ...state })).toMatchObject(expected);
  });
});

/** A repository on main whose branch `task` is one commit ahead of it; the user's copy is on main. */
function repoWithTask(): { repo: string; intentFile: string; oldBase: string; newBase: string } {
  const repo = gitRepo();
  const oldBase = git(repo, 'rev-parse', 'HEAD');
  const wt = join(tempDir('wiggum-task-wt-'), 'wt');
  git(repo, 'worktree', 'add', '--quiet', '-b', 'task', wt);
  writeFileSync(join(wt, 'work.txt'), 'work\n');
  git(wt, 'add', 'work.txt');
  git(wt, 'commit', '--quiet', '-m', 'work');
  git(repo, 'worktree', 'remove', wt);
  return {
    repo,
    intentFile: join(tempDir('wiggum-intent-'), 'landing.json'),
    oldBase,
    newBase: git(repo, 'rev-parse', 'task'),
  };
}

describe('resumeLanding on real repositories', () => {
  test('killed between moving the base and following: the next start brings the checkout along, clean', async () => {
    const { repo, intentFile, oldBase, newBase } = repoWithTask();
    const intent: LandingIntent = {
      version: 1,
      repo,
      branch: 'task',
      base: 'main',
      oldBase,
      newBase,
      how: 'ff',
      scratch: null,
      phase: 'updating',
    };
    await writeLandingIntent(intentFile, intent);
    git(repo, 'update-ref', 'refs/heads/main', newBase, oldBase); // what the crash left: the ref moved, the files not
    expect(git(repo, 'status', '--porcelain')).not.toBe('');
    const resumed = await resumeLanding(intentFile);
    expect(resumed?.recovery).toMatchObject({ action: 'finish', follow: [repo] });
    expect(resumed?.notFollowed).toEqual([]);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(repo, 'work.txt'))).toBe(true);
    expect(existsSync(intentFile)).toBe(false);
  });

  test('killed during the check: the scratch worktree is removed, the base untouched, and landing again works', async () => {
    const { repo, intentFile, oldBase, newBase } = repoWithTask();
    const scratch = join(tempDir('wiggum-scratch-'), 'land');
    git(repo, 'worktree', 'add', '--quiet', '--detach', scratch, newBase);
    await writeLandingIntent(intentFile, {
      version: 1,
      repo,
      branch: 'task',
      base: 'main',
      oldBase,
      newBase,
      how: 'ff',
      scratch,
      phase: 'merging',
    });
    const resumed = await resumeLanding(intentFile);
    expect(resumed?.recovery).toMatchObject({ action: 'undo', removeScratch: true });
    expect(existsSync(scratch)).toBe(false);
    expect(git(repo, 'rev-parse', 'main')).toBe(oldBase);
    expect(await landMerge({ repo, branch: 'task', base: 'main', intentFile })).toMatchObject({
      kind: 'landed',
      newBase,
    });
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  test('kill -9 of a process landing while the check runs on the merged result: the next start undoes it, landing again finishes it', async () => {
    requireBuild();
    const { repo, intentFile, newBase } = repoWithTask();
    writeFileSync(join(repo, 'user.txt'), "the user's\n");
    git(repo, 'add', 'user.txt');
    git(repo, 'commit', '--quiet', '-m', 'user');
    const userCommit = git(repo, 'rev-parse', 'main');
    const marker = join(tempDir('wiggum-marker-'), 'verifying');
    const child = spawn(
      process.execPath,
      [join(REPO_ROOT, 'test', 'fixtures', 'land-child.mjs'), repo, 'task', 'main', intentFile, marker],
      {
        stdio: 'ignore',
      },
    );
    await waitForFile(marker);
    await killHard(child);
    const scratch = readFileSync(marker, 'utf8');
    expect(existsSync(scratch)).toBe(true);
    expect(git(repo, 'rev-parse', 'main')).toBe(userCommit);
    expect(git(repo, 'status', '--porcelain')).toBe('');

    expect((await resumeLanding(intentFile))?.recovery).toMatchObject({ action: 'undo', removeScratch: true });
    expect(existsSync(scratch)).toBe(false);
    expect(await landMerge({ repo, branch: 'task', base: 'main', intentFile })).toMatchObject({
      kind: 'landed',
      how: 'merge-commit',
    });
    expect(git(repo, 'rev-list', '--parents', '-n1', 'main').split(' ').slice(1)).toEqual([userCommit, newBase]);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });

  test('no intent: nothing to do', async () => {
    expect(await resumeLanding(join(tempDir(), 'none.json'))).toBeNull();
  });
});
