import { lstat, open, readFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { WiggumError, systemErrorCode } from '../errors.js';

/**
 * Appends one JSON value as one line and fsyncs it. A line torn by an earlier crash (no final
 * newline) is cut off first, so the file is always whole lines; readers skip an unterminated last
 * line, so a line being written is never seen half-done.
 */
export async function appendJsonLine(path: string, value: unknown): Promise<void> {
  const line = Buffer.from(`${JSON.stringify(value)}\n`);
  await refuseSymlink(path);
  const handle = await open(path, 'a+', 0o644);
  try {
    const { size } = await handle.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) await handle.truncate(await lastCompleteLineEnd(handle, size));
    }
    await handle.write(line);
    await handle.datasync();
  } finally {
    await handle.close();
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
      throw new WiggumError('E_MEMORY_CORRUPT', `${path}:${index + 1}: the line is not valid JSON (${(cause as Error).message}); fix or remove that line`, {
        cause,
        details: { path, line: index + 1 },
      });
    }
  }
  return values;
}

async function lastCompleteLineEnd(handle: FileHandle, size: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024);
  let position = size;
  while (position > 0) {
    const start = Math.max(0, position - chunk.length);
    const { bytesRead } = await handle.read(chunk, 0, position - start, start);
    const newline = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (newline !== -1) return start + newline + 1;
    position = start;
  }
  return 0;
}

async function refuseSymlink(path: string): Promise<void> {
  try {
    if ((await lstat(path)).isSymbolicLink()) {
      throw new WiggumError('E_SYMLINK_REFUSED', `${path} is a symbolic link: wiggum does not write through links`, { details: { path } });
    }
  } catch (error) {
    if (systemErrorCode(error) !== 'ENOENT') throw error;
  }
}
