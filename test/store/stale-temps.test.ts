import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { tempPathFor } from '../../src/store/atomic-write.js';
import { sweepStaleTemps } from '../../src/store/stale-temps.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A pid that is certainly not running: a child that has exited and been reaped. */
function deadPid(): number {
  const child = spawnSync('/bin/true');
  return child.pid;
}

describe('sweepStaleTemps', () => {
  test('removes the temp files of writers that no longer run, and nothing else', () => {
    const dir = tempDir('wiggum-sweep-');
    const dead = `.task.md.${deadPid()}.0a1b2c3d.tmp`;
    const ours = tempPathFor(join(dir, 'task.md'));
    const mine = ours.slice(dir.length + 1);
    for (const name of [dead, mine, 'task.md', '.task.md.tmp', 'notes.12.0a1b2c3d.tmp', '.other.md.1.zzzzzzzz.tmp'])
      writeFileSync(join(dir, name), 'x');
    expect(sweepStaleTemps(dir)).toEqual([dead]);
    expect(existsSync(join(dir, dead))).toBe(false);
    // A live writer's temp file (this process), the task itself and names of another shape stay.
    for (const name of [mine, 'task.md', '.task.md.tmp', 'notes.12.0a1b2c3d.tmp', '.other.md.1.zzzzzzzz.tmp'])
      expect(existsSync(join(dir, name))).toBe(true);
  });

  test('a folder that cannot be read is no error', () => {
    expect(sweepStaleTemps(join(tempDir('wiggum-sweep-'), 'missing'))).toEqual([]);
  });
});
