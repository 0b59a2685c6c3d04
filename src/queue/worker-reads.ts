import { readTail } from '../store/file-tail.js';
import { readMemoryText } from '../memory/session-meta.js';
import type { VaultLayout } from '../vault/layout.js';
import type { MemoryFiles } from './memory-files.js';
import { shadowMemoryPaths } from './shadow-vault.js';

/** The most of an iteration's output log a progress message carries to the vault. */
const LOG_TAIL_BYTES = 64 * 1024;

/**
 * The values of a MULTI's replies (null: no such key). A reply that is an error (Redis still loading
 * its append-only file after a restart) throws, so that a missing answer is never read as a missing
 * key: a lock "gone" that was only unreadable would fence a run that still owns its job.
 */
export function values(replies: [Error | null, unknown][] | null): (string | null)[] {
  if (replies === null) throw new Error('the transaction was discarded');
  return replies.map(([error, value]) => {
    if (error !== null) throw error;
    return typeof value === 'string' ? value : null;
  });
}

export function readShadowMemory(layout: VaultLayout, taskId: string): MemoryFiles {
  const paths = shadowMemoryPaths(layout, taskId);
  return {
    prd: readMemoryText(paths.prd),
    progress: readMemoryText(paths.progress),
    context: readMemoryText(paths.context),
  };
}

/** The last LOG_TAIL_BYTES of an iteration's log, from a line start; null when it has none. */
export async function logTail(path: string | undefined): Promise<string | null> {
  if (path === undefined) return null;
  const tail = await readTail(path, LOG_TAIL_BYTES);
  if (tail.length === 0) return null;
  const text = tail.toString('utf8');
  return tail.length < LOG_TAIL_BYTES ? text : text.slice(text.indexOf('\n') + 1);
}
