import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, lstatSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { WiggumError, systemErrorCode } from '../errors.js';

export interface AtomicWriteOptions {
  /** File mode for a new file; an existing file keeps its own mode. */
  mode?: number;
  /**
   * The file holds a secret (a token, a webhook URL with its key): always written 0600, an existing
   * file with a wider mode included, so that a rewrite tightens what an older version left open.
   */
  ownerOnly?: boolean;
  /**
   * false: still all-or-nothing for readers and after a crash of wiggum, but without the fsyncs,
   * so a power loss may lose the write. For records whose loss is harmless. Default true.
   */
  durable?: boolean;
  /**
   * A write that must be durable before this one can be seen (a history line before the checkpoint
   * that counts it): the rename waits for it, while the two fsyncs run side by side. If it fails,
   * nothing is renamed and its error is thrown.
   */
  renameAfter?: Promise<void>;
  /**
   * Called with the folder's fsync (which makes the rename durable) instead of waiting for it: the
   * caller waits for it before whatever must not be durable before this write is.
   */
  deferFolderSync?: (synced: Promise<void>) => void;
  /**
   * Asked just before the rename, after the fsyncs (which may take long on a busy disk): false when
   * the file was changed or removed meanwhile, so that the write would overwrite a person's edit or
   * bring back a file they deleted. Nothing is renamed then, and {@link RenameRefused} is thrown.
   */
  stillCurrent?: () => boolean;
}

/** `stillCurrent` said no: the file changed after it was read, and nothing was written over it. */
export class RenameRefused extends Error {
  constructor(readonly path: string) {
    super(`${path} changed while it was being written; nothing was renamed over it`);
    this.name = 'RenameRefused';
  }
}

/**
 * Replaces `path` with `data` so that a reader, or the file after a crash, shows either the old
 * or the new contents, never a mix: a temp file in the same folder, fsync, rename, fsync of the folder.
 * A symlink at `path` is refused rather than followed or replaced.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const mode = options.ownerOnly === true ? ownerOnlyMode(path) : modeFor(path, options.mode);
  const temp = tempPathFor(path);
  // Awaited only after this write's own fsync: marked handled now, so that its failure meanwhile is
  // not an unhandled rejection (which the daemon treats as a crash); the await below still throws it.
  if (options.renameAfter instanceof Promise) options.renameAfter.catch(() => undefined);
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(data);
      if (options.durable !== false) await handle.sync();
    } finally {
      await handle.close();
    }
    await options.renameAfter;
    if (options.stillCurrent !== undefined && !options.stillCurrent()) throw new RenameRefused(path);
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    if (error instanceof RenameRefused) throw error;
    throw writeError(path, error);
  }
  if (options.durable === false) return;
  if (options.deferFolderSync === undefined) await syncDirectory(dirname(path));
  else {
    const synced = syncDirectory(dirname(path)).catch((error: unknown) => Promise.reject(writeError(path, error)));
    // The caller waits for it later; until then its failure must not count as unhandled.
    synced.catch(() => undefined);
    options.deferFolderSync(synced);
  }
}

/** The same as {@link writeFileAtomic}, for the last writes of a forced exit. */
export function writeFileAtomicSync(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  let existingMode: number | undefined;
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) throw symlinkRefused(path);
    existingMode = stat.mode & 0o7777;
  } catch (error) {
    if (systemErrorCode(error) !== 'ENOENT') throw error;
  }
  const temp = tempPathFor(path);
  try {
    const mode = options.ownerOnly === true ? OWNER_ONLY : (existingMode ?? options.mode ?? 0o644);
    const fd = openSync(temp, 'wx', mode);
    try {
      writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
      if (options.durable !== false) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // the temp file may never have been created
    }
    throw writeError(path, error);
  }
  if (options.durable === false) return;
  const dirFd = openSync(dirname(path), 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}

/**
 * Writes and fsyncs a new file in a folder nobody reads yet (a staging folder that is renamed into
 * place afterwards): no temp file or rename is needed, so many can be written concurrently.
 */
export async function writeNewFileDurably(path: string, data: string | Uint8Array): Promise<void> {
  const handle = await open(path, 'wx', 0o644);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes a rename or unlink in `directory` durable. */
export async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Temp names start with a dot and end in `.tmp`, so the vault watcher and editors ignore them. The
 * 8 hex digits count up from a random start drawn once per process (a random draw per write cost
 * more than the write's own calls): unique within the process, and unlike a reused pid's leftovers.
 */
export function tempPathFor(path: string): string {
  tempCount = (tempCount + 1) >>> 0;
  return join(dirname(path), `.${basename(path)}.${process.pid}.${tempCount.toString(16).padStart(8, '0')}.tmp`);
}

let tempCount = randomBytes(4).readUInt32BE(0);

const OWNER_ONLY = 0o600;

/** 0600, after the same refusal of a symlink as {@link modeFor}. */
function ownerOnlyMode(path: string): number {
  modeFor(path, OWNER_ONLY);
  return OWNER_ONLY;
}

function modeFor(path: string, requested: number | undefined): number {
  try {
    // Synchronous: microseconds, where a thread-pool round trip costs more (npm run bench).
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) throw symlinkRefused(path);
    return stat.mode & 0o7777;
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return requested ?? 0o644;
    throw error;
  }
}

function symlinkRefused(path: string): WiggumError {
  return new WiggumError(
    'E_SYMLINK_REFUSED',
    `${path} is a symbolic link: wiggum does not write through links; replace it with a regular file`,
    {
      details: { path },
    },
  );
}

/** A failed write as a WiggumError (E_WRITE) that says what to do: free space, fix permissions, … */
export function writeError(path: string, error: unknown): Error {
  if (error instanceof WiggumError) return error;
  const code = systemErrorCode(error);
  return new WiggumError('E_WRITE', `could not write ${path} (${code ?? 'error'}): ${writeFailureHint(code)}`, {
    cause: error,
    details: { path, errno: code },
  });
}

/** What to do about a write that failed with `code`. */
export function writeFailureHint(code: string | undefined): string {
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return 'the disk is full: free space and the task will resume from its last checkpoint';
  if (code === 'EACCES' || code === 'EPERM')
    return 'permission denied: give the wiggum user write access to this folder';
  if (code === 'EROFS') return 'the file system is read-only';
  return 'the previous version of the file is unchanged';
}
