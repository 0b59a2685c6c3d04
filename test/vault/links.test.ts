import { describe, expect, test } from 'vitest';
import { linkRefusalOf } from '../../src/vault/links.js';
import type { KnownTask } from '../../src/vault/reconcile.js';
import type { VaultSnapshot } from '../../src/vault/scan.js';
import { refusedLinks } from '../../src/vault/watcher.js';

const stats = (kind: 'file' | 'symlink' | 'dir', nlink: number) => ({
  isSymbolicLink: () => kind === 'symlink',
  isFile: () => kind === 'file',
  nlink,
});

describe('which files in Approved/ are refused for being links', () => {
  test.each([
    ['a plain file with one name', stats('file', 1), null],
    ['a file with another hard link', stats('file', 2), 'hard-link'],
    ['a symbolic link', stats('symlink', 1), 'symlink'],
    ['a folder (its links are its entries, not names of a task)', stats('dir', 3), null],
  ] as const)('%s', (_name, given, expected) => {
    expect(linkRefusalOf(given)).toBe(expected);
  });

  test('a linked file that is a task already handed over (a move under way, a backup tool) is not refused', () => {
    const snapshot: VaultSnapshot = {
      takenAtMs: 0,
      tasks: new Map(),
      linked: new Set(['running.md', 'new.md']),
      symlinks: new Set(['s.md']),
      stopFlags: new Set(),
      globalStop: false,
    };
    const known = new Map<string, KnownTask>([
      [
        'running.md',
        {
          name: 'running.md',
          phase: 'active',
          size: 1,
          mtimeMs: 0,
          ino: 1,
          changedAtMs: 0,
          missingSinceMs: null,
          firstSeenAtMs: 0,
          composing: false,
          waiting: null,
        },
      ],
    ]);
    expect([...refusedLinks(snapshot, known)]).toEqual([
      ['s.md', 'symlink'],
      ['new.md', 'hard-link'],
    ]);
  });
});
