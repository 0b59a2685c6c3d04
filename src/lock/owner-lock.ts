import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises';
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
 *
 * Only one process at a time may remove a stale lock: the one that creates `<file>.takeover`. It
 * reads the lock again and moves it aside only if it is still the stale one it saw, so a fresh
 * lock that another process created meanwhile is never removed. (Moving aside without that guard
 * let two of eight racing processes win now and then under load: the second mover had moved the
 * first winner's fresh lock.)
 */
export async function acquireOwnerLock(
  file: string,
  whenHeld: (owner: LockOwner) => string,
  now: () => Date = () => new Date(),
): Promise<OwnerLock> {
  const owner: LockOwner = {
    pid: process.pid,
    startTicks: processStartTicks(process.pid),
    host: hostname(),
    startedAt: now().toISOString(),
  };
  const text = `${JSON.stringify(owner)}\n`;
  const takeover = `${file}.takeover`;
  let tookOverFrom: LockOwner | null = null;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    if (await createWithContent(file, text)) {
      return { owner, tookOverFrom, release: () => releaseOwnerLock(file, owner) };
    }
    const existing = await readLockOwner(file);
    if (existing !== null && isLockOwnerAlive(existing)) {
      // Its owner is past its takeover: a takeover file that names it is left over (put back by a
      // contender that had moved it aside by mistake after its writer was done with it).
      await removeTakeoverIf(takeover, (writer) => writer !== null && sameOwner(writer, existing));
      throw new WiggumError('E_LOCKED', whenHeld(existing), { details: { owner: existing, lockFile: file } });
    }
    if (!(await createWithContent(takeover, text))) {
      // Another process is taking the stale lock over: look again shortly. A takeover whose
      // writer was killed meanwhile (kill -9 of a daemon at start) would otherwise outlast every
      // attempt, and the next start would fail with E_LOCKED though nobody holds anything.
      await removeStaleTakeover(takeover);
      await pause(TAKEOVER_WAIT_MS * (1 + Math.random()));
      continue;
    }
    try {
      const again = await readLockOwner(file);
      if (again === null ? existing === null : sameOwner(again, existing)) {
        await rename(file, `${file}.stale`).catch((error: unknown) => {
          if (systemErrorCode(error) !== 'ENOENT') throw error;
        });
        tookOverFrom = existing;
      }
    } finally {
      await unlink(takeover).catch(() => undefined);
    }
  }
  throw new WiggumError('E_LOCKED', `could not take ${file}: it keeps changing; is another wiggum starting?`, {
    details: { lockFile: file },
  });
}

const MAX_ATTEMPTS = 50;
const TAKEOVER_WAIT_MS = 10;
/** A takeover file older than this is left over, whoever wrote it: no takeover takes that long. */
const STALE_TAKEOVER_MS = 10_000;

/**
 * Whether a `<lock>.takeover` file is left over: its writer (the owner it records) no longer
 * runs, or it is older than any takeover lasts (its writer unreadable, or alive but stuck). Pure.
 */
export function isStaleTakeover(writer: { alive: boolean } | null, ageMs: number): boolean {
  return (writer !== null && !writer.alive) || ageMs > STALE_TAKEOVER_MS;
}

/**
 * Removes a stale takeover file, and only that one: it is moved aside first and compared with
 * what was judged stale, because meanwhile another process may have removed it and made its own;
 * a fresh one moved by mistake is put back. (Should a third contender make one in the instant
 * between the move and the putting back, two would hold a takeover at once; each still moves the
 * lock aside only if it is the stale one it read.)
 */
async function removeStaleTakeover(takeover: string): Promise<void> {
  await removeTakeoverIf(takeover, (writer, ageMs) =>
    isStaleTakeover(writer === null ? null : { alive: isLockOwnerAlive(writer) }, ageMs),
  );
}

/** Removes the takeover file if `leftOver` says so of its writer and age, and only that one (see above). */
async function removeTakeoverIf(
  takeover: string,
  leftOver: (writer: LockOwner | null, ageMs: number) => boolean,
): Promise<void> {
  const seen = await stat(takeover).catch(() => null);
  if (seen === null) return;
  const writer = await readLockOwner(takeover);
  if (!leftOver(writer, Date.now() - seen.mtimeMs)) return;
  const aside = `${takeover}.${process.pid}.${Date.now()}.stale`;
  try {
    await rename(takeover, aside);
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return; // another process removed it first
    throw error;
  }
  const moved = await stat(aside).catch(() => null);
  const movedWriter = await readLockOwner(aside);
  const same =
    moved !== null &&
    moved.ino === seen.ino &&
    moved.mtimeMs === seen.mtimeMs &&
    (writer === null ? movedWriter === null : movedWriter !== null && sameOwner(movedWriter, writer));
  if (!same) await link(aside, takeover).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}

/**
 * A real timer on purpose, not the injected clock: the pause lets another real process finish
 * writing its lock (a race between processes), which a manual clock cannot stand in for.
 */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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
  if (
    current !== null &&
    current.pid === owner.pid &&
    current.host === owner.host &&
    current.startedAt === owner.startedAt
  ) {
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
    return {
      pid: parsed.pid,
      startTicks: parsed.startTicks ?? null,
      host: parsed.host,
      startedAt: parsed.startedAt ?? '?',
    };
  } catch {
    return null;
  }
}

/** Whether the lock's owner still runs (see isProcessAlive). */
export function isLockOwnerAlive(owner: LockOwner): boolean {
  return isProcessAlive(owner, hostname());
}
