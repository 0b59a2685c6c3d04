import { execFileSync } from 'node:child_process';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir.js';

/** A small file system of its own (tmpfs), to fill up: ENOSPC for real, for every writer on it. */
export interface SmallDisk {
  path: string;
  /** Writes a filler file until the disk is full. */
  fill(): void;
  /** Removes the filler. */
  free(): void;
  unmount(): void;
}

/**
 * Mounts a tmpfs of `sizeKb` on a fresh temp folder. Needs root (or CAP_SYS_ADMIN), as the test
 * machines have; without it the mount fails with its own message, never silently.
 */
export function mountSmallDisk(sizeKb: number): SmallDisk {
  const path = tempDir('wiggum-small-disk-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k,mode=0755`, 'tmpfs', path], { stdio: 'pipe' });
  } catch (error) {
    throw new Error(
      `the disk-full tests mount a small tmpfs and need root for it: ${String((error as { stderr?: Buffer }).stderr ?? error)}`,
    );
  }
  const filler = join(path, 'filler');
  return {
    path,
    fill() {
      const fd = openSync(filler, 'a');
      const chunk = Buffer.alloc(64 * 1024, 'f');
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
      // The last partial chunk: fill to the last byte.
      try {
        for (;;) writeSync(fd, chunk.subarray(0, 512));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      execFileSync('umount', ['-l', path], { stdio: 'pipe' });
    },
  };
}
