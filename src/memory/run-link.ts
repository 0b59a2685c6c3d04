import { mkdir, readlink, readdir, rename, symlink, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, relative, resolve } from 'node:path';
import { systemErrorCode } from '../errors.js';
import { syncDirectory } from '../store/atomic-write.js';
import type { SessionMeta } from './session-meta.js';

/**
 * Each run of a task (one session) has a permanent address, `.wiggum/runs/<date>-<id>-<run>`: a
 * link to wherever its memory is. While the run is its id's current one that is
 * `.wiggum/sessions/<id>/`; when the id runs again (a new file with the same id, `retry --fresh`)
 * the folder moves to `.wiggum/archive/<date>-<id>-<run>/` and the link follows it. Reports name
 * the link, so a Done or Rejected file, which wiggum never rewrites, keeps pointing at its own
 * run's memory.
 */

/** `.wiggum/runs`, beside `.wiggum/sessions`. */
export function runsRootBeside(sessionsRoot: string): string {
  return join(dirname(sessionsRoot), 'runs');
}

/** The run part of a name: the session id's first 8 letters and digits (a UUID's first group). */
export function runTag(sessionId: string): string {
  return sessionId.replace(/[^A-Za-z0-9]/g, '').slice(0, 8) || 'run';
}

/** `2026-01-27-login-5b1e0c2a`: the run's link in runs/, and its folder's name once archived. */
export function runName(meta: Pick<SessionMeta, 'taskId' | 'sessionId' | 'createdAt'>): string {
  return `${meta.createdAt.slice(0, 10)}-${meta.taskId}-${runTag(meta.sessionId)}`;
}

/**
 * Points the run's link at `target` (created, or replaced in one rename), and returns the link.
 * Pointed before the folder moves: a crash in between leaves the link waiting for the move that
 * the next run of the id makes again, never pointing at another run's memory.
 */
export async function pointRunLink(
  sessionsRoot: string,
  meta: Pick<SessionMeta, 'taskId' | 'sessionId' | 'createdAt'>,
  target: string,
): Promise<string> {
  const root = runsRootBeside(sessionsRoot);
  await mkdir(root, { recursive: true });
  const link = join(root, runName(meta));
  const wanted = relative(root, target);
  if ((await readLinkOrNull(link)) === wanted) return link;
  const temp = join(root, `.${runName(meta)}.${randomBytes(4).toString('hex')}.tmp`);
  await symlink(wanted, temp);
  try {
    await rename(temp, link);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(root);
  return link;
}

/**
 * The link of the run whose session id is `sessionId` and the folder it leads to (absolute), or
 * null when it has none (a run from before links were kept, or memory that was never on disk).
 */
export async function findRunLink(
  sessionsRoot: string,
  taskId: string,
  sessionId: string,
): Promise<{ link: string; dir: string } | null> {
  const root = runsRootBeside(sessionsRoot);
  let names: string[];
  try {
    names = await readdir(root);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return null;
    throw error;
  }
  // The id in the name is the one the run had; a file renamed since (Done/x-2.md) still finds it by its run.
  const suffix = `-${runTag(sessionId)}`;
  const visible = names.filter((entry) => entry.endsWith(suffix) && !entry.startsWith('.'));
  const name = visible.find((entry) => entry.endsWith(`-${taskId}${suffix}`)) ?? visible[0];
  if (name === undefined) return null;
  const link = join(root, name);
  const target = await readLinkOrNull(link);
  return target === null ? null : { link, dir: resolve(root, target) };
}

async function readLinkOrNull(path: string): Promise<string | null> {
  try {
    return await readlink(path);
  } catch (error) {
    const code = systemErrorCode(error);
    if (code === 'ENOENT' || code === 'EINVAL') return null;
    throw error;
  }
}

/** `path`, inside the session folder `sessionDir`, named through the run's link when it has one. */
export function throughRunLink(path: string, sessionDir: string, runDir: string | null): string {
  const inside = relative(sessionDir, path);
  return runDir === null || inside.startsWith('..') ? path : join(runDir, inside);
}
