import { z } from 'zod';
import { WiggumError, systemErrorCode } from '../errors.js';
import { readBoundedSync } from '../store/bounded-read.js';
import { checkSchema, parseJsonText, startAfresh } from './json-text.js';
import { DEFAULT_MEMORY_LIMITS, memoryTooLarge } from './limits.js';
import type { MemoryFileKind } from './limits.js';

/** session.json: whose memory a session folder holds. */
export const sessionMetaSchema = z
  .object({
    sessionId: z.string().min(1),
    taskId: z.string().min(1),
    taskFile: z.string(),
    branchName: z.string().nullable(),
    createdAt: z.string(),
  })
  .loose();

export type SessionMeta = z.infer<typeof sessionMetaSchema>;

export function parseSessionMeta(text: string, path: string): SessionMeta {
  return checkSchema(sessionMetaSchema, parseJsonText(text, path), path);
}

export function serializeSessionMeta(meta: SessionMeta): string {
  return `${JSON.stringify(meta, null, 2)}\n`;
}

/**
 * A memory file's text, or null when it does not exist. Any other failure to read is
 * E_MEMORY_UNAVAILABLE: the memory is there but wiggum cannot see it. A file over `limit` (its
 * size taken on the opened file, before any read) or not a regular file is E_MEMORY_TOO_LARGE.
 */
export function readMemoryText(
  path: string,
  limit: { kind: MemoryFileKind; bytes: number } = { kind: 'prd', bytes: DEFAULT_MEMORY_LIMITS.prdBytes },
): string | null {
  let read;
  try {
    // Memory files are small: a synchronous read costs microseconds, a thread-pool round trip
    // more, and the loop reads several of them every iteration (npm run bench). The bound keeps it so.
    read = readBoundedSync(path, limit.bytes);
  } catch (error) {
    const code = systemErrorCode(error);
    throw new WiggumError(
      'E_MEMORY_UNAVAILABLE',
      `could not read ${path} (${code ?? 'error'}): check the folder's permissions`,
      {
        cause: error,
        details: { path, errno: code },
      },
    );
  }
  if (read.kind === 'missing') return null;
  if (read.kind === 'text') return read.text;
  throw memoryTooLarge(path, limit.kind, read.kind === 'too-large' ? read.size : null, limit.bytes);
}

/** A memory file that must exist (session.json, prd.json) but does not. */
export function missingFile(path: string, what: string): WiggumError {
  return new WiggumError('E_MEMORY_CORRUPT', `${path}: missing (${what}); restore it, or ${startAfresh(path)}`, {
    details: { path },
  });
}
