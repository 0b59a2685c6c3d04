import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openWorkerClone, pushIteration, remoteBranchCommit } from '../../src/queue/worker-git.js';

const IDENTITY = ['-c', 'user.email=w@example.invalid', '-c', 'user.name=w'];
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', [...IDENTITY, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

describe("a worker's clone: pushes with a lease", () => {
  let dir = '';
  let remote = '';
  const env = { ...process.env };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'worker-git-'));
    remote = join(dir, 'remote.git');
    git(dir, 'init', '-q', '--bare', '-b', 'main', remote);
    git(dir, 'clone', '-q', remote, 'seed');
    await writeFile(join(dir, 'seed', 'README.md'), '# app\n');
    git(join(dir, 'seed'), 'add', 'README.md');
    git(join(dir, 'seed'), 'commit', '-qm', 'init');
    git(join(dir, 'seed'), 'push', '-q', 'origin', 'HEAD:main');
    // The commits the worker makes of leftovers need an identity, as a worker's HOME gives one.
    process.env.GIT_AUTHOR_NAME = process.env.GIT_COMMITTER_NAME = 'w';
    process.env.GIT_AUTHOR_EMAIL = process.env.GIT_COMMITTER_EMAIL = 'w@example.invalid';
  });
  afterEach(async () => {
    for (const key of ['GIT_AUTHOR_NAME', 'GIT_COMMITTER_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_EMAIL'])
      if (env[key] === undefined) delete process.env[key];
      else process.env[key] = env[key];
    await rm(dir, { recursive: true, force: true });
  });

  test('a new branch starts from the base; each iteration is pushed; a stale worker is refused by the lease', async () => {
    const code = { remote, branch: 'ralph/t1', commit: null, base: 'main' };
    const first = await openWorkerClone(join(dir, 'w1'), code);
    expect(first.lease).toBeNull();
    expect(git(first.dir, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('ralph/t1');

    await writeFile(join(first.dir, 'a.txt'), 'one\n');
    const pushed = await pushIteration(first, code, 'wiggum: t1 iteration 1');
    expect(pushed.kind).toBe('pushed');
    expect(await remoteBranchCommit(first.dir, 'ralph/t1')).toBe(pushed.kind === 'pushed' ? pushed.commit : '');

    // Another worker takes the run over from that commit and pushes on.
    const commit = pushed.kind === 'pushed' ? pushed.commit : null;
    const second = await openWorkerClone(join(dir, 'w2'), { ...code, commit });
    expect(second.lease).toBe(commit);
    await writeFile(join(second.dir, 'b.txt'), 'two\n');
    expect((await pushIteration(second, code, 'wiggum: t1 iteration 2')).kind).toBe('pushed');

    // The first worker, late, cannot push over it.
    await writeFile(join(first.dir, 'a.txt'), 'late\n');
    const late = await pushIteration(first, code, 'wiggum: t1 iteration 2 (late)');
    expect(late).toEqual({ kind: 'fenced', outcome: 'lease-refused' });
    expect(git(dir, '--git-dir', remote, 'log', '--format=%s', 'ralph/t1')).toBe(
      'wiggum: t1 iteration 2\nwiggum: t1 iteration 1\ninit',
    );
  });

  test("a clone reused for the same task is fetched again and reset to the run's commit", async () => {
    const code = { remote, branch: 'ralph/t2', commit: null, base: null };
    const clone = await openWorkerClone(join(dir, 'w'), code);
    await writeFile(join(clone.dir, 'left.txt'), 'uncommitted\n');
    const again = await openWorkerClone(join(dir, 'w'), code);
    expect(git(again.dir, 'status', '--porcelain')).toBe('');
  });
});
