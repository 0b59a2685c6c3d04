import { describe, expect, test } from 'vitest';
import { isIdle, startableTasks } from '../../src/daemon/idle-check.js';
import type { Job } from '../../src/daemon/task-queue.js';
import type { TaskFileEntry, VaultSnapshot } from '../../src/vault/scan.js';

function snapshot(names: string[], stopFlags: string[] = []): VaultSnapshot {
  return {
    takenAtMs: 0,
    tasks: new Map(names.map((name) => [name, {} as TaskFileEntry])),
    linked: new Set(),
    symlinks: new Set(),
    stopFlags: new Set(stopFlags),
    globalStop: false,
  };
}

describe('--exit-when-idle decides on data', () => {
  test.each<[string, VaultSnapshot | null, string[], number]>([
    ['before the first scan something may start', null, [], 1],
    ['an empty Approved/', snapshot([]), [], 0],
    ['a task that can start', snapshot(['a.md']), [], 1],
    ['a stopped task', snapshot(['a.md'], ['a']), [], 0],
    ['a task waiting for its author', snapshot(['a.md', 'b.md'], ['b']), ['a.md'], 0],
  ])('%s', (_what, scan, waiting, startable) => {
    expect(startableTasks(scan, (name) => waiting.includes(name))).toBe(startable);
  });

  test.each([
    [0, 0, 0, true],
    [1, 0, 0, false],
    [0, 1, 0, false],
    [0, 0, 1, false],
  ])('running %i, waiting %i, startable %i: idle %s', (running, waiting, startable, idle) => {
    const queue = { running: () => new Array<Job>(running), waiting: () => new Array<Job>(waiting) };
    expect(isIdle(queue, startable)).toBe(idle);
  });
});
