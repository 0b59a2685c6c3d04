import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/child.js';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { isEvent } from '../helpers/log-events.js';
import { makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';

const TASK = '---\ntitle: One story\n---\n- [ ] US-001 One\n';
const daemons = drainedAfterEach();

function start(vault: TestVault): DaemonProcess {
  const daemon = DaemonProcess.start(vault.root);
  daemons.push(daemon);
  return daemon;
}

const isDone = (id: string) => isEvent('task.done', { taskId: id });

describe('Dashboard.md across a restart', () => {
  test('recently finished still lists a task done before the restart, below one done after it', async () => {
    const vault = await makeVault({
      fake: { FAKE_STORY_PER_RUN: '1' },
      config: { daemon: { dashboard_debounce: '50ms' } },
    });
    const dashboard = (): string => readFileSync(join(vault.root, 'Dashboard.md'), 'utf8');
    const first = start(vault);
    await first.ready();
    vault.task('before', TASK);
    await first.waitForLog(isDone('before'), 'before to be done');
    first.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(dashboard()).toContain('[[Done/before]]');

    const second = start(vault);
    await second.ready();
    vault.task('after', TASK);
    await second.waitForLog(isDone('after'), 'after to be done');
    await waitFor(() => dashboard().includes('[[Done/after]]'), 'the Dashboard to list after');
    const finished = dashboard().split('## Done (2)')[1] ?? '';
    expect(finished).toMatch(
      /- \[\[Done\/after\]\] after 1 iteration, at \d\d:\d\d:\d\d\n- \[\[Done\/before\]\] after 1 iteration, at \d\d:\d\d:\d\d\n/,
    );
    second.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });

    // With no daemon running, status still lists them, from the last daemon's status.json.
    const status = await runCli(['status', '--vault', vault.root]);
    expect(status.stdout).toMatch(/done \(2\): .*\n {2}after  after 1 iteration\n {2}before  after 1 iteration\n/);
  });
});
