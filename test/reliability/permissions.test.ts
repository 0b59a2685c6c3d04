import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CLI } from '../helpers/child.js';
import { DaemonProcess } from '../helpers/daemon.js';
import type { DaemonLine, RunAs } from '../helpers/daemon.js';
import { isEvent } from '../helpers/log-events.js';
import { stageBuildFor } from '../helpers/staged-build.js';
import type { StagedBuild } from '../helpers/staged-build.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import type { TestVault, TestVaultOptions } from '../helpers/vault.js';
import { findingsOf } from '../helpers/vault-findings.js';
import { waitFor, waitForFile } from '../helpers/wait.js';

/**
 * Permission errors. File modes do not bind root, so when the tests run as root the daemon runs
 * as `nobody` over a vault it owns, and the test takes rights away from it: a read-only Done/, an
 * unwritable .wiggum/sessions (memory falls back to RAM, and the log, `status` and the Dashboard
 * say it is not durable), a task file it cannot read. `nobody` runs a copy of the build (and of the
 * fake agent) staged where it can reach them: the clone itself may sit in a folder only root can walk.
 */

const NOBODY = { uid: 65534, gid: 65534 };
const asRoot = process.getuid?.() === 0;
let staged: StagedBuild | undefined;
beforeAll(() => {
  if (asRoot) staged = stageBuildFor(NOBODY);
});
afterAll(() => staged?.release());

const TASK = '---\ntitle: Permissions\nnote: "user text ☕ stays"\n---\n# Permissions\n\n- [ ] US-001 Alpha\n';

async function nobodysVault(options: TestVaultOptions = {}): Promise<TestVault> {
  const vault = await makeVault({
    ...options,
    ...(staged === undefined ? {} : { agent: staged.fakeAgent }),
    config: { daemon: { failed_retry: '1s' }, ...options.config },
  });
  return vault;
}

function giveToDaemonUser(path: string): void {
  if (asRoot) execFileSync('chown', ['-R', `${NOBODY.uid}:${NOBODY.gid}`, path]);
}

function startDaemon(vault: TestVault): DaemonProcess {
  const home = tempDir('wiggum-home-');
  giveToDaemonUser(home);
  giveToDaemonUser(vault.root);
  const user: RunAs | undefined = staged === undefined ? undefined : { ...NOBODY, node: staged.node, cli: staged.cli };
  const daemon = DaemonProcess.start(vault.root, [], { HOME: home, ...staged?.env }, [], user);
  // The staged copy is the daemon under test, and it runs as nobody (not yet reaped, so /proc has it).
  if (user !== undefined) {
    expect(readFileSync(`/proc/${daemon.child.pid}/cmdline`, 'utf8').split('\0')).toContain(user.cli);
    expect(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${daemon.child.pid}/status`, 'utf8'))?.[1]).toBe(
      String(NOBODY.uid),
    );
  }
  return daemon;
}

const saysDenied = (line: DaemonLine): boolean =>
  line.level >= 40 && /EACCES|permission denied/i.test(JSON.stringify(line));

async function stopped(daemon: DaemonProcess): Promise<void> {
  daemon.kill('SIGTERM');
  expect((await daemon.exited).code).toBe(0);
}

describe('permission errors', () => {
  test('a read-only Done/: the daemon lives and says so, the task waits in Approved/ whole, and ends in Done/ once Done/ is writable', async () => {
    const vault = await nobodysVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    vault.task('perm', TASK);
    const daemon = startDaemon(vault);
    chmodSync(vault.layout.done, 0o555);
    const said = await daemon.waitForLog(saysDenied, 'the permission error in the log');
    expect(JSON.stringify(said)).toMatch(/give the wiggum user write access/);
    expect(daemon.child.exitCode).toBeNull();
    expect(readFileSync(join(vault.layout.approved, 'perm.md'), 'utf8')).toContain('note: "user text ☕ stays"');

    chmodSync(vault.layout.done, 0o755);
    await waitForFile(join(vault.layout.done, 'perm.md'));
    await stopped(daemon);
    expect({ ...findingsOf(vault.root, new Map([['perm.md', TASK]])) }).toMatchObject({
      notDone: [],
      duplicated: [],
      corrupted: [],
      miscounted: [],
      tempsLeft: [],
    });
  });

  test('an unwritable .wiggum/sessions: memory is kept in RAM, and the log, status and Dashboard say it is not durable', async () => {
    const gates = tempDir('wiggum-gates-');
    const vault = await nobodysVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_GATE_DIR: gates } });
    vault.task('fragile', TASK);
    mkdirSync(vault.layout.sessions, { recursive: true });
    giveToDaemonUser(gates);
    const daemon = startDaemon(vault);
    chmodSync(vault.layout.sessions, 0o555);

    await daemon.waitForLog((line) => line.durable === false && line.level >= 40, 'the not-durable warning');
    await waitForFile(join(vault.marks, 'run-1'));
    await waitFor(
      () =>
        existsSync(join(vault.root, 'Dashboard.md')) &&
        readFileSync(join(vault.root, 'Dashboard.md'), 'utf8').includes('Memory is NOT durable'),
      'the Dashboard warning',
    );
    const status = execFileSync(process.execPath, [CLI, 'status', '--vault', vault.root], { encoding: 'utf8' });
    expect(status).toContain('NOT durable');

    writeFileSync(join(gates, 'go-1'), '');
    await waitForFile(join(vault.layout.done, 'fragile.md'));
    await stopped(daemon);
    expect(readFileSync(join(vault.layout.done, 'fragile.md'), 'utf8')).toContain('Memory: not durable');
  });

  test('a task file the daemon cannot read: it says which and why, leaves the file as it is, and runs it once it can read it', async () => {
    const vault = await nobodysVault({ fake: { FAKE_STORY_PER_RUN: '1' } });
    const daemon = startDaemon(vault);
    await daemon.ready();
    const file = join(vault.layout.approved, 'secret.md');
    // Written by someone else (root), readable by its owner only.
    writeFileSync(`${file}.part`, TASK, { mode: 0o600 });
    if (!asRoot) chmodSync(`${file}.part`, 0o000);
    execFileSync('mv', [`${file}.part`, file]);

    const said = await daemon.waitForLog(
      (line) => line.level >= 40 && JSON.stringify(line).includes('cannot be read (EACCES)'),
      'the unreadable task in the log',
    );
    expect(JSON.stringify(said)).toContain('secret.md');
    expect(JSON.stringify(said)).toContain('give the wiggum user read access');
    // One unreadable file does not degrade the watching of the whole folder, and is not a failure of the daemon.
    expect(
      daemon.lines.filter((line) => isEvent('watcher.degraded')(line) || isEvent('task.loop-failed')(line)),
    ).toEqual([]);
    expect(daemon.child.exitCode).toBeNull();
    expect(existsSync(file)).toBe(true);
    expect(existsSync(join(vault.layout.rejected, 'secret.md'))).toBe(false);

    chmodSync(file, 0o644);
    await waitForFile(join(vault.layout.done, 'secret.md'), 60_000);
    await stopped(daemon);
    expect(readFileSync(join(vault.layout.done, 'secret.md'), 'utf8')).toContain('note: "user text ☕ stays"');
  });
});
