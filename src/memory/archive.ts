import { lstat, mkdir, readdir, rename, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { WiggumError, isWiggumError, systemErrorCode } from '../errors.js';
import { syncDirectory } from '../store/atomic-write.js';
import type { Clock } from '../time/clock.js';
import { sessionPaths } from './paths.js';
import { pointRunLink, runName } from './run-link.js';
import type { SessionMeta } from './session-meta.js';
import { parseSessionMeta, readMemoryText } from './session-meta.js';

export interface ArchiveSessionOptions {
  sessionsRoot: string;
  archiveRoot: string;
  taskId: string;
  clock: Clock;
}

const MAX_CLASHES = 10_000;

/**
 * Moves a task's whole session folder into the archive, as Ralph archives the old state when a new
 * run starts: to `<archive>/<date>-<id>-<run>/`, the name of the run's link in
 * `.wiggum/runs/` (run-link.ts), which is pointed at it first, so the reports that name the link
 * lead to the archived memory. A folder whose session.json cannot be read goes to
 * `<archive>/<YYYY-MM-DD>-<task id>/` (then `-2`, `-3`, … on a clash). An archive is never
 * overwritten: the name is claimed with an exclusive mkdir before the folder is renamed onto it.
 * Returns the archive folder, or null when the task has no session folder.
 */
export async function archiveSession(options: ArchiveSessionOptions): Promise<string | null> {
  const { dir, sessionFile } = sessionPaths(options.sessionsRoot, options.taskId);
  try {
    await lstat(dir);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return null;
    throw error;
  }
  await mkdir(options.archiveRoot, { recursive: true });
  const meta = metaOrNull(sessionFile);
  const target =
    (meta === null ? null : await claim(join(options.archiveRoot, runName(meta)), true)) ?? (await claimDated(options));
  try {
    // The link is best effort: the move matters more than the address the reports name.
    if (meta !== null) await pointRunLink(options.sessionsRoot, meta, target).catch(() => undefined);
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

/** `<archive>/<YYYY-MM-DD>-<id>`, `-2`, `-3`, …: the first name free. */
async function claimDated(options: ArchiveSessionOptions): Promise<string> {
  const base = `${utcDate(options.clock.now())}-${options.taskId}`;
  for (let n = 1; n <= MAX_CLASHES; n += 1) {
    const target = await claim(join(options.archiveRoot, n === 1 ? base : `${base}-${n}`), false);
    if (target !== null) return target;
  }
  throw new WiggumError(
    'E_WRITE',
    `${options.archiveRoot} already holds ${MAX_CLASHES} archives named ${base}: clean up old archives`,
    {
      details: { archiveRoot: options.archiveRoot, base },
    },
  );
}

/**
 * Claims `target` with an exclusive mkdir; null when it is taken. `emptyIsOurs`: a run's own name
 * found empty was claimed by an archiving that a crash cut short, and is taken again.
 */
async function claim(target: string, emptyIsOurs: boolean): Promise<string | null> {
  try {
    await mkdir(target);
    return target;
  } catch (error) {
    if (systemErrorCode(error) !== 'EEXIST') throw error;
  }
  if (!emptyIsOurs) return null;
  const entries = await readdir(target).catch(() => null);
  return entries !== null && entries.length === 0 ? target : null;
}

function metaOrNull(sessionFile: string): SessionMeta | null {
  try {
    const text = readMemoryText(sessionFile);
    return text === null ? null : parseSessionMeta(text, sessionFile);
  } catch (error) {
    if (isWiggumError(error)) return null;
    throw error;
  }
}

/** `2026-01-27`, in UTC so that the name does not depend on the machine's zone. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
