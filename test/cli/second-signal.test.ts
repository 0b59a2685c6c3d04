import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { isRunning } from '../helpers/process-state.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';

const daemons = drainedAfterEach();

/**
 * The daemon kills the agents; the command exits the process. A second SIGTERM during a drain that
 * agents ignoring SIGTERM hold up (long graces) must still end `wiggum start` at once, with code 3,
 * and leave no agent behind.
 */
test('wiggum start: a second SIGTERM during the drain kills every agent at once and exits 3', async () => {
  const root = tempDir('wiggum-vault-');
  const pidFile = join(root, 'agent.pids');
  const vault = await makeVault({
    root,
    fake: {
      FAKE_MODE: 'spawn-child',
      FAKE_THEN: 'hang',
      FAKE_IGNORE_TERM: '1',
      FAKE_CHILD_IGNORE_TERM: '1',
      FAKE_PIDFILE: pidFile,
    },
    config: { daemon: { drain_grace: '10m' }, harness: { stop_grace: '10m' } },
  });
  const daemon = DaemonProcess.start(vault.root);
  daemons.push(daemon);
  await daemon.ready();
  vault.task('stubborn', '---\ntitle: stubborn\n---\n- [ ] S-1 never ends\n');
  // Written once the agent's child has its SIGTERM handler in place: both now ignore SIGTERM.
  await waitFor(
    () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim().split('\n').length === 2,
    'the agent and its child to run',
  );
  const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);

  daemon.kill('SIGTERM');
  await daemon.waitForLog((line) => line.msg.startsWith('draining ('), 'the drain to begin');
  daemon.kill('SIGTERM');

  expect(await daemon.exited).toEqual({ code: 3, signal: null });
  await waitFor(() => pids.every((pid) => !isRunning(pid)), 'the agent and its child to be killed');
});
