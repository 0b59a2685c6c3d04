import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { orphanWorktrees, reclaimOrphanWorktrees } from '../../src/daemon/orphan-worktrees.js';
import { openTaskWorktree, readRepository } from '../../src/git/worktree.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { git, gitRepo } from '../helpers/git-repo.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';

describe('orphanWorktrees', () => {
  test.each([
    [['a', 'b'], ['a'], ['b']],
    [['a'], ['a', 'c'], []],
    [['z', 'b'], [], ['b', 'z']],
    [[], ['a'], []],
  ])('folders %o, tasks in Approved/ %o: %o', (folders, ids, expected) => {
    expect(orphanWorktrees(folders, new Set(ids))).toEqual(expected);
  });
});

describe('reclaimOrphanWorktrees, at start', () => {
  test('a worktree whose task is gone is removed, its branch and commit kept; one whose task waits is left; dirty ones stay', async () => {
    const repo = gitRepo(tempDir('wiggum-user-'));
    const vault = await makeVault();
    const root = join(vault.layout.state, 'worktrees');
    const open = async (id: string) =>
      openTaskWorktree({
        repository: await readRepository(repo),
        taskId: id,
        branch: `ralph/${id}`,
        base: null,
        worktreesRoot: root,
      });
    const gone = await open('gone');
    git(gone.workdir, 'commit', '--quiet', '--allow-empty', '-m', 'work of gone');
    const waiting = await open('waiting');
    const dirty = await open('dirty');
    writeFileSync(join(dirty.workdir, 'unsaved.txt'), 'not committed\n');
    vault.task('waiting', '---\ntitle: waits\n---\nbody\n');

    const { logger, lines } = captureLogger();
    await reclaimOrphanWorktrees(vault.layout, vault.config, logger);

    expect(existsSync(gone.path)).toBe(false);
    expect(git(repo, 'log', '--format=%s', '-1', 'ralph/gone')).toBe('work of gone');
    expect(existsSync(waiting.path)).toBe(true);
    expect(existsSync(join(dirty.workdir, 'unsaved.txt'))).toBe(true);
    expect(lines.filter((line) => line.event === 'git.worktree-removed').map((line) => line.taskId)).toEqual(['gone']);
    expect(lines.filter((line) => line.event === 'git.worktree-kept').map((line) => line.taskId)).toEqual(['dirty']);
    expect(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(3);
  });
});
