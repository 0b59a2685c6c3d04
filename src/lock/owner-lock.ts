import { link, open, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { WiggumError, systemErrorCode } from '../errors.js';
import { syncDirectory } from '../store/atomic-write.js';
import { isProcessAlive, processStartTicks } from './process-identity.js';

/** What a lock file holds: enough to tell a live owner from a stale file. */
export interface LockOwner {
  pid: number;
  /** Field 22 of /proc/<pid>/stat: a reused pid has another start time. */
  startTicks: string | null;
  host: string;
  startedAt: string;
}

export interface OwnerLock {
  owner: LockOwner;
  /** A stale lock that was taken over, if any. */
  tookOverFrom: LockOwner | null;
  /** Removes the lock file if it is still ours. Never throws. */
  release(): Promise<void>;
}

/**
 * Takes `file` for this process. The file appears with its whole content at once (a hard link of
 * a written temp file), so a reader never mistakes a lock being written for an unreadable one; if
 * it exists, its owner is checked: alive → E_LOCKED with `whenHeld(owner)` as the message; dead
 * (or unreadable) → the stale file is moved aside (kept as `<file>.stale`) and taken over.
 */
export async function acquireOwnerLock(file: string, whenHeld: (owner: LockOwner) => string, now: () => Date = () => new Date()): Promise<OwnerLock> {
  const owner: LockOwner = { pid: process.pid, startTicks: processStartTicks(process.pid), host: hostname(), startedAt: now().toISOString() };
  let tookOverFrom: LockOwner | null = null;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    if (await createWithContent(file, `${JSON.stringify(owner)}\n`)) {
      return { owner, tookOverFrom, release: () => releaseOwnerLock(file, owner) };
    }
    const existing = await readLockOwner(file);
    if (existing !== null && isLockOwnerAlive(existing)) {
      throw new WiggumError('E_LOCKED', whenHeld(existing), { details: { owner: existing, lockFile: file } });
    }
    // Stale: move it aside under a name of our own, then look at what was moved. If a racing
    // process took the stale lock over in between, the file moved is its fresh lock: put it back.
    const aside = `${file}.${process.pid}.stale`;
    try {
      await rename(file, aside);
    } catch (error) {
      if (systemErrorCode(error) === 'ENOENT') continue;
      throw error;
    }
    const moved = await readLockOwner(aside);
    if (moved !== null && !sameOwner(moved, existing) && isLockOwnerAlive(moved)) {
      await link(aside, file).catch(() => undefined);
      await unlink(aside).catch(() => undefined);
      continue;
    }
    await rename(aside, `${file}.stale`).catch(() => undefined);
    tookOverFrom = existing;
  }
  throw new WiggumError('E_LOCKED', `could not take ${file}: it keeps changing; is another wiggum starting?`, { details: { lockFile: file } });
}

/** Creates `file` holding `text`, fsynced, unless it exists; returns whether it was created. */
async function createWithContent(file: string, text: string): Promise<boolean> {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const handle = await open(temp, 'wx', 0o644);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, file);
  } catch (error) {
    if (systemErrorCode(error) === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  await syncDirectory(dirname(file));
  return true;
}

async function releaseOwnerLock(file: string, owner: LockOwner): Promise<void> {
  const current = await readLockOwner(file);
  if (current !== null && current.pid === owner.pid && current.host === owner.host && current.startedAt === owner.startedAt) {
    await unlink(file).catch(() => undefined);
  }
}

function sameOwner(a: LockOwner, b: LockOwner | null): boolean {
  return b !== null && a.pid === b.pid && a.host === b.host && a.startedAt === b.startedAt;
}

/** The lock's owner, or null when there is no lock or it cannot be read. */
export async function readLockOwner(file: string): Promise<LockOwner | null> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<LockOwner>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return null;
    return { pid: parsed.pid, startTicks: parsed.startTicks ?? null, host: parsed.host, startedAt: parsed.startedAt ?? '?' };
  } catch {
    return null;
  }
}

/** Whether the lock's owner still runs (see isProcessAlive). */
export function isLockOwnerAlive(owner: LockOwner): boolean {
  return isProcessAlive(owner, hostname());
}
