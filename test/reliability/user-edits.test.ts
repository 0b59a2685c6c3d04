import { existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DaemonProcess } from '../helpers/daemon.js';
import { historyOf } from '../helpers/history.js';
import { isEvent } from '../helpers/log-events.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeVault } from '../helpers/vault.js';
import type { TestVault } from '../helpers/vault.js';
import { countedIterations, harnessesOf } from '../helpers/vault-findings.js';
import { waitFor, waitForFile } from '../helpers/wait.js';

/**
 * The user moving, renaming, deleting and editing a task, and touching its stop flag, at each point
 * of its life in the daemon: while it waits in the queue (the vault's STOP holds it) and while its
 * agent runs. What the user then finds is what they asked for, and nothing runs twice.
 */

const TASK =
  '---\nid: edited\ntitle: Edited\nnote: "user text ☕ stays"\n---\n# Edited\n\n- [ ] US-001 Alpha\n- [ ] US-002 Beta\n';

type Point = 'queued' | 'running';
interface Case {
  action: string;
  act: (vault: TestVault) => void;
  /** What the user does next, once the daemon has reacted (the stop flag removed once the task is stopped). */
  then?: (vault: TestVault, daemon: DaemonProcess) => Promise<void>;
  /** What the user finds once the daemon is idle again. */
  expectAfter: (vault: TestVault) => void;
}

const approvedFile = (vault: TestVault): string => join(vault.layout.approved, 'edited.md');
const mdIn = (folder: string): string[] =>
  readdirSync(folder)
    .filter((name) => name.endsWith('.md'))
    .sort();

const cases: Case[] = [
  {
    action: 'renamed within Approved/ (its id: stays)',
    act: (vault) => renameSync(approvedFile(vault), join(vault.layout.approved, 'renamed.md')),
    expectAfter: (vault) => {
      expect(mdIn(vault.layout.done)).toEqual(['renamed.md']);
      expect(mdIn(vault.layout.approved)).toEqual([]);
    },
  },
  {
    action: 'moved to Done/ by hand',
    act: (vault) => renameSync(approvedFile(vault), join(vault.layout.done, 'edited.md')),
    expectAfter: (vault) => {
      expect(mdIn(vault.layout.done)).toEqual(['edited.md']);
      expect(mdIn(vault.layout.approved)).toEqual([]);
      expect(readFileSync(join(vault.layout.done, 'edited.md'), 'utf8')).toContain('note: "user text ☕ stays"');
    },
  },
  {
    action: 'deleted',
    act: (vault) => rmSync(approvedFile(vault)),
    expectAfter: (vault) => {
      expect([...mdIn(vault.layout.approved), ...mdIn(vault.layout.done), ...mdIn(vault.layout.rejected)]).toEqual([]);
    },
  },
  {
    action: 'edited: a story added to the body',
    act: (vault) =>
      writeFileSync(
        approvedFile(vault),
        `${readFileSync(approvedFile(vault), 'utf8')}- [ ] US-003 Gamma, added by hand\n`,
      ),
    expectAfter: (vault) => {
      expect(mdIn(vault.layout.done)).toEqual(['edited.md']);
      expect(readFileSync(join(vault.layout.done, 'edited.md'), 'utf8')).toContain(
        'Stories: 3 of 3 passing (✓ US-001 Alpha; ✓ US-002 Beta; ✓ US-003 Gamma, added by hand)',
      );
    },
  },
  {
    action: 'stopped by its flag, then the flag removed',
    act: (vault) => writeFileSync(join(vault.layout.approved, 'edited.stop'), ''),
    then: async (vault, daemon) => {
      // Stopped, or already done before the flag was seen (ending a task removes its flag).
      await waitFor(
        () => daemon.lines.some(isEvent('task.stopped')) || existsSync(join(vault.layout.done, 'edited.md')),
        'the task stopped or done',
      );
      rmSync(join(vault.layout.approved, 'edited.stop'), { force: true });
    },
    expectAfter: (vault) => {
      expect(mdIn(vault.layout.done)).toEqual(['edited.md']);
      expect(existsSync(join(vault.layout.approved, 'edited.stop'))).toBe(false);
    },
  },
];

/** The daemon has nothing queued, running or stopped, and no agent runs. */
async function idle(vault: TestVault, daemon: DaemonProcess): Promise<void> {
  const statusFile = join(vault.root, '.wiggum', 'status.json');
  await waitFor(
    () => {
      if (!existsSync(statusFile) || harnessesOf(vault.root).length > 0) return false;
      const status = JSON.parse(readFileSync(statusFile, 'utf8')) as { tasks: unknown[] };
      return (
        status.tasks.length === 0 &&
        mdIn(vault.layout.approved).length === 0 &&
        !existsSync(join(vault.layout.approved, 'edited.stop'))
      );
    },
    'the daemon idle',
    30_000,
  );
  expect(daemon.child.exitCode).toBeNull();
}

describe('the user changes a task at each point of its life', () => {
  for (const point of ['queued', 'running'] as Point[]) {
    test.each(cases)(`${point}: $action`, async ({ act, then, expectAfter }) => {
      const gates = tempDir('wiggum-gates-');
      const vault = await makeVault({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_GATE_DIR: gates } });
      for (let run = 2; run <= 8; run += 1) writeFileSync(join(gates, `go-${run}`), '');
      if (point === 'queued') {
        writeFileSync(join(gates, 'go-1'), '');
        writeFileSync(join(vault.root, 'STOP'), '');
      }
      vault.task('edited', TASK);
      const daemon = DaemonProcess.start(vault.root);
      if (point === 'queued') {
        await daemon.waitForEvent('task.queued', { taskId: 'edited' });
        act(vault);
        rmSync(join(vault.root, 'STOP'));
      } else {
        await waitForFile(join(vault.marks, 'run-1'));
        act(vault);
        writeFileSync(join(gates, 'go-1'), '');
      }
      await then?.(vault, daemon);
      await idle(vault, daemon);
      expectAfter(vault);
      daemon.kill('SIGTERM');
      expect((await daemon.exited).code).toBe(0);
      // Never two runs of the same iteration counted: the history's counted iterations are 1, 2, ….
      const counted = countedIterations(historyOf(vault.layout.sessions, 'edited'));
      expect(counted).toEqual(counted.map((_, index) => index + 1));
    });
  }
});
