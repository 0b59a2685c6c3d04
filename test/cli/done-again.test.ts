import { existsSync, readFileSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/child.js';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { isEvent } from '../helpers/log-events.js';
import { makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';

/**
 * A Done task runs again when it is moved back into Approved/ or sent back by `wiggum retry`, with
 * a fresh iteration budget and its memory, like a Rejected one. The built-in demo agent prints the
 * same words before its promise every time, the case where an earlier run's summary in the prompt
 * used to make a genuine completion look like an echo.
 */
const DEMO =
  '---\ntitle: Again\nharness: demo\ndemo:\n  delay: 10ms\nmax_iterations: 2\n---\n# Again\n\n- [ ] S-1 one\n- [ ] S-2 two\n';
const daemons = drainedAfterEach();

const historyLines = (vault: TestVault, id: string): number =>
  readFileSync(join(vault.layout.sessions, id, 'history.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '').length;

describe('a Done task runs again', () => {
  test('moved back into Approved/ while the daemon runs: a fresh budget, its memory, Done/ again', async () => {
    const vault = await makeVault();
    const daemon = DaemonProcess.start(vault.root);
    daemons.push(daemon);
    await daemon.ready();
    vault.task('again', DEMO);
    const ended = isEvent('task.done', { taskId: 'again' });
    await daemon.waitForLog(ended, 'the first run to end');
    expect(historyLines(vault, 'again')).toBe(2);
    renameSync(join(vault.layout.done, 'again.md'), join(vault.layout.approved, 'again.md'));
    await daemon.waitForCount(ended, 2, 'the second run to end');
    // Both iterations of its budget were spent: only a fresh one let it run; the memory said all stories pass.
    expect(historyLines(vault, 'again')).toBe(3);
    expect(readdirSync(vault.layout.done)).toEqual(['again.md']);
    expect(readdirSync(vault.layout.approved)).toEqual([]);
    expect(daemon.lines.some(isEvent('task.sent-back', { taskId: 'again' }))).toBe(true);
  });

  test('wiggum retry ID sends a Done task back (keeping its memory); --fresh archives the memory', async () => {
    const vault = await makeVault();
    vault.task('again', DEMO);
    expect((await runCli(['run', 'Approved/again.md', '--no-stream'], { cwd: vault.root })).code).toBe(0);
    const retry = await runCli(['retry', 'again'], { cwd: vault.root });
    expect(retry).toMatchObject({ code: 0 });
    expect(retry.stdout).toContain(
      'again: Done/again.md → Approved/again.md\n  it resumes from its session memory with a fresh iteration budget',
    );
    expect(readFileSync(join(vault.layout.approved, 'again.md'), 'utf8')).toContain('state: Approved');
    expect((await runCli(['run', 'again', '--no-stream'], { cwd: vault.root })).code).toBe(0);
    expect(historyLines(vault, 'again')).toBe(3);

    const fresh = await runCli(['retry', 'again', '--fresh'], { cwd: vault.root });
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toMatch(/its memory was archived to \.wiggum\/archive\/[^ ]*again/);
    expect(existsSync(join(vault.layout.sessions, 'again'))).toBe(false);
    expect(readdirSync(vault.layout.archive).some((name) => name.includes('again'))).toBe(true);
  });

  test('run of a Done task refuses (exit 2) and says how to run it again; the file stays', async () => {
    const vault = await makeVault();
    vault.task('twice', DEMO);
    expect((await runCli(['run', 'Approved/twice.md', '--no-stream'], { cwd: vault.root })).code).toBe(0);
    const again = await runCli(['run', 'Done/twice.md', '--no-stream'], { cwd: vault.root });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      'Done/twice.md is in Done/: it is done. wiggum retry "twice" sends it back to Approved/',
    );
    expect(readdirSync(vault.layout.done)).toEqual(['twice.md']);
  });

  test('refusals say where the task is: retry of one in Approved/, stop and resume of one in Done/', async () => {
    const vault = await makeVault();
    vault.task('waiting', DEMO);
    vault.task('finished', DEMO);
    expect((await runCli(['run', 'Approved/finished.md', '--no-stream'], { cwd: vault.root })).code).toBe(0);
    const retry = await runCli(['retry', 'waiting'], { cwd: vault.root });
    expect(retry.code).toBe(2);
    expect(retry.stderr).toContain('Approved/waiting.md is in Approved/ already');
    for (const verb of ['stop', 'resume']) {
      const refused = await runCli([verb, 'finished'], { cwd: vault.root });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `Done/finished.md has ended (it is in Done/): there is nothing to ${verb}; wiggum retry finished sends it back`,
      );
    }
  });
});
