import { open, stat } from 'node:fs/promises';
import { systemErrorCode } from '../errors.js';

const READ_CHUNK = 256 * 1024;

/** The bytes of `path` from `offset` to its current end (empty when it is gone or has not grown). */
export async function readFrom(path: string, offset: number): Promise<Buffer> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (systemErrorCode(error) === 'ENOENT') return Buffer.alloc(0);
    throw error;
  }
  try {
    const parts: Buffer[] = [];
    let position = offset;
    for (;;) {
      const buffer = Buffer.alloc(READ_CHUNK);
      const { bytesRead } = await handle.read(buffer, 0, READ_CHUNK, position);
      if (bytesRead === 0) break;
      parts.push(buffer.subarray(0, bytesRead));
      position += bytesRead;
    }
    return Buffer.concat(parts);
  } finally {
    await handle.close();
  }
}

/** The last `bytes` of `path` (all of it when shorter); empty when it is gone. */
export async function readTail(path: string, bytes: number): Promise<Buffer> {
  const size = await stat(path).then(
    (s) => s.size,
    () => 0,
  );
  return readFrom(path, Math.max(0, size - bytes));
}
