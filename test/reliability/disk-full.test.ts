import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { parseTask } from '../../src/task/parse.js';
import { REPO_ROOT } from '../helpers/child.js';
import { DaemonProcess } from '../helpers/daemon.js';
import type { DaemonLine } from '../helpers/daemon.js';
import { mountSmallDisk } from '../helpers/small-disk.js';
import type { SmallDisk } from '../helpers/small-disk.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import { findingsOf } from '../helpers/vault-findings.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A full disk: for real (the vault on a small tmpfs that an agent fills mid-run), and aimed at one
 * kind of write at a time (test/fixtures/crash-at.mjs fails the matching writes with ENOSPC while
 * a file exists): the checkpoint, the history append, the move and the harness log. Each time the
 * daemon keeps running and says what failed, the task file is never cut short, and once space is
 * back the task carries on to Done/, with nothing lost or counted twice.
 */

const TASK =
  '---\ntitle: Disk full\nnote: "user text ☕ stays"\n---\n# Disk full\n\n- [ ] US-001 Alpha\n- [ ] US-002 Beta\n- [ ] US-003 Gamma\n';
const CRASH_AT = join(REPO_ROOT, 'test', 'fixtures', 'crash-at.mjs');
const saysDiskFull = (line: DaemonLine): boolean => line.level >= 40 && /ENOSPC/.test(JSON.stringify(line));

let disk: SmallDisk | null = null;
afterEach(() => {
  disk?.unmount();
  disk = null;
});

/** The task file as it is now, wherever it is: it must always parse and hold the user's text. */
function expectWhole(root: string): void {
  const file = ['Approved', 'Done'].map((folder) => join(root, folder, 'full.md')).find((path) => existsSync(path));
  expect(file).toBeDefined();
  const text = readFileSync(file!, 'utf8');
  expect(parseTask(file!, text).ok).toBe(true);
  expect(text).toContain('note: "user text ☕ stays"');
}

async function endsDone(daemon: DaemonProcess, root: string): Promise<void> {
  await waitFor(() => existsSync(join(root, 'Done', 'full.md')), 'the task in Done/ once space is back', 60_000);
  daemon.kill('SIGTERM');
  expect((await daemon.exited).code).toBe(0);
  const findings = findingsOf(root, new Map([['full.md', TASK]]));
  expect({ ...findings, orphans: [] }).toEqual({
    notDone: [],
    duplicated: [],
    corrupted: [],
    tornHistory: [],
    miscounted: [],
    tempsLeft: [],
    orphans: [],
  });
  expect(readFileSync(join(root, 'Done', 'full.md'), 'utf8')).toContain('Stories: 3 of 3 passing');
}

describe('disk full', () => {
  test('for real, mid-run: the daemon lives and says so, the task file stays whole, and the task carries on once space is freed', async () => {
    disk = mountSmallDisk(4096);
    const root = join(disk.path, 'vault');
    mkdirSync(root);
    const filler = join(disk.path, 'filler');
    const vault = await makeVault({
      root,
      fake: { FAKE_STORY_PER_RUN: '1', FAKE_FILL: filler, FAKE_FILL_ON_RUN: '2' },
      // Unconfined: a confined run keeps its temp and memory copies on the vault's disk and they
      // are removed when it ends, which frees what the next writes need on this 4 MB disk.
      config: { daemon: { failed_retry: '1s' }, sandbox: { mode: 'off' } },
    });
    vault.task('full', TASK);

    const daemon = DaemonProcess.start(root);
    await daemon.waitForLog(saysDiskFull, 'the disk-full failure in the log');
    expect(daemon.child.exitCode).toBeNull();
    expectWhole(root);
    rmSync(filler);
    await endsDone(daemon, root);
  });

  test.each([
    ['a checkpoint', String.raw`^\S+ .*/Approved/`],
    ['a history append', String.raw`^\S+ .*/sessions/full/history\.jsonl$`],
    ['the move to Done/', String.raw`^link .*/Done/`],
    ['a harness log write', String.raw`^\S+ .*/logs/\d+\.log$`],
  ])(
    'during %s: the daemon lives and says so, the task file stays whole, the task carries on once space is back',
    async (_name, match) => {
      const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1' }, config: { daemon: { failed_retry: '1s' } } });
      vault.task('full', TASK);
      const full = join(tempDir('wiggum-full-'), 'disk-is-full');
      writeFileSync(full, '');
      const daemon = DaemonProcess.start(
        vault.root,
        [],
        {
          CRASH_ROOT: vault.root,
          CRASH_LOG: join(tempDir('wiggum-full-log-'), 'mutations'),
          FULL_MATCH: match,
          FULL_WHILE: full,
        },
        ['--import', CRASH_AT],
      );

      const said = await daemon.waitForLog(saysDiskFull, 'the disk-full failure in the log');
      // What failed is said, with what to do about it.
      expect(JSON.stringify(said)).toMatch(/disk is full|ENOSPC/);
      expect(daemon.child.exitCode).toBeNull();
      expectWhole(vault.root);
      rmSync(full);
      await endsDone(daemon, vault.root);
    },
  );
});
