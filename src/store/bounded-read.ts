import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * What a bounded read of a file found: its text, nothing there, or a file it did not read (over the
 * limit, or not a regular file: a FIFO, a device, a folder). The size is fstat's, on the opened file:
 * nothing is read before the size is known, so a 60 MiB file costs one open and one fstat.
 */
export type BoundedText =
  { kind: 'text'; text: string } | { kind: 'missing' } | { kind: 'too-large'; size: number } | { kind: 'not-a-file' };

export interface BoundedReadOptions {
  /** Refuse a symbolic link at the path (ELOOP): for files another process may have replaced. */
  noFollow?: boolean;
}

/**
 * Opening never blocks (O_NONBLOCK: a FIFO in place of the file would wait for a writer forever);
 * O_NOFOLLOW when asked. ENOENT is `missing`; any other error is thrown for the caller to name.
 */
function flags(options: BoundedReadOptions): number {
  return constants.O_RDONLY | constants.O_NONBLOCK | (options.noFollow === true ? constants.O_NOFOLLOW : 0);
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * Reads a whole file of at most `limitBytes`, synchronously (small files: see readMemoryText).
 * At most `limitBytes + 1` bytes are ever read, also from a file that grows while it is read.
 */
export function readBoundedSync(path: string, limitBytes: number, options: BoundedReadOptions = {}): BoundedText {
  let fd: number;
  try {
    fd = openSync(path, flags(options));
  } catch (error) {
    if (isMissing(error)) return { kind: 'missing' };
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { kind: 'not-a-file' };
    if (stat.size > limitBytes) return { kind: 'too-large', size: stat.size };
    const buffer = Buffer.allocUnsafe(Math.min(stat.size, limitBytes) + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, length);
      if (read === 0) break;
      length += read;
      if (length > limitBytes) return { kind: 'too-large', size: length };
      if (length === buffer.length) break;
    }
    return { kind: 'text', text: buffer.toString('utf8', 0, length) };
  } finally {
    closeSync(fd);
  }
}

/** readBoundedSync off the event loop: for files read after an agent ran, which may be near their limit. */
export async function readBounded(
  path: string,
  limitBytes: number,
  options: BoundedReadOptions = {},
): Promise<BoundedText> {
  let handle;
  try {
    handle = await open(path, flags(options));
  } catch (error) {
    if (isMissing(error)) return { kind: 'missing' };
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { kind: 'not-a-file' };
    if (stat.size > limitBytes) return { kind: 'too-large', size: stat.size };
    const buffer = Buffer.allocUnsafe(Math.min(stat.size, limitBytes) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > limitBytes) return { kind: 'too-large', size: length };
      if (length === buffer.length) break;
    }
    return { kind: 'text', text: buffer.toString('utf8', 0, length) };
  } finally {
    await handle.close();
  }
}
