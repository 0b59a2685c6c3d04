import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isWiggumError, systemErrorCode } from '../errors.js';
import { acquireOwnerLock } from '../lock/owner-lock.js';
import type { OwnerLock } from '../lock/owner-lock.js';
import type { Logger } from '../log/logger.js';

/** Failures to create the lock that mean "this folder is not writable", not "someone owns it". */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT']);

/**
 * One process runs a task at a time: the daemon or a `wiggum run`/`ralph`. Without this a second
 * run would kill the first one's agent (as an orphan) and both would loop on the same session.
 * A live owner → E_LOCKED (exit 2) naming its pid; a dead one's lock is taken over. When the lock
 * folder cannot be written the task runs unlocked, with a warning, rather than not at all.
 */
export async function lockTask(locksDir: string, taskId: string, logger: Logger): Promise<OwnerLock | null> {
  const file = join(locksDir, `${taskId}.lock`);
  try {
    await mkdir(locksDir, { recursive: true });
    const lock = await acquireOwnerLock(
      file,
      (owner) =>
        `task ${taskId} is already being run by another wiggum (pid ${owner.pid} on ${owner.host}, since ${owner.startedAt}): ` +
        `wait for it to end or stop it first; if you are sure that process is gone, delete ${file}`,
    );
    if (lock.tookOverFrom !== null)
      logger.info(
        { event: 'task-lock.taken-over', taskId, stale: lock.tookOverFrom.pid },
        `took over the lock of pid ${lock.tookOverFrom.pid}, which no longer runs`,
      );
    return lock;
  } catch (error) {
    if (isWiggumError(error)) throw error;
    const code = systemErrorCode(error);
    if (code === undefined || !UNWRITABLE.has(code)) throw error;
    logger.warn(
      { event: 'task-lock.unwritable', taskId, err: error },
      `cannot write ${file} (${code}): running without the guard against a second run of this task`,
    );
    return null;
  }
}
