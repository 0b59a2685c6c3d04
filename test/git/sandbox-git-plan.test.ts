import { describe, expect, test } from 'vitest';
import { branchRefFolder, branchUpdate, gitSandboxEnv, gitSandboxMounts } from '../../src/git/sandbox-git-plan.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('branchUpdate', () => {
  test.each([
    ['no loose ref left (a packed branch no commit moved)', null, { kind: 'unchanged' }],
    ['the same tip', `${A}\n`, { kind: 'unchanged' }],
    ['a new tip', `${B}\n`, { kind: 'move', to: B }],
    ['a sha256 tip', `${'c'.repeat(64)}\n`, { kind: 'move', to: 'c'.repeat(64) }],
    ['a symbolic ref', 'ref: refs/heads/main\n', { kind: 'refused', why: 'symbolic' }],
    ['upper-case hex', `${B.toUpperCase()}\n`, { kind: 'refused', why: 'not-an-object-name' }],
    ['a short name', 'bbbb\n', { kind: 'refused', why: 'not-an-object-name' }],
    ['garbage', 'rm -rf /\n', { kind: 'refused', why: 'not-an-object-name' }],
  ] as const)('%s', (_, left, expected) => {
    expect(branchUpdate('ralph/a', A, left)).toMatchObject(expected);
  });
});

describe('branchRefFolder', () => {
  test.each([
    ['ralph/billing-0', { folder: 'ralph', name: 'billing-0' }],
    ['feature/deep/x', { folder: 'feature/deep', name: 'x' }],
    ['solo', { folder: '', name: 'solo' }],
  ])('%s', (branch, expected) => {
    expect(branchRefFolder(branch)).toEqual(expected);
  });
});

describe('gitSandboxMounts', () => {
  const paths = {
    commonDir: '/r/.git',
    gitDir: '/r/.git/worktrees/a',
    privateObjects: '/s/git/objects',
    privateRefs: '/s/git/refs',
    privateLogs: '/s/git/logs',
  };

  test('the common dir read-only first, then only what a commit on the branch writes, its ref folder last', () => {
    expect(gitSandboxMounts({ ...paths, branch: 'ralph/a' })).toEqual([
      { kind: 'ro', source: '/r/.git', target: '/r/.git' },
      { kind: 'rw', source: '/s/git/objects', target: '/r/.git/objects' },
      { kind: 'ro', source: '/r/.git/objects', target: '/r/.git/objects/wiggum-real-objects' },
      { kind: 'rw', source: '/r/.git/worktrees/a', target: '/r/.git/worktrees/a' },
      { kind: 'ro', source: '/r/.git/worktrees/a/commondir', target: '/r/.git/worktrees/a/commondir' },
      { kind: 'ro', source: '/r/.git/worktrees/a/gitdir', target: '/r/.git/worktrees/a/gitdir' },
      { kind: 'ro', source: '/r/.git/worktrees/a/config.worktree', target: '/r/.git/worktrees/a/config.worktree' },
      { kind: 'rw', source: '/s/git/refs', target: '/r/.git/refs/heads/ralph' },
      { kind: 'rw', source: '/s/git/logs', target: '/r/.git/logs/refs/heads/ralph' },
    ]);
  });

  test('a branch at the top: the private copies cover refs/heads/ and its reflogs', () => {
    expect(gitSandboxMounts({ ...paths, branch: 'solo' }).slice(-2)).toEqual([
      { kind: 'rw', source: '/s/git/refs', target: '/r/.git/refs/heads' },
      { kind: 'rw', source: '/s/git/logs', target: '/r/.git/logs/refs/heads' },
    ]);
  });
});

describe('gitSandboxEnv', () => {
  test.each([
    [
      'alone',
      [],
      {
        GIT_CONFIG_COUNT: '2',
        GIT_CONFIG_KEY_0: 'gc.auto',
        GIT_CONFIG_VALUE_0: '0',
        GIT_CONFIG_KEY_1: 'maintenance.auto',
        GIT_CONFIG_VALUE_1: 'false',
      },
    ],
    [
      "after the caller's own pairs",
      [['safe.directory', '*']] as const,
      {
        GIT_CONFIG_COUNT: '3',
        GIT_CONFIG_KEY_0: 'safe.directory',
        GIT_CONFIG_VALUE_0: '*',
        GIT_CONFIG_KEY_1: 'gc.auto',
        GIT_CONFIG_VALUE_1: '0',
        GIT_CONFIG_KEY_2: 'maintenance.auto',
        GIT_CONFIG_VALUE_2: 'false',
      },
    ],
  ])('%s', (_, extra, expected) => {
    expect(gitSandboxEnv(extra)).toEqual(expected);
  });
});
