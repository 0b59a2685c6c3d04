import { lstat, truncate } from 'node:fs/promises';
import { isWiggumError } from '../errors.js';
import { limitOf, memoryTooLarge } from '../memory/limits.js';
import type { MemoryFileKind } from '../memory/limits.js';
import type { Prd } from '../memory/prd.js';
import type { IterationContext } from './iteration-context.js';

/** What the loop reads of the memory after a run, with a file it could not take kept as the error it is. */
export interface BoundedMemory {
  /** null: prd.json was not read (see `error`). */
  prd: Prd | null;
  /** null: progress.txt was not read (over its limit, or not a regular file). */
  progress: string | null;
  /** A copy not taken back (agent-files.ts), a file over its limit (E_MEMORY_TOO_LARGE), or a prd.json that no longer parses. */
  error: Error | null;
}

/**
 * Loads prd.json and progress.txt after a run. An agent that wrote its store's own files (an
 * unconfined run, or memory in the workdir) may have left one over its limit: the run fails
 * (E_MEMORY_TOO_LARGE), and the file is put back as it was before the run without being read, so
 * that the next attempt starts from the memory it had: prd.json rewritten from the list before the
 * run, progress.txt (only appended to, by the protocol) cut back to its length before the run.
 */
export async function loadBoundedMemory(
  ctx: IterationContext,
  before: { prd: Prd; progressBytes: number },
  copyError: Error | null,
): Promise<BoundedMemory> {
  let error = copyError;
  const paths = ctx.store.paths;
  if (paths !== null) {
    // progress.txt first: putting prd.json back may copy both into the session (workdir-store.ts).
    const progress = await oversized(ctx, paths.progress, 'progress');
    if (progress !== null) await truncate(paths.progress, before.progressBytes);
    const prd = await oversized(ctx, paths.prd, 'prd');
    if (prd !== null) await ctx.store.savePrd(before.prd);
    error ??= progress ?? prd;
  }
  let prd: Prd | null = null;
  if (error === null)
    try {
      prd = await ctx.store.loadPrd();
    } catch (thrown) {
      if (!isWiggumError(thrown)) throw thrown;
      error = thrown;
    }
  let progress: string | null = null;
  try {
    progress = await ctx.store.loadProgress();
  } catch (thrown) {
    if (!isWiggumError(thrown, 'E_MEMORY_TOO_LARGE')) throw thrown;
    error ??= thrown;
  }
  return { prd, progress, error };
}

/** The file's error when it is over its limit (its size from lstat: nothing is read), else null. */
async function oversized(ctx: IterationContext, path: string, kind: MemoryFileKind): Promise<Error | null> {
  const size = await lstat(path).then(
    (stat) => stat.size,
    () => null,
  );
  const limit = limitOf(ctx.config.memory.limits, kind);
  return size !== null && size > limit ? memoryTooLarge(path, kind, size, limit) : null;
}
