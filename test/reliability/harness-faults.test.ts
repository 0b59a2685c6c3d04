import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DaemonProcess } from '../helpers/daemon.js';
import { historyOf } from '../helpers/history.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import { findingsOf, harnessesOf } from '../helpers/vault-findings.js';
import { waitFor, waitForFile } from '../helpers/wait.js';

/**
 * A harness that dies or will not die, through the daemon: kill -9 of the harness mid-run, kill -9
 * of its grandchild (a tool it started), and a harness that ignores SIGTERM when its task is
 * stopped. Each time the iteration is recorded for what it was, the task ends in Done/ once, and
 * nothing of the run is left behind.
 */

const TASK = '---\ntitle: Harness faults\n---\n# Harness faults\n\n- [ ] US-001 Alpha\n- [ ] US-002 Beta\n';
const originals = new Map([['faulty.md', TASK]]);

async function finish(daemon: DaemonProcess, root: string): Promise<void> {
  await waitForFile(join(root, 'Done', 'faulty.md'), 60_000);
  daemon.kill('SIGTERM');
  expect((await daemon.exited).code).toBe(0);
  await waitFor(() => harnessesOf(root).length === 0, 'no process of the run left', 5_000);
  expect({ ...findingsOf(root, originals) }).toEqual({
    notDone: [],
    duplicated: [],
    corrupted: [],
    tornHistory: [],
    miscounted: [],
    tempsLeft: [],
    orphans: [],
  });
}

describe('harness faults through the daemon', () => {
  test('kill -9 of the harness mid-run: the iteration is recorded as killed, the next one goes on, the task ends in Done/', async () => {
    const gates = tempDir('wiggum-gates-');
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_GATE_DIR: gates } });
    for (let run = 2; run <= 6; run += 1) writeFileSync(join(gates, `go-${run}`), '');
    vault.task('faulty', TASK);
    const daemon = DaemonProcess.start(vault.root);
    await waitForFile(join(vault.marks, 'run-1'));
    const harnesses = harnessesOf(vault.root);
    expect(harnesses.length).toBeGreaterThan(0);
    // Every process of the run: one already gone (its sandbox went with the first) is no failure.
    for (const pid of harnesses) killIfThere(pid);
    await finish(daemon, vault.root);
    const first = historyOf(vault.layout.sessions, 'faulty')[0];
    expect(first).toMatchObject({ iteration: 1, signal: 'SIGKILL' });
  });

  test('kill -9 of a grandchild that holds the harness output open: the run ends, the task goes on to Done/', async () => {
    const pidfile = join(tempDir('wiggum-pids-'), 'pids');
    // Unconfined: a confined agent's namespace takes the grandchild with it as soon as the agent
    // exits, so only an unconfined run can be left holding its output open.
    const vault = await makeVault({
      fake: { FAKE_STORY_PER_RUN: '1', FAKE_MODE: 'spawn-child', FAKE_PIDFILE: pidfile },
      config: { sandbox: { mode: 'off' } },
    });
    vault.task('faulty', TASK);
    const daemon = DaemonProcess.start(vault.root);
    await waitFor(
      () => existsSync(pidfile) && readFileSync(pidfile, 'utf8').split('\n').length >= 3,
      'the grandchild to start',
    );
    const grandchild = Number(readFileSync(pidfile, 'utf8').split('\n')[1]);
    process.kill(grandchild, 'SIGKILL');
    await finish(daemon, vault.root);
    expect(historyOf(vault.layout.sessions, 'faulty').map((record) => record.iteration)).toEqual([1, 2]);
  });

  test('a harness that ignores SIGTERM when its task is stopped is killed after the grace; the flag removed, the task resumes and ends in Done/', async () => {
    const gates = tempDir('wiggum-gates-');
    const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_IGNORE_TERM: '1', FAKE_GATE_DIR: gates } });
    vault.task('faulty', TASK);
    const daemon = DaemonProcess.start(vault.root);
    await waitForFile(join(vault.marks, 'run-1'));
    const flag = join(vault.layout.approved, 'faulty.stop');
    writeFileSync(flag, '');
    await daemon.waitForEvent('task.stopped', { taskId: 'faulty' });
    // The harness ignored SIGTERM: it was killed after the grace, and nothing of it is left.
    await waitFor(() => harnessesOf(vault.root).length === 0, 'the stubborn harness gone', 10_000);
    for (let run = 1; run <= 6; run += 1) writeFileSync(join(gates, `go-${run}`), '');
    rmSync(flag);
    await finish(daemon, vault.root);
  });
});

function killIfThere(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
