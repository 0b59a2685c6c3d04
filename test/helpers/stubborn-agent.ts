import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DaemonProcess } from './daemon.js';
import { hostPidsOf } from './host-pids.js';
import { tempDir } from './temp-dir.js';
import { makeVault } from './vault.js';
import type { TestVault, TestVaultOptions } from './vault.js';
import { waitFor } from './wait.js';

/**
 * A daemon running one task (`stubborn`) whose agent and the agent's child both ignore SIGTERM
 * and never end: what the drain's grace and a second signal must deal with. Resolves once both
 * run with their handlers in place, with their pids.
 */
/** A vault whose fake agent and its child both ignore SIGTERM and never end, writing their pids to `pidFile`. */
export async function makeStubbornVault(
  config: TestVaultOptions['config'],
): Promise<{ vault: TestVault; pidFile: string }> {
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
    ...(config === undefined ? {} : { config }),
  });
  return { vault, pidFile };
}

/** Resolves once the stubborn agent and its child run with their handlers in place, with their pids. */
export async function stubbornPids(pidFile: string): Promise<number[]> {
  // Written once the agent's child has its SIGTERM handler in place: both now ignore SIGTERM.
  await waitFor(
    () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim().split('\n').length === 2,
    'the agent and its child to run',
  );
  const recorded = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
  return hostPidsOf(recorded, `FAKE_PIDFILE=${pidFile}`);
}

export async function startStubbornTask(
  config: TestVaultOptions['config'],
  daemons: DaemonProcess[],
): Promise<{ vault: TestVault; daemon: DaemonProcess; pids: number[] }> {
  const { vault, pidFile } = await makeStubbornVault(config);
  const daemon = DaemonProcess.start(vault.root);
  daemons.push(daemon);
  await daemon.ready();
  vault.task('stubborn', '---\ntitle: stubborn\n---\n- [ ] S-1 never ends\n');
  return { vault, daemon, pids: await stubbornPids(pidFile) };
}
