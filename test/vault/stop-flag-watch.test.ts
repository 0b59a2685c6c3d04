import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { stopFlagIsSet, stopReasonSeen, watchStopFlag } from '../../src/vault/stop-flag-watch.js';
import type { SeenStopReason, TaskFileLook } from '../../src/vault/stop-flag-watch.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { tempDir } from '../helpers/temp-dir.js';

const INTERVAL_MS = 500;

describe('stopReasonSeen: whether a running task must stop, and why', () => {
  test.each<[string, TaskFileLook, SeenStopReason | null]>([
    ['the file is there, no flag: it runs on', { flagExists: false, fileExists: true }, null],
    ['its flag is set: stop-flag', { flagExists: true, fileExists: true }, 'stop-flag'],
    ['its file was moved or deleted: task-gone', { flagExists: false, fileExists: false }, 'task-gone'],
    [
      'flag set and file gone: the flag wins, the user asked to stop',
      { flagExists: true, fileExists: false },
      'stop-flag',
    ],
  ])('%s', (_, look, reason) => {
    expect(stopReasonSeen(look)).toBe(reason);
  });
});

/** A task file in a temp folder, and a watch on it whose stops are collected. */
function watched(): { file: string; clock: ManualClock; stops: SeenStopReason[]; release: () => void } {
  const file = join(tempDir(), 'task.md');
  writeFileSync(file, '- [ ] US-001 One\n');
  const clock = new ManualClock();
  const stops: SeenStopReason[] = [];
  let current = file;
  const release = watchStopFlag({
    file: () => current,
    intervalMs: INTERVAL_MS,
    clock,
    onStop: (reason) => stops.push(reason),
  });
  return {
    get file() {
      return current;
    },
    set file(next: string) {
      current = next;
    },
    clock,
    stops,
    release: () => void release(),
  };
}

describe('watchStopFlag: one running task watched on the clock until released', () => {
  test('a flag set while it runs is seen at the next look, on the clock, and reported once', async () => {
    const watch = watched();
    await watch.clock.advance(INTERVAL_MS * 3);
    expect(watch.stops).toEqual([]);
    writeFileSync(watch.file.replace(/\.md$/, '.stop'), '');
    expect(stopFlagIsSet(watch.file)).toBe(true);
    await watch.clock.advance(INTERVAL_MS - 1);
    expect(watch.stops).toEqual([]); // not looked again yet: the look follows the clock
    await watch.clock.advance(1);
    expect(watch.stops).toEqual(['stop-flag']);
    // The watch ended with its first reason: nothing more sleeps, nothing more is said.
    expect(watch.clock.pending).toBe(0);
    await watch.clock.advance(INTERVAL_MS * 3);
    expect(watch.stops).toEqual(['stop-flag']);
  });

  test('a file moved away is task-gone; a file the run renamed itself is followed', async () => {
    const watch = watched();
    const renamed = join(watch.file, '..', 'renamed.md');
    renameSync(watch.file, renamed);
    watch.file = renamed; // as the loop's 'started' event tells the foreground run
    await watch.clock.advance(INTERVAL_MS);
    expect(watch.stops).toEqual([]);
    renameSync(renamed, join(renamed, '..', 'elsewhere.txt'));
    await watch.clock.advance(INTERVAL_MS);
    expect(watch.stops).toEqual(['task-gone']);
  });

  test('a release cancels the pending look: no timer is left on the clock, and a later flag goes unseen', async () => {
    const watch = watched();
    expect(watch.clock.pending).toBe(1);
    watch.release();
    await watch.clock.advance(0);
    expect(watch.clock.pending).toBe(0);
    writeFileSync(watch.file.replace(/\.md$/, '.stop'), '');
    await watch.clock.advance(INTERVAL_MS * 3);
    expect(watch.stops).toEqual([]);
  });
});
