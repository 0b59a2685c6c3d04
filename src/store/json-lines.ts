import { closeSync, fdatasync, fstatSync, ftruncateSync, lstatSync, openSync, readSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { WiggumError, systemErrorCode } from '../errors.js';
import { writeError } from './atomic-write.js';

/**
 * Appends one JSON value as one line and fsyncs it. A line torn by an earlier crash (no final
 * newline) is cut off first, so the file is always whole lines; readers skip an unterminated last
 * line, so a line being written is never seen half-done.
 */
export async function appendJsonLine(path: string, value: unknown): Promise<void> {
  const line = Buffer.from(`${JSON.stringify(value)}\n`);
  // Everything but the datasync is synchronous: microseconds each on a small file, where the
  // thread-pool round trips of async calls cost more (npm run bench).
  const existing = lstatSync(path, { throwIfNoEntry: false });
  if (existing?.isSymbolicLink() === true) {
    throw new WiggumError('E_SYMLINK_REFUSED', `${path} is a symbolic link: wiggum does not write through links`, {
      details: { path },
    });
  }
  try {
    const fd = openSync(path, 'a+', 0o644);
    try {
      const { size } = fstatSync(fd);
      if (size > 0) {
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, size - 1);
        if (last[0] !== 0x0a) ftruncateSync(fd, lastCompleteLineEnd(fd, size));
      }
      // A write cut short (the disk full) leaves a line without its newline: readers skip it, and
      // the next append cuts it off.
      writeSync(fd, line);
      await promisify(fdatasync)(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw writeError(path, error);
  }
}

/**
 * Reads every complete line as JSON. A line that does not parse is a corrupted artifact and is
 * reported with its file and line number, never skipped silently.
 */
export async function readJsonLines(path: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return [];
    throw error;
  }
  const end = text.lastIndexOf('\n');
  if (end === -1) return [];
  const values: unknown[] = [];
  const lines = text.slice(0, end).split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    if (line.trim() === '') continue;
    try {
      values.push(JSON.parse(line));
    } catch (cause) {
      throw new WiggumError(
        'E_MEMORY_CORRUPT',
        `${path}:${index + 1}: the line is not valid JSON (${(cause as Error).message}); fix or remove that line`,
        {
          cause,
          details: { path, line: index + 1 },
        },
      );
    }
  }
  return values;
}

function lastCompleteLineEnd(fd: number, size: number): number {
  const chunk = Buffer.alloc(64 * 1024);
  let position = size;
  while (position > 0) {
    const start = Math.max(0, position - chunk.length);
    const bytesRead = readSync(fd, chunk, 0, position - start, start);
    const newline = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (newline !== -1) return start + newline + 1;
    position = start;
  }
  return 0;
}
