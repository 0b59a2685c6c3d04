import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO_ROOT } from '../helpers/child.js';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { git, gitRepo } from '../helpers/git-repo.js';
import { landTask, landVault, section } from '../helpers/land-vault.js';
import { tempDir } from '../helpers/temp-dir.js';

const daemons = drainedAfterEach();

const FAKE_GH = join(REPO_ROOT, 'test', 'fixtures', 'fake-gh.sh');
const URL = 'https://github.com/acme/shop/pull/42';

describe('land: pr (the daemon, a bare repository as the remote, a fake gh)', () => {
  test('pushes the branch, runs gh pr create --fill --head <branch> --base <base>, retries its 502, and puts the URL in the Done summary; a remote that does not exist is reported, not retried forever', async () => {
    const parent = tempDir('wiggum-repos-');
    for (const name of ['user', 'lonely']) mkdirSync(join(parent, name));
    const bare = join(parent, 'remote.git');
    git(parent, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
    const repo = gitRepo(join(parent, 'user'));
    git(repo, 'remote', 'add', 'origin', bare);
    git(repo, 'push', '--quiet', 'origin', 'main');
    // A second repository with no remote at all: its push cannot succeed, however often tried.
    const lonely = gitRepo(join(parent, 'lonely'));

    // The fake gh first on the daemon's PATH; its first `pr create` fails with HTTP 502.
    const bin = tempDir('wiggum-bin-');
    symlinkSync(FAKE_GH, join(bin, 'gh'));
    const calls = tempDir('wiggum-gh-');
    const vault = await landVault(repo);
    const daemon = DaemonProcess.start(vault.root, [], {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      FAKE_GH_DIR: calls,
      FAKE_GH_FAILS: '1',
      FAKE_GH_URL: URL,
    });
    daemons.push(daemon);
    await daemon.ready();
    vault.task('pr', landTask(repo, 'land: pr\n'));
    await daemon.waitForEvent('task.done', { taskId: 'pr' });

    const head = vault.record('pr', 'head.1');
    expect(git(bare, 'rev-parse', 'refs/heads/ralph/pr')).toBe(head);
    const argv = (n: number): string[] =>
      readFileSync(join(calls, `argv.${n}`), 'utf8')
        .trim()
        .split('\n');
    const expected = ['pr', 'create', '--fill', '--head', 'ralph/pr', '--base', 'main'];
    expect(readFileSync(join(calls, 'calls'), 'utf8').trim()).toBe('2');
    expect(argv(1)).toEqual(expected);
    expect(argv(2)).toEqual(expected);
    expect(daemon.lines.find((line) => line.event === 'land.retrying')).toMatchObject({ taskId: 'pr', attempt: 1 });
    expect(String(daemon.lines.find((line) => line.event === 'land.retrying')?.reason)).toMatch(/HTTP 502/);
    expect(daemon.lines.find((line) => line.event === 'land.landed')).toMatchObject({ taskId: 'pr', url: URL });
    expect(section(vault.ended('pr'), 'Landing')).toContain(`Pull request: ${URL}`);

    vault.task('nowhere', landTask(lonely, 'land: pr\n'));
    const rejected = await daemon.waitForEvent('task.rejected', { taskId: 'nowhere' });
    expect(rejected).toMatchObject({ code: 'E_LAND_FAILED' });
    await daemon.waitForEvent('task.moved', { taskId: 'nowhere' });
    const report = vault.ended('nowhere', 'Rejected');
    expect(report).toContain('E_LAND_FAILED');
    expect(report).toMatch(/push of ralph\/nowhere to origin failed/);
    // Reported, not retried: gh was never called for it.
    expect(daemon.lines.filter((line) => line.event === 'land.retrying' && line.taskId === 'nowhere')).toEqual([]);
    expect(readFileSync(join(calls, 'calls'), 'utf8').trim()).toBe('2');
  });
});
