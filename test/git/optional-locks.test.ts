import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { gitState } from '../../src/git/changes.js';

/**
 * A worktree's index written in the same second as its files leaves every entry "racily clean":
 * each `git status` hashes every file again until a status may write the refreshed index. The
 * loop's status does so in wiggum's own worktrees only (optionalLocks), never in a person's checkout.
 */
describe('gitState and the index', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'optional-locks-'));
    const run = (...args: string[]): void => {
      execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
    };
    run('init', '--quiet', '--initial-branch=main');
    await writeFile(join(dir, 'a.txt'), 'a\n');
    run('add', 'a.txt');
    run('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '--quiet', '-m', 'init');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // The file's stat data no longer matches its index entry (its content does): a status must look
  // at it, and only a status allowed to lock writes down what it found.
  const staleEntry = async (): Promise<number> => {
    const later = new Date(Date.now() + 5_000);
    await utimes(join(dir, 'a.txt'), later, later);
    return (await stat(join(dir, '.git', 'index'))).mtimeMs;
  };
  const indexMtime = async (): Promise<number> => (await stat(join(dir, '.git', 'index'))).mtimeMs;

  test.each([
    ["a person's checkout: the index is never written", false, false],
    ["wiggum's own worktree: the refreshed index is written", true, true],
  ])('%s', async (_name, optionalLocks, written) => {
    const before = await staleEntry();
    const state = await gitState(dir, { optionalLocks });
    expect(state.dirty).toEqual([]);
    expect((await indexMtime()) !== before).toBe(written);
  });
});
