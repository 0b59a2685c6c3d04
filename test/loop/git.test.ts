import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runTask } from '../../src/loop/run-task.js';
import type { IterationRecord } from '../../src/memory/history.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { GIT_IDENTITY, fingerprint, git, gitRepo } from '../helpers/git-repo.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';
import { runDeps } from '../helpers/run-deps.js';

const TASK = (workdir: string, extra = ''): string =>
  `---\ntitle: Two stories\nworkdir: ${workdir}\n${extra}---\n- [ ] US-001 One\n- [ ] US-002 Two\n`;

async function vaultFor(
  repo: string,
  fake: Record<string, string>,
  config: Record<string, unknown> = {},
): Promise<TestVault> {
  return makeVault({
    fake: { ...GIT_IDENTITY, FAKE_STORY_PER_RUN: '1', ...fake },
    config: { vault: { allowed_workdirs: [dirname(repo)] }, ...config },
  });
}

async function run(vault: TestVault, file: string): Promise<{ status: string; history: IterationRecord[] }> {
  const { logger } = captureLogger();
  const result = await runTask({ file, stream: null, signal: new AbortController().signal }, runDeps(vault, logger));
  const history = readFileSync(join(vault.layout.sessions, result.taskId ?? '', 'history.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as IterationRecord);
  return { status: result.status, history };
}

describe('git in the workdir', () => {
  test("the task's branch is made in a worktree of its own from the current branch, commits land there, and every iteration records them", async () => {
    const repo = gitRepo();
    git(repo, 'checkout', '--quiet', '-b', 'someone-elses-work');
    writeFileSync(join(repo, 'wip.txt'), 'work in progress\n');
    git(repo, 'add', '--all');
    git(repo, 'commit', '--quiet', '-m', 'unrelated work');
    const base = git(repo, 'rev-parse', 'HEAD');
    const before = fingerprint(repo);

    const vault = await vaultFor(repo, { FAKE_COMMIT: '1' });
    const { status, history } = await run(vault, vault.task('feature', TASK(repo, 'branch: ralph/feature\n')));
    expect(status).toBe('done');
    // The user's working copy is where it was, byte for byte; the work is on the task's branch.
    expect(fingerprint(repo)).toBe(before);
    expect(git(repo, 'merge-base', 'ralph/feature', 'someone-elses-work')).toBe(base);
    expect(git(repo, 'log', '--format=%s', 'someone-elses-work..ralph/feature').split('\n')).toEqual([
      'feat: US-002 - Two',
      'feat: US-001 - One',
    ]);
    // The worktree went when the task ended; the branch stays.
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    const [first, second] = history;
    expect(first?.git?.headBefore).toBe(base);
    expect(first?.git?.headAfter).toBe(git(repo, 'rev-parse', 'ralph/feature~1'));
    expect(first?.git?.commits).toEqual([expect.stringMatching(/^[0-9a-f]+ feat: US-001 - One$/)]);
    expect(first?.git).toMatchObject({ filesChanged: 1, files: ['story-US-001.txt'] });
    expect(second?.git).toMatchObject({
      headBefore: first?.git?.headAfter,
      filesChanged: 1,
      files: ['story-US-002.txt'],
    });
  });

  test("a user-supplied prd.json's branchName is used when the task names no branch", async () => {
    const repo = gitRepo();
    writeFileSync(
      join(repo, 'prd.json'),
      JSON.stringify({
        branchName: 'ralph/from-prd',
        userStories: [{ id: 'P-1', title: 'Only story', priority: 1, passes: false }],
      }),
    );
    git(repo, 'add', '--all');
    git(repo, 'commit', '--quiet', '-m', 'add prd');
    const vault = await vaultFor(repo, { FAKE_COMMIT: '1' });
    // A relative prd: is read from the task file's folder; this one lives in the workdir.
    const { status, history } = await run(vault, vault.task('prd', TASK(repo, `prd: ${join(repo, 'prd.json')}\n`)));
    expect(status).toBe('done');
    expect(git(repo, 'branch', '--show-current')).toBe('main');
    expect(git(repo, 'log', '--format=%s', '-1', 'ralph/from-prd')).toMatch(/^feat: P-1/);
    expect(history).toHaveLength(1);
    expect(history[0]?.storiesTotal).toBe(1);
  });

  test('auto_commit commits what an iteration left uncommitted', async () => {
    const repo = gitRepo();
    const vault = await vaultFor(repo, { FAKE_LEAVE: '1' }, { git: { enabled: true, auto_commit: true } });
    const { status, history } = await run(vault, vault.task('leftovers', TASK(repo)));
    expect(status).toBe('done');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(repo, 'log', '--format=%s', '-1', 'ralph/leftovers')).toBe('wiggum: iteration 2 leftovers (leftovers)');
    expect(git(repo, 'log', '--format=%s', '-1', 'main')).toBe('initial commit');
    expect(history[0]?.git?.commits).toEqual([expect.stringMatching(/wiggum: iteration 1 leftovers/)]);
  });

  test('without auto_commit, uncommitted files are counted as changed, and wiggum commits nothing', async () => {
    const repo = gitRepo();
    const vault = await vaultFor(repo, { FAKE_LEAVE: '1' });
    const { history } = await run(vault, vault.task('dirty', TASK(repo)));
    expect(history[0]?.git).toMatchObject({ commits: [], filesChanged: 1 });
    expect(git(repo, 'log', '--format=%s', 'ralph/dirty')).toBe('initial commit');
    // What was left uncommitted is not lost: the worktree that holds it is kept.
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(2);
  });

  test('a workdir that is not a repository records no git summary', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const { history } = await run(vault, vault.task('plain', '---\ntitle: plain\n---\n- [ ] US-001 One\n'));
    expect(history[0]?.git).toBeUndefined();
  });
});

