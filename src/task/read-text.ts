import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { WiggumError, isWiggumError, systemErrorCode } from '../errors.js';
import { fileProblem } from '../problem.js';
import type { Problem } from '../problem.js';
import { TASK_LIMITS, decodeTaskBytes, tooLarge } from './limits.js';

/**
 * Opening a named pipe (a FIFO called `x.md`) for reading waits for a writer, possibly forever:
 * O_NONBLOCK returns at once, and the fstat that follows refuses it as not a regular file. On a
 * regular file the flag changes nothing.
 */
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** Enough of a stat to tell whether a file was replaced or changed since it was read. */
export interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

/** A task file's text, checked as bytes (size, encoding) but not parsed. */
export interface TaskText {
  /** The decoded text, or null when the bytes could not be decoded. */
  text: string | null;
  /** Why the text is null. */
  problems: Problem[];
  stat: FileIdentity;
}

/**
 * A task file's bytes, read and checked (a regular file, within 1 MiB, UTF-8) but not parsed. The
 * size is checked on the open file before reading, so a huge file costs nothing; a file that
 * vanished raises E_TASK_NOT_FOUND.
 */
export async function readTaskText(path: string): Promise<TaskText> {
  let handle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (error) {
    throw notFoundOr(error, path);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > TASK_LIMITS.maxBytes) return checked(path, stat, null);
    // Read at most one byte past the limit: the file may grow between the stat and the read.
    const bytes = Buffer.alloc(stat.size + 1);
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0);
    return checked(path, stat, bytes.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/**
 * The same, synchronously: for a one-shot command reading many files (`wiggum status` over
 * Approved/), where the thread-pool round trips of four async calls a file cost more than the reads.
 */
export function readTaskTextSync(path: string): TaskText {
  let fd;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (error) {
    throw notFoundOr(error, path);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > TASK_LIMITS.maxBytes) return checked(path, stat, null);
    const bytes = Buffer.alloc(stat.size + 1);
    const bytesRead = readSync(fd, bytes, 0, bytes.length, 0);
    return checked(path, stat, bytes.subarray(0, bytesRead));
  } finally {
    closeSync(fd);
  }
}

function notFoundOr(error: unknown, path: string): unknown {
  const code = systemErrorCode(error);
  if (code === 'EACCES' || code === 'EPERM') {
    return new WiggumError(
      'E_TASK_UNREADABLE',
      `${path} cannot be read (${code}): give the wiggum user read access to it; it is left where it is and tried again`,
      {
        cause: error,
        details: { path, errno: code },
      },
    );
  }
  if (code !== 'ENOENT') return error;
  return new WiggumError('E_TASK_NOT_FOUND', `${path} does not exist (was it moved or deleted?)`, {
    cause: error,
    details: { path },
  });
}

/** The checks on what was read: a regular file, within the size limit, UTF-8 text. */
function checked(path: string, stat: Stats, bytes: Buffer | null): TaskText {
  const identity: FileIdentity = { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
  const refuse = (message: string): TaskText => ({
    text: null,
    problems: [fileProblem(path, message)],
    stat: identity,
  });
  if (!stat.isFile()) return refuse('not a regular file');
  const size = Math.max(stat.size, bytes?.length ?? 0);
  if (bytes === null || size > TASK_LIMITS.maxBytes) return refuse(tooLarge(size).message);
  try {
    return { text: decodeTaskBytes(bytes), problems: [], stat: identity };
  } catch (error) {
    if (!isWiggumError(error)) throw error;
    return refuse(error.message);
  }
}
