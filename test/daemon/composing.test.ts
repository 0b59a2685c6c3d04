import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../helpers/child.js';
import { DaemonProcess, drainedAfterEach } from '../helpers/daemon.js';
import { tempDir } from '../helpers/temp-dir.js';
import { isEvent } from '../helpers/log-events.js';
import { makeVault } from '../helpers/vault.js';
import type { TestVault, TestVaultOptions } from '../helpers/vault.js';
import { waitFor } from '../helpers/wait.js';

/**
 * What the daemon does with files that are not (yet) tasks to run: notes being written in place in
 * Approved/, empty files, tasks that name no harness. The real daemon, real files, real chokidar;
 * the fake agent leaves a `run-N` mark holding the prompt it was given.
 */

const daemons = drainedAfterEach();

async function vaultAndDaemon(options: TestVaultOptions): Promise<{ vault: TestVault; daemon: DaemonProcess }> {
  const vault = await makeVault(options);
  const daemon = DaemonProcess.start(vault.root);
  daemons.push(daemon);
  await daemon.ready();
  return { vault, daemon };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const mdIn = (folder: string): string[] =>
  readdirSync(folder)
    .filter((name) => name.endsWith('.md'))
    .sort();
const isDone = (id: string) => isEvent('task.done', { taskId: id });
const PROBE = '---\ntitle: probe\n---\n- [ ] S-1 one\n';

/** The saves of a note typed in an editor: a growing frontmatter and body. The last one is complete. */
const SAVES = [
  '---\ntitle: Fix lo',
  '---\ntitle: Fix login bug\n---\n',
  '---\ntitle: Fix login bug\n---\n# Fix login bug\n\n- [ ] S-1 reproduce it\n',
  '---\ntitle: Fix login bug\n---\n# Fix login bug\n\n- [ ] S-1 reproduce it\n- [ ] S-2 fix it\n',
  '---\ntitle: Fix login bug\n---\n# Fix login bug\n\n- [ ] S-1 reproduce it\n- [ ] S-2 fix it\n\nFINAL CONTENT\n',
];
/** Pauses between saves (ms): all shorter than the quiet period, one far longer than the settle time. */
const GAPS = [400, 300, 1500, 500];

describe('notes written in place in Approved/', () => {
  const composing: TestVaultOptions = {
    fake: { FAKE_COMPLETE_AFTER: '1' },
    config: { daemon: { compose_quiet: '4s' } },
  };

  /** Asserts the note ran exactly once, with its final content, under `name`, and left no other session. */
  async function ranOnceWithFinalContent(
    vault: TestVault,
    daemon: DaemonProcess,
    id: string,
    name = `${id}.md`,
  ): Promise<void> {
    await daemon.waitForLog(isDone(id), `${id} to be done`);
    expect(mdIn(vault.layout.done)).toEqual([name]);
    expect(mdIn(vault.layout.approved)).toEqual([]);
    expect(mdIn(vault.layout.rejected)).toEqual([]);
    expect(readdirSync(vault.marks)).toEqual(['run-1']);
    expect(readFileSync(join(vault.marks, 'run-1'), 'utf8')).toContain('FINAL CONTENT');
    expect(readdirSync(vault.layout.sessions)).toEqual([id]);
    expect(daemon.lines.filter(isEvent('task.queued'))).toHaveLength(1);
  }

  test('Obsidian: Untitled.md created empty, saved as typed, then renamed: runs once, with its final content, under its final name', async () => {
    const { vault, daemon } = await vaultAndDaemon(composing);
    const untitled = join(vault.layout.approved, 'Untitled.md');
    writeFileSync(untitled, '');
    for (const [i, text] of SAVES.entries()) {
      await sleep(GAPS[i - 1] ?? 500);
      writeFileSync(untitled, text);
    }
    await sleep(300);
    renameSync(untitled, join(vault.layout.approved, 'Fix login bug.md'));
    // The id is the file name made safe; the file keeps its name.
    await ranOnceWithFinalContent(vault, daemon, 'Fix-login-bug', 'Fix login bug.md');
  });

  test('vim: the first save writes the file, every later one renames a swap file over it: runs once, after the quiet period', async () => {
    const { vault, daemon } = await vaultAndDaemon(composing);
    const file = join(vault.layout.approved, 'vim-task.md');
    const swap = join(vault.layout.approved, '.vim-task.md.swp');
    writeFileSync(file, SAVES[0] ?? '');
    for (const [i, text] of SAVES.slice(1).entries()) {
      await sleep(GAPS[i] ?? 500);
      writeFileSync(swap, text);
      renameSync(swap, file);
    }
    await ranOnceWithFinalContent(vault, daemon, 'vim-task');
  });

  test('VS Code: created by the first save, then saved in place: runs once, after the quiet period', async () => {
    const { vault, daemon } = await vaultAndDaemon(composing);
    const file = join(vault.layout.approved, 'vscode-task.md');
    writeFileSync(file, SAVES[0] ?? '');
    for (const [i, text] of SAVES.slice(1).entries()) {
      await sleep(GAPS[i] ?? 500);
      writeFileSync(file, text);
    }
    await ranOnceWithFinalContent(vault, daemon, 'vscode-task');
  });

  test('a complete task moved in from Drafts/ or written atomically starts without waiting for the quiet period', async () => {
    // A quiet period of an hour: were it applied, these would never start within the test.
    const { vault, daemon } = await vaultAndDaemon({
      fake: { FAKE_COMPLETE_AFTER: '1' },
      config: { daemon: { compose_quiet: '1h' } },
    });
    const drafts = join(vault.root, 'Drafts');
    mkdirSync(drafts);
    writeFileSync(join(drafts, 'drafted.md'), PROBE);
    renameSync(join(drafts, 'drafted.md'), join(vault.layout.approved, 'drafted.md'));
    const temp = join(vault.layout.approved, '.atomic.md.tmp');
    writeFileSync(temp, PROBE);
    renameSync(temp, join(vault.layout.approved, 'atomic.md'));
    await daemon.waitForLog(isDone('drafted'), 'the moved-in task');
    await daemon.waitForLog(isDone('atomic'), 'the atomically written task');
    expect(mdIn(vault.layout.done)).toEqual(['atomic.md', 'drafted.md']);
  });

  test('empty and whitespace-only files are never run and never moved, and stay as they are', async () => {
    const { vault, daemon } = await vaultAndDaemon({ fake: { FAKE_COMPLETE_AFTER: '1' } });
    writeFileSync(join(vault.layout.approved, 'empty.md'), '');
    writeFileSync(join(vault.layout.approved, 'blank.md'), '  \n\n\t\n');
    // A task dropped after them runs and ends: the daemon has looked at both files meanwhile.
    vault.task('probe', PROBE);
    await daemon.waitForLog(isDone('probe'), 'the probe');
    await runCli(['status', '--vault', vault.root]); // one more look, through the CLI
    expect(mdIn(vault.layout.approved)).toEqual(['blank.md', 'empty.md']);
    expect(readFileSync(join(vault.layout.approved, 'empty.md'), 'utf8')).toBe('');
    expect(readFileSync(join(vault.layout.approved, 'blank.md'), 'utf8')).toBe('  \n\n\t\n');
    expect(readdirSync(vault.marks)).toEqual(['run-1']);
    expect(readdirSync(vault.layout.sessions)).toEqual(['probe']);
  });
});

describe('a task that names no harness, in a vault with no harness.default', () => {
  test('waits in Approved/, said once in the log, in status, on the Dashboard and by validate; runs once it names one', async () => {
    const { vault, daemon } = await vaultAndDaemon({
      fake: { FAKE_COMPLETE_AFTER: '1' },
      config: { harness: { default: '' } },
    });
    const noh = join(vault.layout.approved, 'noh.md');
    writeFileSync(noh, '---\ntitle: noh\n---\n# noh\n\n- [ ] S-1 do it\n');
    const said = await daemon.waitForEvent('task.no-harness', { file: noh });
    expect(said.msg).toMatch(/^noh\.md names no harness .*`harness: NAME`.*harness\.default in \.wiggum\/config\.yaml/);
    // A task that names its harness runs meanwhile, and its file events make the daemon look again.
    vault.task('probe', '---\ntitle: probe\nharness: fake\n---\n- [ ] S-1 one\n');
    await daemon.waitForLog(isDone('probe'), 'the probe');
    expect(daemon.lines.filter((line) => line.file === noh)).toHaveLength(1);
    expect(existsSync(noh)).toBe(true);
    expect(readdirSync(vault.layout.sessions)).toEqual(['probe']);

    const status = await runCli(['status', '--vault', vault.root]);
    expect(status.stdout).toMatch(/^  noh: names no harness .*harness\.default/m);
    const json = JSON.parse((await runCli(['status', '--json', '--vault', vault.root])).stdout) as {
      tasks: { name: string; state: string }[];
    };
    expect(json.tasks.filter((task) => task.state === 'needs-harness')).toEqual([
      expect.objectContaining({ name: 'noh.md', why: expect.stringMatching(/^names no harness/) as unknown }),
    ]);
    const dashboard = join(vault.root, 'Dashboard.md');
    await waitFor(
      () => existsSync(dashboard) && readFileSync(dashboard, 'utf8').includes('[[Approved/noh]]: names no harness'),
      'the Dashboard to list noh',
    );
    const validate = await runCli(['validate', '--vault', vault.root]);
    expect(validate.code).toBe(2);
    expect(validate.stdout).toContain(`${noh}:1:1: names no harness`);

    writeFileSync(noh, '---\ntitle: noh\nharness: fake\n---\n# noh\n\n- [ ] S-1 do it\n');
    await daemon.waitForLog(isDone('noh'), 'noh to run once it names its harness');
    await waitFor(
      () => !readFileSync(dashboard, 'utf8').includes('names no harness'),
      'the Dashboard to drop noh from the waiting list',
    );
  });

  test('wiggum run refuses it with exit 2 and says how to fix it; --harness runs it', async () => {
    const vault = await makeVault({ fake: { FAKE_COMPLETE_AFTER: '1' }, config: { harness: { default: '' } } });
    const file = vault.task('noh', '---\ntitle: noh\n---\n- [ ] S-1 do it\n');
    const refused = await runCli(['run', file, '--no-stream']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/noh\.md names no harness .*--harness NAME/);
    expect(mdIn(vault.layout.approved)).toEqual(['noh.md']);
    expect(existsSync(join(vault.layout.sessions, 'noh'))).toBe(false);
    const ran = await runCli(['run', file, '--harness', 'fake', '--no-stream']);
    expect(ran.code).toBe(0);
    expect(mdIn(vault.layout.done)).toEqual(['noh.md']);
  });
});

describe('a running task renamed by its author', () => {
  test('goes on under its new name: one session, no restart, Done/ under the new name', async () => {
    // The agent's second run waits at a gate that opens only once the file has been renamed.
    const gates = tempDir('wiggum-gates-');
    for (const run of [1, 3]) writeFileSync(join(gates, `go-${run}`), '');
    const { vault, daemon } = await vaultAndDaemon({ fake: { FAKE_STORY_PER_RUN: '1', FAKE_GATE_DIR: gates } });
    const file = vault.task('ren-a', '---\ntitle: ren\n---\n- [ ] S-1 one\n- [ ] S-2 two\n- [ ] S-3 three\n');
    await waitFor(() => existsSync(join(vault.marks, 'run-2')), 'the second iteration to start');
    renameSync(file, join(vault.layout.approved, 'ren-b.md'));
    await daemon.waitForEvent('task.renamed', { taskId: 'ren-a', from: 'ren-a.md', to: 'ren-b.md' });
    writeFileSync(join(gates, 'go-2'), '');
    await daemon.waitForEvent('task.done', { taskId: 'ren-a' });
    expect(mdIn(vault.layout.done)).toEqual(['ren-b.md']);
    expect(readdirSync(vault.layout.sessions)).toEqual(['ren-a']);
    expect(readdirSync(vault.marks).sort()).toEqual(['run-1', 'run-2', 'run-3']);
    expect(daemon.lines.filter(isEvent('task.queued'))).toHaveLength(1);
    expect(readFileSync(join(vault.layout.done, 'ren-b.md'), 'utf8')).toMatch(/^ {2}iteration: 3$/m);
  });
});
