import {
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { linkRefusalText } from '../../src/vault/links.js';
import { CLI, outputOf, runCli, spawn } from '../helpers/child.js';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { isEventOn } from '../helpers/log-events.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';
import { waitFor, waitForFile } from '../helpers/wait.js';

const TASK = '---\ntitle: Two stories\n---\n- [ ] US-001 One\n- [ ] US-002 Two\n';

const daemons = drainedAfterEach();

function start(vault: TestVault): DaemonProcess {
  const daemon = DaemonProcess.start(vault.root);
  daemons.push(daemon);
  return daemon;
}

/** The lines of a status text that name `id` as a word, each after the heading it is listed under. */
function linesOf(text: string, id: string): string[] {
  let heading = '';
  const found: string[] = [];
  for (const line of text.split('\n')) {
    // A state's heading: `waiting for you (2): what moves it on`, said here as its word.
    const state = /^(\S[^:(]*?) \(\d+\):/.exec(line);
    if (state !== null) heading = state[1] ?? '';
    if (line.split(/[^\w.-]+/).includes(id)) found.push(`${heading} | ${line.trim()}`);
  }
  return found;
}

describe('every file in Approved/ is run or said', () => {
  test('a hard link is refused the same way by run, validate, the daemon and status; a symlink by run, with no session', async () => {
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const outside = join(vault.root, 'outside.md');
    writeFileSync(outside, TASK);
    const twin = join(vault.layout.approved, 'twin.md');
    linkSync(outside, twin);

    const run = await runCli(['run', twin, '--no-stream']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`Approved/twin.md is ${linkRefusalText('hard-link')}`);
    expect(existsSync(twin)).toBe(true);
    expect(existsSync(join(vault.layout.sessions, 'twin'))).toBe(false);

    const validate = await runCli(['validate', '--vault', vault.root]);
    expect(validate.code).toBe(2);
    expect(validate.stdout).toContain(`${twin}:1:1: ${linkRefusalText('hard-link')}`);

    const daemon = start(vault);
    await daemon.ready();
    await daemon.waitForLog((line) => line.reason === 'hard-link' && line.file === twin, 'the refusal in the log');
    vault.task('probe', TASK);
    await daemon.waitForEvent('task.done', { taskId: 'probe' });
    expect(daemon.lines.some(isEventOn('task.queued', 'twin.md'))).toBe(false);
    const status = await runCli(['status', '--vault', vault.root]);
    expect(linesOf(status.stdout, 'twin')).toEqual([`waiting for you | twin: ${linkRefusalText('hard-link')}`]);
    await daemon.drain();
    // Without the daemon, status says the same from the files.
    expect(linesOf((await runCli(['status', '--vault', vault.root])).stdout, 'twin')).toEqual([
      `waiting for you | twin: ${linkRefusalText('hard-link')}`,
    ]);

    const link = join(vault.layout.approved, 'pointer.md');
    symlinkSync(outside, link);
    const symlinked = await runCli(['run', link, '--no-stream']);
    expect(symlinked.code).toBe(2);
    expect(symlinked.stderr).toContain(linkRefusalText('symlink'));
    expect(existsSync(join(vault.layout.sessions, 'pointer'))).toBe(false);
    expect(existsSync(link)).toBe(true);
  });

  test('status lists a task a foreground run runs as running there, with its pid, with or without the daemon', async () => {
    const gate = join(tempDir(), 'gate');
    mkdirSync(gate);
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_GATE_DIR: gate } });
    const file = vault.task('fg', TASK);
    const child = spawn(process.execPath, [CLI, 'run', file, '--no-stream'], { env: process.env });
    const ran = outputOf(child);
    await waitForFile(join(vault.marks, 'run-1'));

    const alone = await runCli(['status', '--vault', vault.root]);
    const [line, ...more] = linesOf(alone.stdout, 'fg');
    expect(more).toEqual([]);
    expect(line).toMatch(new RegExp(`^running \\| fg  .*running in a foreground wiggum run \\(pid ${child.pid}\\)`));
    const json = JSON.parse((await runCli(['status', '--json', '--vault', vault.root])).stdout) as {
      tasks: { id: string; state: string; run?: { foreground?: { pid: number } } }[];
    };
    expect(json.tasks).toMatchObject([{ id: 'fg', state: 'running', run: { foreground: { pid: child.pid } } }]);

    const daemon = start(vault);
    await daemon.ready();
    await daemon.waitForEvent('task.busy-elsewhere', { taskId: 'fg' });
    await waitFor(
      async () =>
        linesOf((await runCli(['status', '--vault', vault.root])).stdout, 'fg').some((line) =>
          line.includes(`foreground wiggum run (pid ${child.pid})`),
        ),
      'status with the daemon to list it',
    );
    expect(linesOf((await runCli(['status', '--vault', vault.root])).stdout, 'fg').join('\n')).not.toMatch(/queued/);

    writeFileSync(join(gate, 'go-1'), '');
    writeFileSync(join(gate, 'go-2'), '');
    expect((await ran).code).toBe(0);
    expect(existsSync(join(vault.layout.done, 'fg.md'))).toBe(true);
  });

  test('status works with an invalid vault config, says so and lists the tasks', async () => {
    const vault = await makeVault();
    vault.task('tidy', TASK);
    writeFileSync(join(vault.root, '.wiggum', 'config.yaml'), 'persistence_loop:\n  max_iterations: 0\n');
    const status = await runCli(['status', '--vault', vault.root]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(
      /^config: INVALID: .*config\.yaml:2:\d+: persistence_loop\.max_iterations: .*wiggum validate lists every problem/m,
    );
    expect(linesOf(status.stdout, 'tidy')).toEqual(['queued | tidy']);
    const json = JSON.parse((await runCli(['status', '--json', '--vault', vault.root])).stdout) as {
      configProblem?: string;
      tasks: unknown[];
    };
    expect(json.configProblem).toMatch(/^INVALID: /);
    expect(json.tasks).toHaveLength(1);
  });

  test('300 queued tasks: a summary with the count; --all lists every one', async () => {
    const vault = await makeVault();
    for (let i = 1; i <= 300; i += 1) vault.task(`m${i}`, TASK);
    const status = await runCli(['status', '--vault', vault.root]);
    expect(status.code).toBe(0);
    expect(status.stdout.split('\n').length).toBeLessThan(30);
    expect(status.stdout).toContain('… and 290 more queued (300 in all; wiggum status --all lists them)');
    const all = await runCli(['status', '--all', '--vault', vault.root]);
    expect(new Set(all.stdout.match(/\bm\d+\b/g)).size).toBe(300);
  });

  test('a task moved out of Approved/ mid-run gets its final status where it went', async () => {
    const gate = join(tempDir(), 'gate');
    mkdirSync(gate);
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_GATE_DIR: gate } });
    const daemon = start(vault);
    await daemon.ready();
    const file = vault.task('away', TASK);
    await waitForFile(join(vault.marks, 'run-1'));
    mkdirSync(join(vault.root, 'Later'));
    const later = join(vault.root, 'Later', 'away.md');
    renameSync(file, later);
    await daemon.waitForEvent('task.moved-away', { taskId: 'away', file: later });
    expect(readFileSync(later, 'utf8')).toMatch(/^ {2}status: stopped$/m);
    expect(readdirSync(vault.layout.approved).filter((name) => name.endsWith('.md'))).toEqual([]);
  });

  test('Dashboard.md says when the daemon stopped; a page a forced exit left saying running is set right by status', async () => {
    const vault = await makeVault();
    const dashboard = join(vault.root, 'Dashboard.md');
    const daemon = start(vault);
    await daemon.ready();
    await waitFor(
      () => existsSync(dashboard) && readFileSync(dashboard, 'utf8').includes(', running,'),
      'the page to say running',
    );
    const drained = await daemon.drain();
    expect(drained.code).toBe(0);
    const stoppedAt = /^_The daemon stopped at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) /m.exec(
      readFileSync(dashboard, 'utf8'),
    );
    expect(stoppedAt).not.toBeNull();
    // The stamp is the daemon's last write, at its stop (local time, to the second).
    const last = JSON.parse(readFileSync(vault.layout.statusFile, 'utf8')) as {
      updatedAtMs: number;
      lifecycle: string;
    };
    expect(last.lifecycle).toBe('stopped');
    expect(new Date((stoppedAt?.[1] ?? '').replace(' ', 'T')).getTime()).toBe(
      Math.floor(last.updatedAtMs / 1000) * 1000,
    );

    const forced = start(vault);
    await forced.ready();
    await waitFor(() => readFileSync(dashboard, 'utf8').includes(', running,'), 'the page to say running');
    forced.kill('SIGKILL');
    await forced.exited;
    expect(readFileSync(dashboard, 'utf8')).toContain(', running,');
    await runCli(['status', '--vault', vault.root]);
    expect(readFileSync(dashboard, 'utf8')).toContain('The daemon is not running.');
  });
});
