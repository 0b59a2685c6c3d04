import { lstat, mkdir, rename, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { WiggumError, systemErrorCode } from '../errors.js';
import { syncDirectory } from '../store/atomic-write.js';
import type { Clock } from '../time/clock.js';
import { sessionPaths } from './paths.js';

export interface ArchiveSessionOptions {
  sessionsRoot: string;
  archiveRoot: string;
  taskId: string;
  clock: Clock;
}

const MAX_CLASHES = 10_000;

/**
 * Moves a task's whole session folder to `<archive>/<YYYY-MM-DD>-<task id>/` (then `-2`, `-3`, … on
 * a clash), as Ralph archives the old state when a new run starts (seed 003). An archive is never
 * overwritten: the name is claimed with an exclusive mkdir before the folder is renamed onto it.
 * Returns the archive folder, or null when the task has no session folder.
 */
export async function archiveSession(options: ArchiveSessionOptions): Promise<string | null> {
  const { dir } = sessionPaths(options.sessionsRoot, options.taskId);
  try {
    await lstat(dir);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return null;
    throw error;
  }
  await mkdir(options.archiveRoot, { recursive: true });
  const base = `${utcDate(options.clock.now())}-${options.taskId}`;
  for (let n = 1; n <= MAX_CLASHES; n += 1) {
    const target = join(options.archiveRoot, n === 1 ? base : `${base}-${n}`);
    try {
      await mkdir(target);
    } catch (error) {
      if (systemErrorCode(error) === 'EEXIST') continue;
      throw error;
    }
    try {
      // Replaces the empty folder just claimed; a non-empty one would make rename fail, never overwrite.
      await rename(dir, target);
    } catch (error) {
      await rmdir(target).catch(() => undefined);
      throw error;
    }
    await syncDirectory(options.sessionsRoot);
    await syncDirectory(options.archiveRoot);
    return target;
  }
  throw new WiggumError('E_WRITE', `${options.archiveRoot} already holds ${MAX_CLASHES} archives named ${base}: clean up old archives`, {
    details: { archiveRoot: options.archiveRoot, base },
  });
}

/** `2026-01-27`, in UTC so that the name does not depend on the machine's zone. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
