import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { git, gitRepo } from '../helpers/git-repo.js';
import { landTask, landVault, parents, section, userCommits, worktreeCount } from '../helpers/land-vault.js';
import type { LandVault } from '../helpers/land-vault.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitForFile } from '../helpers/wait.js';

const daemons = drainedAfterEach();

const SHARED = 'line one\nline two\nline three\n';

async function started(vault: LandVault, env: NodeJS.ProcessEnv = {}): Promise<DaemonProcess> {
  const daemon = DaemonProcess.start(vault.root, [], env);
  daemons.push(daemon);
  await daemon.ready();
  return daemon;
}

/**
 * Two tasks that both rewrite line 2 of shared.txt, land: merge, held at their gates until both
 * have started from the same main: whichever lands second conflicts.
 */
async function twoConflicting(config: Record<string, unknown> = {}): Promise<{
  repo: string;
  vault: LandVault;
  daemon: DaemonProcess;
  main: string;
}> {
  const repo = gitRepo(tempDir('wiggum-user-'), { files: { 'shared.txt': SHARED } });
  const vault = await landVault(repo, { LAND_GATE: '1', LAND_LINE: '1' }, { daemon: { concurrency: 2 }, ...config });
  const daemon = await started(vault);
  vault.task('one', landTask(repo, 'land: merge\n'));
  vault.task('two', landTask(repo, 'land: merge\n'));
  await vault.started('one');
  await vault.started('two');
  vault.open('one');
  vault.open('two');
  return { repo, vault, daemon, main: git(repo, 'rev-parse', 'main') };
}

/**
 * Task `f` (land: merge, a fast-forward) and a daemon killed by kill -9 right after main moved to
 * the task's commit, before the user's copy (on main) followed: the daemon's git is a wrapper that
 * holds the copy's `update-index --refresh` (the first step of following) until the daemon is gone.
 * (A reference-transaction hook did this before; wiggum's own git runs no hooks now.)
 */
async function killedAfterBaseMoved(): Promise<{ repo: string; vault: LandVault; main: string; head: string }> {
  const repo = gitRepo(tempDir('wiggum-user-'));
  const main = git(repo, 'rev-parse', 'main');
  const gate = tempDir('wiggum-hook-');
  const bin = tempDir('wiggum-bin-');
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(
    join(bin, 'git'),
    [
      '#!/bin/sh',
      `if [ "$(pwd -P)" = '${realpathSync(repo)}' ]; then case " $* " in *" update-index "*)`,
      `  touch '${gate}/seen'`,
      `  while [ ! -e '${gate}/go' ]; do sleep 0.05; done;; esac; fi`,
      `exec '${realGit}' "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(join(bin, 'git'), 0o755);
  const vault = await landVault(repo);
  const first = await started(vault, { PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` });
  vault.task('f', landTask(repo, 'land: merge\n'));
  await waitForFile(join(gate, 'seen'), 60_000);
  first.kill('SIGKILL');
  await first.exited;
  daemons.splice(daemons.indexOf(first), 1);
  writeFileSync(join(gate, 'go'), '');
  const head = vault.record('f', 'head.1');
  expect(git(repo, 'rev-parse', 'main')).toBe(head);
  // Main moved under the user's copy, which did not follow yet: it shows the landing undone.
  expect(git(repo, 'status', '--porcelain', '-uall')).not.toBe('');
  expect(vault.ended('f')).toBe('');
  return { repo, vault, main, head };
}

