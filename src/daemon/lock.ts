import { acquireOwnerLock } from '../lock/owner-lock.js';
import type { OwnerLock } from '../lock/owner-lock.js';

/**
 * One daemon per vault: `.wiggum/daemon.lock` names the owner (pid, process start time, host). A
 * live owner makes a second `wiggum start` fail with E_LOCKED (exit 2) naming its pid; a stale lock
 * is taken over and `tookOverFrom` says whose it was, for the caller to warn.
 */
export function acquireVaultLock(lockFile: string, now?: () => Date): Promise<OwnerLock> {
  return acquireOwnerLock(
    lockFile,
    (owner) =>
      `another wiggum (pid ${owner.pid} on ${owner.host}, started ${owner.startedAt}) is already running on this vault; ` +
      `stop it first, or delete ${lockFile} if you are sure it is not running`,
    now,
  );
}
