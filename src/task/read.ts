import { open } from 'node:fs/promises';
import { WiggumError, isWiggumError, systemErrorCode } from '../errors.js';
import { TASK_LIMITS, decodeTaskBytes, tooLarge } from './limits.js';
import { parseTask } from './parse.js';
import type { ParseResult } from './parse.js';
import { fileProblem } from '../problem.js';

/** What was read from disk, with the file's identity at that moment (to notice later edits). */
export interface ReadTask {
  result: ParseResult;
  /** The decoded text, or null when the bytes could not be decoded. */
  text: string | null;
  stat: FileIdentity;
}

/** Enough of a stat to tell whether a file was replaced or changed since it was read. */
export interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

/**
 * Reads and parses a task file. The size is checked on the open file before any byte is read, so a
 * huge file costs nothing; a file that vanished raises E_TASK_NOT_FOUND; bad content comes back as
 * problems, never as an exception.
 */
export async function readTaskFile(path: string): Promise<ReadTask> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') {
      throw new WiggumError('E_TASK_NOT_FOUND', `${path} does not exist (was it moved or deleted?)`, { cause: error, details: { path } });
    }
    throw error;
  }
  try {
    const stat = await handle.stat();
    const identity: FileIdentity = { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
    if (!stat.isFile()) {
      return { result: { ok: false, problems: [fileProblem(path, 'not a regular file')] }, text: null, stat: identity };
    }
    // Read at most one byte past the limit: the size is checked before reading, and again on the
    // bytes, because the file may grow between the two.
    const bytes = Buffer.alloc(Math.min(stat.size, TASK_LIMITS.maxBytes) + 1);
    const { bytesRead } = stat.size > TASK_LIMITS.maxBytes ? { bytesRead: stat.size } : await handle.read(bytes, 0, bytes.length, 0);
    if (bytesRead > TASK_LIMITS.maxBytes) {
      const problem = fileProblem(path, tooLarge(Math.max(stat.size, bytesRead)).message);
      return { result: { ok: false, problems: [problem] }, text: null, stat: identity };
    }
    let text: string;
    try {
      text = decodeTaskBytes(bytes.subarray(0, bytesRead));
    } catch (error) {
      if (!isWiggumError(error)) throw error;
      return { result: { ok: false, problems: [fileProblem(path, error.message)] }, text: null, stat: identity };
    }
    return { result: parseTask(path, text), text, stat: identity };
  } finally {
    await handle.close();
  }
}
