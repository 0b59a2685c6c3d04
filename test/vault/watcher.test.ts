import { appendFileSync, copyFileSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { moveWithoutClobber } from '../../src/vault/move.js';
import type { FileEventSourceFactory } from '../../src/vault/file-events.js';
import type { Reconciled } from '../../src/vault/watcher.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { makeVault } from '../helpers/vault.js';
import { startWatching } from './watch-harness.js';

const text = (title: string): string => `---\ntitle: ${title}\n---\n# ${title}\nDo it.\n`;

function lastReconciled(items: readonly Reconciled[]): Reconciled {
  const last = items.at(-1);
  if (last === undefined) throw new Error('no reconciliation yet');
  return last;
}

describe('watchVault with real chokidar on a temp vault', () => {
  test('a task dropped into Approved/ is started, once', async () => {
    const { layout } = await makeVault();
    const vault = await startWatching(layout);
    const path = join(layout.approved, 'a.md');
    writeFileSync(path, text('A'));
    await vault.action({ kind: 'start', name: 'a.md', path });
    await vault.watcher.rescan();
    expect(vault.actions.items).toEqual([{ kind: 'start', name: 'a.md', path }]);
  });

  test('a task present before the watcher starts is picked up by the initial reconciliation', async () => {
    const { layout } = await makeVault();
    writeFileSync(join(layout.approved, 'early.md'), text('Early'));
    writeFileSync(layout.stopFile, '');
    // No initial events (ignoreInitial) and no periodic rescan: only the first reconciliation sees it.
    const vault = await startWatching(layout);
    expect(vault.watcher.snapshot()?.tasks.has('early.md')).toBe(true);
    await vault.action({ kind: 'start', name: 'early.md' });
    expect(vault.actions.items[0]).toEqual({ kind: 'hold', on: true });
  });

  test('200 tasks dropped at once are started, each once', async () => {
    const { layout } = await makeVault();
    const vault = await startWatching(layout);
    const names = Array.from({ length: 200 }, (_, i) => `task-${String(i).padStart(3, '0')}.md`);
    for (const name of names) writeFileSync(join(layout.approved, name), text(name));
    const started = (): Set<string> =>
      new Set(vault.actions.items.flatMap((action) => (action.kind === 'start' ? [action.name] : [])));
    await vault.actions.until(() => started().size === 200, '200 starts');
    await vault.watcher.rescan();
    expect(vault.count({ kind: 'start' })).toBe(200);
    expect([...started()].sort()).toEqual(names);
  });

  test('a half-written file is started once, and only when complete', async () => {
    const { layout } = await makeVault();
    const path = join(layout.approved, 'half.md');
    const seenAtStart: string[] = [];
    // The malformed grace (1 h) is out of reach: only a complete, parsing file can start.
    const vault = await startWatching(layout, {}, (actions) => {
      for (const action of actions) if (action.kind === 'start') seenAtStart.push(readFileSync(action.path, 'utf8'));
    });
    const full = text('Half then whole');
    writeFileSync(path, full.slice(0, 12));
    // Wait for the scan after the settle window: it read the file and found it incomplete.
    await vault.reconciles.until(
      (items) => items.some((item) => item.snapshot.tasks.get('half.md')?.parses === false),
      'the half file read after settling',
    );
    expect(vault.count({ kind: 'start' })).toBe(0);
    appendFileSync(path, full.slice(12));
    await vault.action({ kind: 'start', name: 'half.md' });
    await vault.watcher.rescan();
    expect(seenAtStart).toEqual([full]);
    expect(vault.count({ kind: 'start' })).toBe(1);
  });

  test("an editor's atomic save of an active task starts nothing and is not gone", async () => {
    const { layout } = await makeVault();
    const vault = await startWatching(layout, { goneGraceMs: 1_000 });
    const path = join(layout.approved, 'a.md');
    writeFileSync(path, text('A'));
    await vault.action({ kind: 'start', name: 'a.md' });

    // vim-like: swap file, backup copy, then a temp file renamed over the task.
    writeFileSync(join(layout.approved, '.a.md.swp'), 'swap');
    copyFileSync(path, join(layout.approved, 'a.md~'));
    writeFileSync(join(layout.approved, 'a.md.tmp'), text('A, edited'));
    renameSync(join(layout.approved, 'a.md.tmp'), path);
    rmSync(join(layout.approved, '.a.md.swp'));

    // An active task is only checked for presence (its identity is not lstat'ed again).
    await vault.watcher.rescan();
    await vault.watcher.rescan();
    const last = lastReconciled(vault.reconciles.items);
    expect([...last.known.keys()]).toEqual(['a.md']);
    expect(last.known.get('a.md')).toMatchObject({ phase: 'active', missingSinceMs: null });
    expect(last.nextCheckAtMs).toBeNull();
    expect(vault.actions.items).toEqual([{ kind: 'start', name: 'a.md', path }]);
  });

  test('unlink and re-add within the grace: the task is not gone', async () => {
    const { layout } = await makeVault();
    const vault = await startWatching(layout); // gone grace: 60 s
    const path = join(layout.approved, 'a.md');
    writeFileSync(path, text('A'));
    await vault.action({ kind: 'start', name: 'a.md' });

    renameSync(path, `${path}~`); // an editor's backup by rename: the name is missing for a while
    await vault.watcher.rescan();
    let last = lastReconciled(vault.reconciles.items);
    expect(last.snapshot.tasks.has('a.md')).toBe(false);
    expect(last.known.get('a.md')?.missingSinceMs).not.toBeNull();

    writeFileSync(path, text('A, edited'));
    await vault.watcher.rescan();
    last = lastReconciled(vault.reconciles.items);
    expect(last.known.get('a.md')).toMatchObject({ phase: 'active', missingSinceMs: null });
    expect(last.nextCheckAtMs).toBeNull();
    expect(vault.actions.items.map((action) => action.kind)).toEqual(['start']);
  });

  test('a task deleted for good is gone', async () => {
    const { layout } = await makeVault();
    const vault = await startWatching(layout, { goneGraceMs: 100 });
    const path = join(layout.approved, 'a.md');
    writeFileSync(path, text('A'));
    await vault.action({ kind: 'start', name: 'a.md' });
    rmSync(path);
    await vault.action({ kind: 'gone', name: 'a.md' });
    expect(vault.actions.items.map((action) => action.kind)).toEqual(['start', 'gone']);
  });

  test('a stop flag stops the task; removing it resumes', async () => {
    const { layout } = await makeVault();
    const vault = await startWatching(layout);
    const path = join(layout.approved, 'a.md');
    writeFileSync(path, text('A'));
    await vault.action({ kind: 'start', name: 'a.md' });
    writeFileSync(join(layout.approved, 'a.stop'), '');
    await vault.action({ kind: 'stop', name: 'a.md' });
    rmSync(join(layout.approved, 'a.stop'));
    await vault.action({ kind: 'resume', name: 'a.md', path });
    expect(vault.actions.items.map((action) => action.kind)).toEqual(['start', 'stop', 'resume']);
  });

  test('the vault STOP file holds and releases, and is seen again after it was removed', async () => {
    const { layout } = await makeVault();
    const vault = await startWatching(layout);
    writeFileSync(layout.stopFile, '');
    await vault.action({ kind: 'hold', on: true });
    rmSync(layout.stopFile);
    await vault.action({ kind: 'hold', on: false });
    writeFileSync(layout.stopFile, 'again');
    await vault.actions.until((items) => items.length === 3, 'the second hold');
    expect(vault.actions.items).toEqual([
      { kind: 'hold', on: true },
      { kind: 'hold', on: false },
      { kind: 'hold', on: true },
    ]);
  });

  test('markFinished forgets a moved task; put back into Approved/, it starts again', async () => {
    const { layout } = await makeVault();
    const vault = await startWatching(layout);
    const path = join(layout.approved, 'a.md');
    writeFileSync(path, text('A'));
    await vault.action({ kind: 'start', name: 'a.md' });
    const moved = await moveWithoutClobber(path, layout.done);
    vault.watcher.markFinished('a.md');
    renameSync(moved, path);
    await vault.actions.until(() => vault.count({ kind: 'start', name: 'a.md' }) === 2, 'the second start');
    expect(vault.count({ kind: 'gone' })).toBe(0);
  });

  test('markStopped: with no stop flag left, the task is resumed', async () => {
    const { layout } = await makeVault();
    const vault = await startWatching(layout);
    writeFileSync(join(layout.approved, 'a.md'), text('A'));
    await vault.action({ kind: 'start', name: 'a.md' });
    vault.watcher.markStopped('a.md');
    await vault.watcher.rescan();
    await vault.action({ kind: 'resume', name: 'a.md' });
  });

  test('an onActions callback that throws is logged, and the watcher goes on', async () => {
    const { layout } = await makeVault();
    const { logger, lines } = captureLogger();
    let calls = 0;
    const vault = await startWatching(layout, { logger }, () => {
      calls += 1;
      if (calls === 1) throw new Error('daemon bug');
    });
    writeFileSync(join(layout.approved, 'a.md'), text('A'));
    await vault.action({ kind: 'start', name: 'a.md' });
    writeFileSync(join(layout.approved, 'b.md'), text('B'));
    await vault.action({ kind: 'start', name: 'b.md' });
    expect(lines).toContainEqual(expect.objectContaining({ level: 50, event: 'watcher.listener-failed' }));
  });

  test('after close, nothing more is delivered', async () => {
    const { layout } = await makeVault();
    const vault = await startWatching(layout);
    await vault.watcher.close();
    writeFileSync(join(layout.approved, 'a.md'), text('A'));
    await vault.watcher.rescan();
    expect(vault.actions.items).toEqual([]);
  });
});

describe('watchVault when file events fail', () => {
  test('a watcher error (ENOSPC) is logged and rescans every degraded interval keep tasks coming', async () => {
    const { layout } = await makeVault();
    const { logger, lines } = captureLogger();
    // A file-event source that becomes ready, then fails like chokidar at the inotify watch limit.
    const failing: FileEventSourceFactory = () => {
      const errorListeners: ((error: Error) => void)[] = [];
      return {
        onChange: () => undefined,
        onReady: (listener) => {
          setImmediate(() => {
            listener();
            const error = Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), {
              code: 'ENOSPC',
            });
            errorListeners.forEach((onError) => onError(error));
          });
        },
        onError: (listener) => void errorListeners.push(listener),
        close: () => Promise.resolve(),
      };
    };
    const vault = await startWatching(layout, { logger, fileEvents: failing, degradedRescanIntervalMs: 50 });
    writeFileSync(join(layout.approved, 'a.md'), text('A'));
    await vault.action({ kind: 'start', name: 'a.md' });
    const warning = lines.find((line) => line.event === 'watcher.degraded');
    expect(warning).toMatchObject({ level: 40, code: 'ENOSPC', rescanIntervalMs: 50 });
    // The limit is the user's to raise: the line names the setting.
    expect(warning?.msg).toContain('max_user_watches');
  });
});
