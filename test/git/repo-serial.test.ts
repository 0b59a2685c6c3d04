import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { serialPerRepository } from '../../src/git/repo-serial.js';
import { git, gitRepo } from '../helpers/git-repo.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

describe('serialPerRepository', () => {
  test('work on one repository runs one at a time, from any of its worktrees; a failure does not stop the next', async () => {
    const repo = gitRepo();
    const linked = join(tempDir('wiggum-linked-'), 'wt');
    git(repo, 'worktree', 'add', '--quiet', '--detach', linked);
    const order: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = serialPerRepository(repo, async () => {
      order.push('first starts');
      await gate;
      order.push('first ends');
      throw new Error('first failed');
    });
    await waitFor(() => order.length === 1, 'the first work to start');
    const second = serialPerRepository(linked, () => {
      order.push('second runs');
      return Promise.resolve('second');
    });
    // The second has had time to look its key up and queue; it must not run while the first holds.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(order).toEqual(['first starts']);
    release();
    await expect(first).rejects.toThrow('first failed');
    await expect(second).resolves.toBe('second');
    expect(order).toEqual(['first starts', 'first ends', 'second runs']);
  });
});
