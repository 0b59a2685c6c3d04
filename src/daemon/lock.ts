import { hostname } from 'node:os';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { WiggumError, systemErrorCode } from '../errors.js';
import { dirname } from 'node:path';
import { processStartTicks } from '../harness/proc-stat.js';
import { syncDirectory } from '../store/atomic-write.js';

/** What `.wiggum/daemon.lock` holds: enough to tell a live owner from a stale file. */
export interface LockOwner {
  pid: number;
  /** Field 22 of /proc/<pid>/stat: a reused pid has another start time. */
  startTicks: string | null;
  host: string;
  startedAt: string;
}

export interface VaultLock {
  owner: LockOwner;
  /** A stale lock that was taken over, if any. */
  tookOverFrom: LockOwner | null;
  release(): Promise<void>;
}

/**
 * One daemon per vault. The lock file is created exclusively; if it exists, its owner is checked:
 * alive (same host, the pid runs and started when the lock says) → E_LOCKED naming the pid;
 * dead → the stale lock is moved aside and taken over (the caller warns). Two daemons racing for a
 * stale lock cannot both win: only one rename of the stale file succeeds.
 */
export async function acquireVaultLock(lockFile: string, now: () => Date = () => new Date()): Promise<VaultLock> {
  const owner: LockOwner = { pid: process.pid, startTicks: processStartTicks(process.pid), host: hostname(), startedAt: now().toISOString() };
  let tookOverFrom: LockOwner | null = null;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      const handle = await open(lockFile, 'wx', 0o644);
      try {
        await handle.writeFile(`${JSON.stringify(owner)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await syncDirectory(dirname(lockFile));
      return { owner, tookOverFrom, release: () => releaseLock(lockFile, owner) };
    } catch (error) {
      if (systemErrorCode(error) !== 'EEXIST') throw error;
    }
    const existing = await readOwner(lockFile);
    if (existing !== null && isAlive(existing)) {
      throw new WiggumError(
        'E_LOCKED',
        `another wiggum (pid ${existing.pid} on ${existing.host}, started ${existing.startedAt}) is already running on this vault; ` +
          `stop it first, or delete ${lockFile} if you are sure it is not running`,
        { details: { owner: existing } },
      );
    }
    // Stale (or unreadable): move it aside; if another daemon moved it first, try again.
    try {
      await rename(lockFile, `${lockFile}.stale`);
      tookOverFrom = existing;
    } catch (error) {
      if (systemErrorCode(error) !== 'ENOENT') throw error;
    }
  }
  throw new WiggumError('E_LOCKED', `could not take ${lockFile}: it keeps changing; is another wiggum starting?`);
}

async function releaseLock(lockFile: string, owner: LockOwner): Promise<void> {
  const current = await readOwner(lockFile);
  if (current !== null && current.pid === owner.pid && current.host === owner.host) await unlink(lockFile).catch(() => undefined);
}

/** The lock's owner, or null when there is no lock or it cannot be read. */
export async function readOwner(lockFile: string): Promise<LockOwner | null> {
  try {
    const parsed = JSON.parse(await readFile(lockFile, 'utf8')) as Partial<LockOwner>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return null;
    return { pid: parsed.pid, startTicks: parsed.startTicks ?? null, host: parsed.host, startedAt: parsed.startedAt ?? '?' };
  } catch {
    return null;
  }
}

/** Whether the lock's owner still runs. On another host this cannot be checked, so it counts as alive. */
export function isAlive(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if (systemErrorCode(error) === 'ESRCH') return false;
  }
  const ticks = processStartTicks(owner.pid);
  if (ticks === null) return false;
  return owner.startTicks === null || ticks === owner.startTicks;
}