describe('landing conflicts and crashes (the daemon, real repositories)', () => {
  test('a real conflict between two tasks: one lands, the other goes back with the file and the base commit, resolves, and lands', async () => {
    const { repo, vault, daemon } = await twoConflicting();
    const back = await daemon.waitForEvent('land.sent-back');
    const loser = String(back.taskId);
    const winner = loser === 'one' ? 'two' : 'one';
    expect(back).toMatchObject({ files: ['shared.txt'], attempt: 1, attempts: 3, base: 'main' });
    expect(git(repo, 'rev-parse', String(back.baseCommit))).toBe(vault.record(winner, 'head.1'));

    await vault.started(loser, 2);
    const prompt = vault.record(loser, 'prompt.2');
    expect(prompt).toContain('- shared.txt');
    expect(prompt).toContain(String(back.baseCommit));
    for (const id of ['one', 'two']) await daemon.waitForEvent('task.done', { taskId: id });

    expect(vault.record(loser, 'resolved.2')).toBe(String(back.baseCommit));
    for (const id of ['one', 'two']) {
      expect(vault.ended(id)).toContain('## Completion summary');
      git(repo, 'merge-base', '--is-ancestor', vault.record(id, 'head.1'), 'main');
    }
    expect(git(repo, 'show', 'main:shared.txt')).toBe('line one\nline two: resolved\nline three');
    expect(readFileSync(join(repo, 'shared.txt'), 'utf8')).toBe('line one\nline two: resolved\nline three\n');
    expect(git(repo, 'status', '--porcelain', '-uall')).toBe('');
  });

  test('out of git.land_attempts: the conflicting task goes to Rejected/ naming the file (E_LAND_CONFLICT); the base unmoved by it, its branch kept', async () => {
    const { repo, vault, daemon } = await twoConflicting({ git: { land_attempts: 1 } });
    const failed = await daemon.waitForEvent('land.failed');
    const loser = String(failed.taskId);
    const winner = loser === 'one' ? 'two' : 'one';
    expect(await daemon.waitForEvent('task.rejected', { taskId: loser })).toMatchObject({ code: 'E_LAND_CONFLICT' });
    await daemon.waitForEvent('task.done', { taskId: winner });
    await daemon.waitForEvent('task.moved', { taskId: loser });

    const report = vault.ended(loser, 'Rejected');
    expect(report).toContain('E_LAND_CONFLICT');
    expect(report).toContain('shared.txt');
    expect(daemon.lines.some((line) => line.event === 'land.sent-back')).toBe(false);
    expect(git(repo, 'rev-parse', 'main')).toBe(vault.record(winner, 'head.1'));
    expect(git(repo, 'rev-parse', `ralph/${loser}`)).toBe(vault.record(loser, 'head.1'));
    expect(git(repo, 'status', '--porcelain', '-uall')).toBe('');
  });

  test('kill -9 during the check on the merged result, then a restart: the landing is redone, main a proper merge, no scratch worktree left', async () => {
    const repo = gitRepo(tempDir('wiggum-user-'));
    const gate = tempDir('wiggum-check-');
    // Blocks on the merged result only (where the user's file is), until the test opens its gate.
    const script = `if [ -e user-k.txt ]; then pwd -P > '${gate}/seen'; while [ ! -e '${gate}/go' ]; do sleep 0.05; done; fi`;
    const vault = await landVault(
      repo,
      { LAND_GATE: '1' },
      // The check is confined: its gate folder is declared writable.
      { checks: { gated: { command: 'sh', args: ['-c', script] } }, sandbox: { writable: [gate] } },
    );
    const first = await started(vault);
    vault.task('k', landTask(repo, 'land: merge\nverify: gated\n'));
    await vault.started('k');
    const users = userCommits(repo, 'user-k.txt', 'the user was here\n');
    vault.open('k');
    await waitForFile(join(gate, 'seen'), 60_000);
    first.kill('SIGKILL');
    await first.exited;
    daemons.splice(daemons.indexOf(first), 1);
    const scratch = readFileSync(join(gate, 'seen'), 'utf8').trim();
    expect(git(repo, 'rev-parse', 'main')).toBe(users);
    // The check the killed daemon left running ends once its gate opens.
    writeFileSync(join(gate, 'go'), '');

    const second = await started(vault);
    await second.waitForEvent('task.done', { taskId: 'k' });
    // Killed before main moved: the landing is undone and done again (its check passes now).
    expect(second.lines.find((line) => line.event === 'land.recovered')).toMatchObject({ action: 'undo' });
    expect(second.lines.find((line) => line.event === 'land.landed')).toMatchObject({ how: 'merge-commit' });
    expect(parents(repo, 'main')).toEqual([users, vault.record('k', 'head.1')]);
    expect(vault.ended('k')).toContain('### Landing');
    await second.waitForEvent('git.worktree-removed', { taskId: 'k' });
    expect(worktreeCount(repo)).toBe(1);
    expect(existsSync(scratch)).toBe(false);
    expect(git(repo, 'status', '--porcelain', '-uall')).toBe('');
  });

  test("kill -9 right after the base moved, before the user's copy followed: the restart finishes the landing (the copy follows, clean), the task in Done/", async () => {
    const { repo, vault, main, head } = await killedAfterBaseMoved();
    const second = await started(vault);
    await second.waitForEvent('task.done', { taskId: 'f' });
    expect(second.lines.find((line) => line.event === 'land.recovered')).toMatchObject({ action: 'finish' });
    expect(parents(repo, 'main')).toEqual([main]);
    expect(git(repo, 'rev-parse', 'main')).toBe(head);
    expect(readFileSync(join(repo, 'work-f.txt'), 'utf8')).toBe('work of f\n');
    expect(git(repo, 'status', '--porcelain', '-uall')).toBe('');
    expect(section(vault.ended('f'), 'Landing')).toContain('finished after a restart');
    await second.waitForEvent('git.worktree-removed', { taskId: 'f' });
    expect(worktreeCount(repo)).toBe(1);
  });

  test("…and when the user's copy cannot follow then (a file of the user's in the way), it is left as it was and the Done summary says so and how to finish", async () => {
    const { repo, vault, head } = await killedAfterBaseMoved();
    // Meanwhile the user made a file of that name: following would overwrite it.
    writeFileSync(join(repo, 'work-f.txt'), "the user's own\n");
    const second = await started(vault);
    await second.waitForEvent('task.done', { taskId: 'f' });
    expect(git(repo, 'rev-parse', 'main')).toBe(head);
    expect(readFileSync(join(repo, 'work-f.txt'), 'utf8')).toBe("the user's own\n");
    const recovered = second.lines.find((line) => line.event === 'land.recovered');
    expect(recovered).toMatchObject({
      action: 'finish',
      notFollowed: [{ path: git(repo, 'rev-parse', '--show-toplevel') }],
    });
    const landing = section(vault.ended('f'), 'Landing');
    expect(landing).toContain(git(repo, 'rev-parse', '--show-toplevel'));
    // The command the summary gives ends it, once the user's file is out of the way.
    const command = /`git -C (\S+) (read-tree -u -m \w+ \w+)`/.exec(landing);
    expect(command?.[1]).toBe(git(repo, 'rev-parse', '--show-toplevel'));
    renameSync(join(repo, 'work-f.txt'), join(repo, 'mine.txt'));
    git(repo, ...String(command?.[2]).split(' '));
    expect(git(repo, 'status', '--porcelain', '-uall')).toBe('?? mine.txt');
    expect(readFileSync(join(repo, 'work-f.txt'), 'utf8')).toBe('work of f\n');
  });
});
