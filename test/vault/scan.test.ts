import { linkSync, lstatSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { scanApproved } from '../../src/vault/scan.js';
import { isTaskFileName } from '../../src/vault/names.js';
import type { VaultLayout } from '../../src/vault/layout.js';
import { makeVault } from '../helpers/vault.js';

const VALID = '---\ntitle: A task\n---\n# A task\nDo it.\n';
const HALF = '---\ntitle: A ta';

async function vaultWith(files: Record<string, string>): Promise<VaultLayout> {
  const { layout } = await makeVault();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(layout.approved, name), text);
  return layout;
}

describe('scanApproved', () => {
  test('sees only regular *.md files with one link; everything else in Approved/ is ignored', async () => {
    const layout = await vaultWith({
      'task.md': VALID,
      '.hidden.md': VALID,
      'task.md~': VALID,
      '.task.md.swp': VALID,
      '.task.md.swo': VALID,
      '#task.md#': VALID,
      '.#task.md': VALID,
      'task.md.tmp': VALID,
      'task.tmp.md': VALID,
      'task.md.crswap': VALID,
      '~$task.md': VALID,
      '.task.md.1234.abcd1234.tmp': VALID,
      'task.sync-conflict-20260101-101010-ABCDEFG.md': VALID,
      'notes.txt': VALID,
      README: VALID,
      'other.md': VALID,
    });
    mkdirSync(join(layout.approved, 'folder.md'));
    symlinkSync(join(layout.approved, 'task.md'), join(layout.approved, 'link.md'));
    symlinkSync(join(layout.approved, 'nowhere.md'), join(layout.approved, 'dangling.md'));
    // A hard link with another name: neither name is a task (wiggum's own move looks like this too).
    linkSync(join(layout.approved, 'other.md'), join(layout.approved, 'twin.md'));

    const snapshot = await scanApproved(layout, { parse: () => false });
    expect([...snapshot.tasks.keys()]).toEqual(['task.md']);
    expect([...snapshot.linked].sort()).toEqual(['other.md', 'twin.md']);
    expect([...snapshot.symlinks].sort()).toEqual(['dangling.md', 'link.md']);
    const stat = lstatSync(join(layout.approved, 'task.md'));
    expect(snapshot.tasks.get('task.md')).toEqual({
      name: 'task.md',
      path: join(layout.approved, 'task.md'),
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      ino: stat.ino,
      parses: null,
    });
    expect(snapshot.stopFlags.size).toBe(0);
    expect(snapshot.globalStop).toBe(false);
  });

  test('reads and parses only the files the predicate selects', async () => {
    const layout = await vaultWith({ 'good.md': VALID, 'half.md': HALF, 'empty.md': '', 'unread.md': HALF });
    const asked: string[] = [];
    const snapshot = await scanApproved(layout, {
      parse: (name) => {
        asked.push(name);
        return name !== 'unread.md';
      },
    });
    expect(asked.sort()).toEqual(['empty.md', 'good.md', 'half.md', 'unread.md']);
    expect(Object.fromEntries([...snapshot.tasks.values()].map((entry) => [entry.name, entry.parses]))).toEqual({
      'good.md': true,
      'half.md': false,
      // An empty file is the usual first step of "create, then write": not a task, never run.
      'empty.md': true,
      'unread.md': null,
    });
    expect(snapshot.tasks.get('empty.md')?.wait).toBe('empty');
    expect(snapshot.tasks.get('good.md')?.wait).toBe('no-harness'); // VALID names none, and no default is given
  });

  test('a task that names no harness waits when the config names no default, and not when it does', async () => {
    const layout = await vaultWith({
      'noh.md': '---\ntitle: noh\n---\nbody\n',
      'named.md': '---\nharness: demo\n---\nbody\n',
      'blank.md': ' \n\t\n',
    });
    const without = await scanApproved(layout, { parse: () => true, defaultHarness: null });
    expect(Object.fromEntries([...without.tasks.values()].map((entry) => [entry.name, entry.wait]))).toEqual({
      'noh.md': 'no-harness',
      'named.md': null,
      'blank.md': 'empty',
    });
    const withDefault = await scanApproved(layout, { parse: () => true, defaultHarness: 'demo' });
    expect(withDefault.tasks.get('noh.md')?.wait).toBe(null);
    expect(withDefault.tasks.get('blank.md')?.wait).toBe('empty');
  });

  test('stop flags by stem, and the vault STOP file', async () => {
    const layout = await vaultWith({
      'a.md': VALID,
      'a.stop': '',
      'b.stop': 'any content',
      '.c.stop': '',
      'a.md.stop': '',
    });
    mkdirSync(join(layout.approved, 'dir.stop'));
    let snapshot = await scanApproved(layout, { parse: () => false });
    expect([...snapshot.stopFlags].sort()).toEqual(['a', 'a.md', 'b']);
    expect(snapshot.globalStop).toBe(false);

    writeFileSync(layout.stopFile, '');
    snapshot = await scanApproved(layout, { parse: () => false });
    expect(snapshot.globalStop).toBe(true);
  });

  test('a file already handed over is only checked for presence, never lstat-ed again; a symlink still is not a task', async () => {
    const layout = await vaultWith({ 'running.md': VALID, 'new.md': VALID });
    symlinkSync(join(layout.approved, 'new.md'), join(layout.approved, 'swapped.md'));
    const remembered = { size: 1, mtimeMs: 2, ino: 3 };
    const snapshot = await scanApproved(layout, {
      parse: () => false,
      known: (name) => (name === 'running.md' || name === 'swapped.md' ? remembered : null),
    });
    // What the watcher remembers comes back for the running task: no lstat was made for it.
    expect(snapshot.tasks.get('running.md')).toMatchObject({ ...remembered, parses: null });
    expect(snapshot.tasks.get('new.md')?.ino).toBe(lstatSync(join(layout.approved, 'new.md')).ino);
    expect(snapshot.tasks.has('swapped.md')).toBe(false);
  });

  test('a missing Approved/ folder is an empty one', async () => {
    const layout = await vaultWith({});
    rmSync(layout.approved, { recursive: true });
    const snapshot = await scanApproved(layout, { parse: () => true });
    expect(snapshot.tasks.size).toBe(0);
    expect(snapshot.stopFlags.size).toBe(0);
  });

  test('1,000 tasks: every one listed, none read unless asked', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1000; i += 1) files[`task-${i}.md`] = VALID;
    const layout = await vaultWith(files);
    const snapshot = await scanApproved(layout, { parse: (name) => name === 'task-7.md' });
    expect(snapshot.tasks.size).toBe(1000);
    const read = [...snapshot.tasks.values()].filter((entry) => entry.parses !== null).map((entry) => entry.name);
    expect(read).toEqual(['task-7.md']);
  });
});

describe('isTaskFileName', () => {
  test.each([
    ['task.md', true],
    ['Add dark mode.md', true],
    ['x.md', true],
    ['.md', false],
    ['task.MD', false],
    ['task.markdown', false],
    ['.task.md', false],
    ['.#task.md', false],
    ['~$task.md', false],
    ['~task.md', false],
    ['#task.md', false],
    ['task.md~', false],
    ['task.md.swp', false],
    ['.task.md.swx', false],
    ['task.md.tmp', false],
    ['task.tmp.md', false],
    ['task.md.crswap', false],
    ['task.sync-conflict-20260101-101010-ABCDEFG.md', false],
    ['task (conflicted copy 2026-01-01).md', false],
    ['task.stop', false],
  ])('%s → %s', (name, expected) => {
    expect(isTaskFileName(name)).toBe(expected);
  });
});
