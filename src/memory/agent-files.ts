import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isWiggumError, toError } from '../errors.js';
import { readBounded } from '../store/bounded-read.js';
import { takeContextInbox } from './context-inbox.js';
import { DEFAULT_MEMORY_LIMITS, limitOf, memoryTooLarge } from './limits.js';
import type { MemoryFileKind, MemoryLimits } from './limits.js';
import { parsePrd, serializePrd } from './prd.js';
import type { MemoryStore } from './store.js';

/** Where the agent reads and writes its memory during one iteration. */
export interface AgentFiles {
  dir: string;
  prd: string;
  progress: string;
  context: string;
  /** After the run: takes the agent's edits back into a non-durable store, and cleans up. */
  absorb(): Promise<void>;
  /**
   * A copy that was not taken back when absorbed, else null: prd.json that no longer parsed, or a
   * copy over its limit (E_MEMORY_TOO_LARGE, never read).
   */
  prdError(): Error | null;
}

/**
 * The memory files for the agent. A durable store is the session folder itself (prd.json and
 * progress.txt perhaps in the workdir: the run's end copies them back, `mirror`). An in-memory
 * store has no folder, yet the agent (another process) still has to read and update prd.json and
 * progress.txt: it gets a scratch copy in the temp dir, read back after the run. Returns null when
 * not even that can be written.
 *
 * `scratch`: a confined run gets copies in this folder whatever the store, so that it can write its
 * memory and nothing else of wiggum's (history.jsonl, harness.json, logs, session.json are not
 * shown to it); they are read back, checked, after the run. The folder is the task's, kept between
 * its runs like a session folder (what else the agent keeps there stays), and refreshed from the
 * store before each run. prd.json and progress.txt that live in the workdir (`memory.in_workdir`)
 * stay there: the agent writes them in place.
 */
export async function agentFiles(
  store: MemoryStore,
  taskId: string,
  scratch?: string,
  limits: MemoryLimits = DEFAULT_MEMORY_LIMITS,
): Promise<AgentFiles | null> {
  if (store.paths !== null && (scratch === undefined || store.mirror !== undefined)) {
    const { dir, prd, progress, context } = store.paths;
    if (scratch === undefined)
      return { dir, prd, progress, context, absorb: () => store.mirror?.() ?? Promise.resolve(), prdError: () => null };
    // In the workdir: only the question file and context.md go to the scratch folder.
    await mkdir(scratch, { recursive: true, mode: 0o700 });
    const contextCopy = join(scratch, 'context.md');
    await writeFile(contextCopy, await store.loadContext());
    return {
      dir: scratch,
      prd,
      progress,
      context: contextCopy,
      absorb: async () => {
        await store.mirror?.();
        for (const text of await takeContextInbox(scratch)) await store.addContext(text);
      },
      prdError: () => null,
    };
  }
  let dir: string;
  try {
    if (scratch === undefined) dir = await mkdtemp(join(tmpdir(), `wiggum-${taskId}-`));
    else {
      await mkdir(scratch, { recursive: true, mode: 0o700 });
      dir = scratch;
    }
  } catch {
    return null;
  }
  return copiesIn(store, dir, scratch === undefined, limits);
}

/** prd.json, progress.txt and context.md copied into `dir`; absorbing takes prd.json and what was appended to progress back. */
async function copiesIn(
  store: MemoryStore,
  dir: string,
  removeAfter: boolean,
  limits: MemoryLimits,
): Promise<AgentFiles> {
  const files = {
    dir,
    prd: join(dir, 'prd.json'),
    progress: join(dir, 'progress.txt'),
    context: join(dir, 'context.md'),
  };
  const progressBefore = await store.loadProgress();
  await writeFile(files.prd, serializePrd(await store.loadPrd()));
  await writeFile(files.progress, progressBefore);
  await writeFile(files.context, await store.loadContext());
  let prdError: Error | null = null;
  return {
    ...files,
    prdError: () => prdError,
    absorb: async () => {
      try {
        // Each copy is checked by its size before it is read: an agent's file over its limit is
        // left where it is, and the run reads as a failed attempt (E_MEMORY_TOO_LARGE).
        try {
          const text = await readCopy(files.prd, 'prd', limits);
          if (text !== null) await store.savePrd(parsePrd(text, files.prd));
        } catch (error) {
          // Kept as the error it is: the iteration reads it as a prd.json that no longer parses.
          prdError = toError(error);
        }
        let progress: string | null = null;
        try {
          progress = await readCopy(files.progress, 'progress', limits);
        } catch (error) {
          if (!isWiggumError(error, 'E_MEMORY_TOO_LARGE')) throw error;
          prdError ??= error;
        }
        if (progress !== null && progress.startsWith(progressBefore) && progress.length > progressBefore.length) {
          await store.appendProgress(progress.slice(progressBefore.length).replace(/^\n+/, ''));
        }
        for (const added of await takeContextInbox(dir)) await store.addContext(added);
      } finally {
        if (removeAfter) await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A copy the agent wrote, read within its limit; a link, a FIFO or a device in its place is not read. */
async function readCopy(path: string, kind: MemoryFileKind, limits: MemoryLimits): Promise<string | null> {
  const limit = limitOf(limits, kind);
  const read = await readBounded(path, limit, { noFollow: true }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') return { kind: 'not-a-file' as const };
    throw error;
  });
  if (read.kind === 'text') return read.text;
  if (read.kind === 'missing') return null;
  throw memoryTooLarge(path, kind, read.kind === 'too-large' ? read.size : null, limit);
}
