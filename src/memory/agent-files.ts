import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
}

/**
 * The memory files for the agent. A durable store is the session folder itself (prd.json and
 * progress.txt perhaps in the workdir: the run's end copies them back, `mirror`). An in-memory
 * store has no folder, yet the agent (another process) still has to read and update prd.json and
 * progress.txt: it gets a scratch copy in the temp dir, read back after the run. Returns null when
 * not even that can be written.
 */
export async function agentFiles(store: MemoryStore, taskId: string): Promise<AgentFiles | null> {
  if (store.paths !== null) {
    const { dir, prd, progress, context } = store.paths;
    return { dir, prd, progress, context, absorb: () => store.mirror?.() ?? Promise.resolve() };
  }
  let dir: string;
  try {
    dir = await mkdtemp(join(tmpdir(), `wiggum-${taskId}-`));
  } catch {
    return null;
  }
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
  return {
    ...files,
    absorb: async () => {
      try {
        await store.savePrd(parsePrd(await readFile(files.prd, 'utf8'), files.prd));
        const progress = await readFile(files.progress, 'utf8');
        if (progress.startsWith(progressBefore) && progress.length > progressBefore.length) {
          await store.appendProgress(progress.slice(progressBefore.length).replace(/^\n+/, ''));
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