describe('reading the repository', () => {
  test('gitState: HEAD, and uncommitted paths with spaces, renames, deletions and untracked files', async () => {
    const { gitState } = await import('../../src/git/changes.js');
    const repo = gitRepo();
    writeFileSync(join(repo, 'to rename.txt'), 'x\n');
    writeFileSync(join(repo, 'gone.txt'), 'x\n');
    git(repo, 'add', '--all');
    git(repo, 'commit', '--quiet', '-m', 'two files');
    git(repo, 'mv', 'to rename.txt', 'renamed → here.txt');
    git(repo, 'rm', '--quiet', 'gone.txt');
    writeFileSync(join(repo, 'new file.md'), 'untracked\n');
    writeFileSync(join(repo, 'README.md'), 'changed\n');
    const state = await gitState(repo);
    expect(state.head).toBe(git(repo, 'rev-parse', 'HEAD'));
    expect(state.dirty).toEqual(['README.md', 'gone.txt', 'new file.md', 'renamed → here.txt', 'to rename.txt']);
  });

  test('changesSince: the commits made and their files, from a repository with no commit yet', async () => {
    const { changesSince, gitState } = await import('../../src/git/changes.js');
    const repo = tempDir('wiggum-empty-repo-');
    git(repo, 'init', '--quiet', '--initial-branch=main');
    const before = await gitState(repo);
    expect(before).toEqual({ head: null, dirty: [] });
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    git(repo, 'add', '--all');
    git(repo, 'commit', '--quiet', '-m', 'first');
    writeFileSync(join(repo, 'b.txt'), 'b\n');
    git(repo, 'add', '--all');
    git(repo, 'commit', '--quiet', '-m', 'second commit');
    writeFileSync(join(repo, 'c.txt'), 'left over\n');
    const { summary } = await changesSince(repo, before);
    expect(summary.commits.map((c) => c.replace(/^\w+ /, ''))).toEqual(['first', 'second commit']);
    expect(summary).toMatchObject({
      headBefore: null,
      headAfter: git(repo, 'rev-parse', 'HEAD'),
      files: ['a.txt', 'b.txt', 'c.txt'],
      filesChanged: 3,
    });
  });
});

describe('a vault that is itself a git repository', () => {
  test("a task without a workdir never touches the vault's repository: no branch switch, no git summary", async () => {
    const vault = await makeVault({ fake: { ...GIT_IDENTITY, FAKE_STORY_PER_RUN: '1' } });
    gitRepo(vault.root);
    const head = git(vault.root, 'rev-parse', 'HEAD');
    const { status, history } = await run(
      vault,
      vault.task('in-vault', '---\ntitle: no workdir\nbranch: ralph/should-not-happen\n---\n- [ ] US-001 One\n'),
    );
    expect(status).toBe('done');
    expect(git(vault.root, 'branch', '--show-current')).toBe('main');
    expect(git(vault.root, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(vault.root, 'branch', '--list', 'ralph/*')).toBe('');
    expect(history[0]?.git).toBeUndefined();
  });
});
