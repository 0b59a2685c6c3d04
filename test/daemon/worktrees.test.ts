import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { GIT_IDENTITY, fingerprint, git, gitRepo } from '../helpers/git-repo.js';
import { isEvent } from '../helpers/log-events.js';
import { tempDir } from '../helpers/temp-dir.js';
import { fakeRuns, makeVault } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';

const daemons = drainedAfterEach();

const TASK = (repo: string, extra = ''): string =>
  `---\ntitle: one story\nworkdir: ${repo}\n${extra}---\n- [ ] US-001 The work\n`;

describe('tasks on one repository, each in a worktree of its own', () => {
  test("3 tasks run at once, each on its own branch in its own worktree; the user's copy is unchanged byte for byte", async () => {
    // The user's copy: on develop, with an edit, a staged file and an untracked one.
    const repo = gitRepo(tempDir('wiggum-user-'));
    git(repo, 'checkout', '--quiet', '-b', 'develop');
    writeFileSync(join(repo, 'README.md'), '# project\nthe user is editing this\n');
    writeFileSync(join(repo, 'staged.txt'), 'staged\n');
    git(repo, 'add', 'staged.txt');
    writeFileSync(join(repo, 'notes.txt'), 'untracked\n');
    const develop = git(repo, 'rev-parse', 'HEAD');
    const before = fingerprint(repo);

    // Every agent waits at a closed gate after it has started: all three running at once is the only way through.
    const gates = tempDir('wiggum-gates-');
    const vault = await makeVault({
      fake: { ...GIT_IDENTITY, FAKE_STORY_PER_RUN: '1', FAKE_COMMIT: '1', FAKE_GATE_DIR: gates },
      config: { vault: { allowed_workdirs: [dirname(repo)] }, daemon: { concurrency: 4 } },
    });
    const daemon = DaemonProcess.start(vault.root);
    daemons.push(daemon);
    await daemon.ready();
    vault.task('a', TASK(repo));
    vault.task('b', TASK(repo));
    vault.task('c', TASK(repo, 'branch: feature/c\n'));
    await waitFor(() => ['a', 'b', 'c'].every((id) => fakeRuns(vault).has(id)), 'a, b and c to run');
    const opened = ['a', 'b', 'c'].map((id) => daemon.lines.find(isEvent('git.worktree-opened', { taskId: id })));
    // status shows each running task's worktree and branch.
    const shown = (): string[] => {
      const status = JSON.parse(readFileSync(vault.layout.statusFile, 'utf8')) as {
        tasks: { worktree?: { branch: string } }[];
      };
      return status.tasks.flatMap((task) => (task.worktree === undefined ? [] : [task.worktree.branch])).sort();
    };
    await waitFor(() => existsSync(vault.layout.statusFile) && shown().length === 3, 'status to show three worktrees');
    expect(shown()).toEqual(['feature/c', 'ralph/a', 'ralph/b']);
    writeFileSync(join(gates, 'go-1'), '');
    for (const id of ['a', 'b', 'c']) await daemon.waitForEvent('task.done', { taskId: id });
    // The worktree goes after the file has moved to Done/.
    for (const id of ['a', 'b', 'c']) await daemon.waitForEvent('git.worktree-removed', { taskId: id });

    expect(opened.map((line) => line?.branch)).toEqual(['ralph/a', 'ralph/b', 'feature/c']);
    const paths = opened.map((line) => String(line?.worktree));
    expect(new Set(paths).size).toBe(3);
    for (const path of paths) expect(path.startsWith(join(vault.layout.state, 'worktrees'))).toBe(true);
    for (const branch of ['ralph/a', 'ralph/b', 'feature/c']) {
      expect(git(repo, 'log', '--format=%s', '-1', branch)).toBe('feat: US-001 - The work');
      expect(git(repo, 'rev-parse', `${branch}^`)).toBe(develop);
    }
    expect(fingerprint(repo)).toBe(before);
    // Ended: the worktrees are gone, the branches stay.
    for (const path of paths) expect(existsSync(path)).toBe(false);
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });
});
