import { describe, expect, test } from 'vitest';
import {
  chooseBase,
  gitRefusal,
  parseWorktreeList,
  taskBranch,
  worktreeAction,
  worktreeEnd,
  worktreePath,
} from '../../src/git/worktree-plan.js';
import type { WorktreeAction, WorktreeEntry } from '../../src/git/worktree-plan.js';

describe('where a worktree goes and on which branch', () => {
  test('one folder per task under the worktrees root', () => {
    expect(worktreePath('/v/.wiggum/worktrees', 'fix-login')).toBe('/v/.wiggum/worktrees/fix-login');
  });
  test.each([
    [null, 'p1', 'ralph/p1'],
    ['feature/four', 'p4', 'feature/four'],
  ])('branch %s of task %s is %s', (named, id, expected) => {
    expect(taskBranch(named, id)).toBe(expected);
  });
});

describe('chooseBase', () => {
  test.each([
    ['the task or config names one', 'main', { branch: 'develop', rebasing: false }, { kind: 'base', ref: 'main' }],
    ['named, on a detached HEAD', 'main', { branch: null, rebasing: false }, { kind: 'base', ref: 'main' }],
    ['named, mid-rebase', 'main', { branch: null, rebasing: true }, { kind: 'base', ref: 'main' }],
    ['none named: the current branch', null, { branch: 'develop', rebasing: false }, { kind: 'base', ref: 'develop' }],
  ])('%s', (_name, chosen, head, expected) => {
    expect(chooseBase(chosen, head)).toEqual(expected);
  });
  test.each([
    [{ branch: null, rebasing: false }, 'detached', /detached HEAD.*set base:/],
    [{ branch: null, rebasing: true }, 'rebasing', /middle of a rebase.*set base:/],
  ])('none named and no current branch (%o): %s, saying what to set', (head, why, message) => {
    const choice = chooseBase(null, head);
    expect(choice).toMatchObject({ kind: 'problem', why });
    expect(choice.kind === 'problem' && choice.message).toMatch(message);
  });
});

describe('parseWorktreeList', () => {
  test('the main worktree, a branch, a detached one, a locked and a prunable one', () => {
    const text = [
      'worktree /repo\nHEAD aaa\nbranch refs/heads/main\n',
      'worktree /v/.wiggum/worktrees/a\nHEAD bbb\nbranch refs/heads/ralph/a\n',
      'worktree /tmp/detached\nHEAD ccc\ndetached\n',
      'worktree /v/.wiggum/worktrees/b\nHEAD ddd\nbranch refs/heads/ralph/b\nlocked being moved\n',
      'worktree /gone\nHEAD eee\nbranch refs/heads/old\nprunable gitdir file points to non-existent location\n',
    ].join('\n');
    expect(parseWorktreeList(text)).toEqual([
      { path: '/repo', branch: 'main', locked: false, prunable: false },
      { path: '/v/.wiggum/worktrees/a', branch: 'ralph/a', locked: false, prunable: false },
      { path: '/tmp/detached', branch: null, locked: false, prunable: false },
      { path: '/v/.wiggum/worktrees/b', branch: 'ralph/b', locked: true, prunable: false },
      { path: '/gone', branch: 'old', locked: false, prunable: true },
    ]);
  });
});

describe('worktreeAction', () => {
  const user: WorktreeEntry = { path: '/repo', branch: 'develop', locked: false, prunable: false };
  const at = (branch: string | null, extra: Partial<WorktreeEntry> = {}): WorktreeEntry => ({
    path: '/wt/t',
    branch,
    locked: false,
    prunable: false,
    ...extra,
  });
  const rows: [string, WorktreeEntry[], string, boolean, WorktreeAction['kind'], string?][] = [
    ['nothing there yet', [user], 'ralph/t', false, 'add'],
    ['its worktree is there on its branch (a resume)', [user, at('ralph/t')], 'ralph/t', true, 'reuse'],
    ['its worktree is on another branch', [user, at('old')], 'ralph/t', true, 'replace'],
    ['its worktree is locked', [user, at('ralph/t', { locked: true })], 'ralph/t', true, 'problem', 'locked'],
    ['its folder is gone, the registration left', [user, at('ralph/t', { prunable: true })], 'ralph/t', false, 'add'],
    ['the branch is checked out in the user copy', [user], 'develop', false, 'problem', 'branch-in-use'],
    [
      'the branch is in another worktree',
      [user, { path: '/wt/other', branch: 'shared', locked: false, prunable: false }],
      'shared',
      false,
      'problem',
      'branch-in-use',
    ],
    ['a folder that is no worktree is in the way', [user], 'ralph/t', true, 'problem', 'foreign-folder'],
  ];
  test.each(rows)('%s', (_name, entries, branch, pathExists, kind, why) => {
    const action = worktreeAction(entries, { path: '/wt/t', branch, userCopy: '/repo', pathExists });
    expect(action.kind).toBe(kind);
    if (why !== undefined) expect(action).toMatchObject({ why });
  });
  test('a prunable registration is pruned before the add', () => {
    const entries = [user, at('ralph/t', { prunable: true })];
    expect(worktreeAction(entries, { path: '/wt/t', branch: 'ralph/t', userCopy: '/repo', pathExists: false })).toEqual(
      {
        kind: 'add',
        prune: true,
      },
    );
  });
  test('the branch in the user copy: the message says so and what to do', () => {
    const action = worktreeAction([user], { path: '/wt/t', branch: 'develop', userCopy: '/repo', pathExists: false });
    expect(action.kind === 'problem' && action.message).toMatch(/checked out in your working copy \/repo.*switch/);
  });
});

describe('gitRefusal', () => {
  test.each([
    ["fatal: Unable to create '/r/.git/packed-refs.lock': File exists.", 'lock-busy'],
    ["error: cannot lock ref 'refs/heads/x': Unable to create", 'lock-busy'],
    ["fatal: 'main' is already checked out at '/repo'", 'already-checked-out'],
    ["fatal: 'x' is already used by worktree at '/wt/x'", 'already-checked-out'],
    ['fatal: invalid reference: nope', 'bad-ref'],
    ["fatal: Not a valid object name: 'nope'", 'bad-ref'],
    ['fatal: something else', 'other'],
  ])('%s → %s', (stderr, expected) => {
    expect(gitRefusal(stderr)).toBe(expected);
  });
});

describe('worktreeEnd', () => {
  test.each([
    [false, [], 'remove', undefined],
    [true, [], 'keep', 'configured'],
    [false, ['a.txt'], 'keep', 'uncommitted'],
    [true, ['a.txt'], 'keep', 'configured'],
  ] as const)('keep_worktree %s, uncommitted %o → %s', (keep, uncommitted, kind, why) => {
    const end = worktreeEnd(keep, uncommitted, '/wt/t');
    expect(end.kind).toBe(kind);
    if (why !== undefined) expect(end).toMatchObject({ why });
  });
});
