import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { git, gitRepo } from '../helpers/git-repo.js';
import { landTask, landVault, parents, section, userCommits, worktreeCount } from '../helpers/land-vault.js';
import type { LandVault } from '../helpers/land-vault.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait.js';

const daemons = drainedAfterEach();

async function started(vault: LandVault): Promise<DaemonProcess> {
  const daemon = DaemonProcess.start(vault.root);
  daemons.push(daemon);
  await daemon.ready();
  return daemon;
}

describe('landing a complete task (the daemon, real repositories)', () => {
  test('land: branch (the default) keeps the branch, names it with its commit and a diffstat, leaves the base and removes the worktree', async () => {
    const repo = gitRepo(tempDir('wiggum-user-'));
    const main = git(repo, 'rev-parse', 'main');
    const vault = await landVault(repo);
    const daemon = await started(vault);
    vault.task('kept', landTask(repo));
    await daemon.waitForEvent('task.done', { taskId: 'kept' });

    const head = vault.record('kept', 'head.1');
    expect(daemon.lines.find((line) => line.event === 'land.started')).toMatchObject({ land: 'branch', base: 'main' });
    const landing = section(vault.ended('kept'), 'Landing');
    expect(landing).toContain('`ralph/kept`');
    expect(landing).toContain(`${head.slice(0, 7)}`);
    expect(landing).toContain('feat: kept run 1');
    expect(landing).toMatch(/work-kept\.txt \| 1 \+/);
    expect(git(repo, 'rev-parse', 'main')).toBe(main);
    expect(git(repo, 'rev-parse', 'ralph/kept')).toBe(head);
    await daemon.waitForEvent('git.worktree-removed', { taskId: 'kept' });
    expect(worktreeCount(repo)).toBe(1);
  });

  test("land: merge fast-forwards the base to the task's commit; the user's copy on the base, clean, follows", async () => {
    const repo = gitRepo(tempDir('wiggum-user-'));
    const main = git(repo, 'rev-parse', 'main');
    const vault = await landVault(repo);
    const daemon = await started(vault);
    vault.task('ff', landTask(repo, 'land: merge\n'));
    await daemon.waitForEvent('task.done', { taskId: 'ff' });

    const head = vault.record('ff', 'head.1');
    expect(daemon.lines.find((line) => line.event === 'land.landed')).toMatchObject({ how: 'ff', newBase: head });
    expect(git(repo, 'rev-parse', 'main')).toBe(head);
    expect(parents(repo, 'main')).toEqual([main]);
    expect(readFileSync(join(repo, 'work-ff.txt'), 'utf8')).toBe('work of ff\n');
    expect(git(repo, 'status', '--porcelain', '-uall')).toBe('');
    expect(section(vault.ended('ff'), 'Landing')).toContain('fast-forward');
    await daemon.waitForEvent('git.worktree-removed', { taskId: 'ff' });
    expect(worktreeCount(repo)).toBe(1);
  });

  test("land: merge makes a merge commit when the user committed on the base meanwhile: its parents are the user's commit and the task's", async () => {
    const repo = gitRepo(tempDir('wiggum-user-'));
    const vault = await landVault(repo, { LAND_GATE: '1' });
    const daemon = await started(vault);
    vault.task('mc', landTask(repo, 'land: merge\n'));
    await vault.started('mc');
    const users = userCommits(repo, 'user.txt', 'the user was here\n');
    vault.open('mc');
    await daemon.waitForEvent('task.done', { taskId: 'mc' });

    const head = vault.record('mc', 'head.1');
    expect(parents(repo, 'main')).toEqual([users, head]);
    expect(daemon.lines.find((line) => line.event === 'land.landed')).toMatchObject({ how: 'merge-commit' });
    expect(readFileSync(join(repo, 'work-mc.txt'), 'utf8')).toBe('work of mc\n');
    expect(readFileSync(join(repo, 'user.txt'), 'utf8')).toBe('the user was here\n');
    expect(git(repo, 'status', '--porcelain', '-uall')).toBe('');
    await daemon.waitForEvent('git.worktree-removed', { taskId: 'mc' });
    expect(worktreeCount(repo)).toBe(1);
  });

  test("a merge into a base checked out with local changes waits and says why, then lands once the copy is clean; the user's edit is never lost", async () => {
    const repo = gitRepo(tempDir('wiggum-user-'));
    writeFileSync(join(repo, 'README.md'), '# project\nthe user is editing this\n');
    const main = git(repo, 'rev-parse', 'main');
    const vault = await landVault(repo);
    const daemon = await started(vault);
    vault.task('dirty', landTask(repo, 'land: merge\n'));

    const waiting = await daemon.waitForEvent('land.waiting', { taskId: 'dirty' });
    expect(String(waiting.reason)).toMatch(/local changes/);
    const shown = (): { phase?: string; waitingFor?: string; waitingReason?: string } | undefined => {
      if (!existsSync(vault.layout.statusFile)) return undefined;
      const status = JSON.parse(readFileSync(vault.layout.statusFile, 'utf8')) as {
        tasks: { id: string; phase?: string; waitingFor?: string; waitingReason?: string }[];
      };
      return status.tasks.find((task) => task.id === 'dirty');
    };
    await waitFor(() => shown()?.waitingFor === 'landing', 'status to show the task waiting for its landing', 60_000);
    expect(shown()).toMatchObject({ phase: 'waiting', waitingFor: 'landing' });
    expect(shown()?.waitingReason).toMatch(/local changes/);
    expect(git(repo, 'rev-parse', 'main')).toBe(main);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('# project\nthe user is editing this\n');
    expect(vault.ended('dirty')).toBe('');

    // The user commits the edit: the copy is clean, and the landing goes on.
    git(repo, 'commit', '--quiet', '-am', 'user: the edit');
    const users = git(repo, 'rev-parse', 'HEAD');
    await daemon.waitForEvent('task.done', { taskId: 'dirty' });
    expect(parents(repo, 'main')).toEqual([users, vault.record('dirty', 'head.1')]);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('# project\nthe user is editing this\n');
    expect(readFileSync(join(repo, 'work-dirty.txt'), 'utf8')).toBe('work of dirty\n');
    expect(git(repo, 'status', '--porcelain', '-uall')).toBe('');
  });

  test('work left uncommitted is not landed as done: the task goes back to commit it, then lands with it', async () => {
    const repo = gitRepo(tempDir('wiggum-user-'));
    const main = git(repo, 'rev-parse', 'main');
    const vault = await landVault(repo, { LAND_FORGET: '1' });
    const daemon = await started(vault);
    vault.task('forgot', landTask(repo, 'land: merge\n'));
    const back = await daemon.waitForEvent('land.sent-back', { taskId: 'forgot' });
    expect(back).toMatchObject({ files: ['work-forgot.txt'], attempt: 1, base: 'main' });
    // Nothing landed yet: the base is where it was.
    expect(git(repo, 'rev-parse', 'main')).toBe(main);
    await vault.started('forgot', 2);
    expect(vault.record('forgot', 'prompt.2')).toContain('- work-forgot.txt');
    await daemon.waitForEvent('task.done', { taskId: 'forgot' });
    expect(git(repo, 'show', 'main:work-forgot.txt')).toBe('work of forgot');
    expect(git(repo, 'status', '--porcelain', '-uall')).toBe('');
  });

  test("the verify check runs on the merged result, not in the user's copy: failing there sends the task back as check-failed", async () => {
    const repo = gitRepo(tempDir('wiggum-user-'));
    const runs = join(tempDir('wiggum-check-'), 'runs');
    // Fails only where the file the user adds to main is present: on the merged result.
    const check = { command: 'sh', args: ['-c', `pwd -P >> '${runs}'; test ! -e user-added.txt`] };
    // The check is confined (both runs): the file it appends to is declared writable.
    const vault = await landVault(
      repo,
      { LAND_GATE: '1' },
      { checks: { nouser: check }, git: { land_attempts: 2 }, sandbox: { writable: [dirname(runs)] } },
    );
    const daemon = await started(vault);
    vault.task('vc', landTask(repo, 'land: merge\nverify: nouser\n'));
    await vault.started('vc');
    const users = userCommits(repo, 'user-added.txt', 'added by the user\n');
    vault.open('vc');

    const back = await daemon.waitForEvent('land.sent-back', { taskId: 'vc' });
    expect(back).toMatchObject({ attempt: 1, attempts: 2 });
    expect(back.files).toBeUndefined();
    await vault.started('vc', 2);
    expect(vault.record('vc', 'prompt.2')).toMatch(/Make the checks pass on ralph\/vc merged with main/);
    // Still failing on the merged result after the second landing: out of attempts.
    expect(await daemon.waitForEvent('task.rejected', { taskId: 'vc' })).toMatchObject({ code: 'E_LAND_CONFLICT' });
    await daemon.waitForEvent('task.moved', { taskId: 'vc' });
    expect(vault.ended('vc', 'Rejected')).toContain('E_LAND_CONFLICT');
    expect(git(repo, 'rev-parse', 'main')).toBe(users);

    const dirs = readFileSync(runs, 'utf8').trim().split('\n');
    const real = git(repo, 'rev-parse', '--show-toplevel');
    expect(dirs).not.toContain(real);
    // It passed in the task's worktree (each completion claim) and failed on the merged result.
    expect(new Set(dirs).size).toBeGreaterThanOrEqual(2);
    expect(git(repo, 'status', '--porcelain', '-uall')).toBe('');
  });
});
